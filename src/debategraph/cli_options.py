"""What the ``run`` and ``eval`` commands share: the error exit and common options."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar, cast

import typer
from rich.console import Console
from rich.markup import escape

from debategraph.policies.secrets import redact
from debategraph.policies.terminal import visible
from debategraph.state.setting import Bounds, with_range

err = Console(stderr=True)


CommandT = TypeVar("CommandT", bound=Callable[..., Any])


def interruptible(command: CommandT) -> CommandT:
    """A command that answers Ctrl-C with one line, ``interrupted``, and exit status 130.

    Ctrl-C raises ``KeyboardInterrupt`` (an evaluation's event loop first cancels its work, so
    finished rows stay written); the command-line framework would otherwise print a blank
    line and ``Aborted!`` and exit with status 1.
    """

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt:
            err.print("interrupted")
            raise typer.Exit(130) from None

    return cast(CommandT, run)


def check_output_folder(folder: Path, flag: str, *, needs: str | None = None) -> None:
    """Make sure ``folder`` can be written (creating it) before any model is called.

    Exits with status 2 and one line when it cannot, or when the optional package ``needs``
    is not installed.
    """
    import importlib.util

    if needs is not None and importlib.util.find_spec(needs) is None:
        fail(f"{flag} needs {needs}: pip install 'debategraph[plots]'")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"{flag}: cannot create {folder}: {exc.strerror or exc}")
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        fail(f"{flag}: {folder} is not a writable folder")


def shown(text: str) -> str:
    """Text for the terminal: secrets redacted, control sequences visible, markup-safe."""
    return escape(visible(redact(text)))


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` to stderr (see :func:`shown`) and exit with ``code``."""
    err.print(f"[bold red]error:[/] {shown(message)}", soft_wrap=True)
    raise typer.Exit(code)


def warn(message: str) -> None:
    """Print ``warning: message`` to stderr (see :func:`shown`)."""
    err.print(f"[bold yellow]warning:[/] {shown(message)}", soft_wrap=True)


def range_check(flag: str, bounds: Bounds) -> Callable[[Any], Any]:
    """An option callback that refuses a value outside ``bounds`` in one line naming ``flag``.

    It runs while the command line is read, before the command does any work; the range is
    kept on it as ``bounds``.
    """

    def check(value: Any) -> Any:
        problem = bounds.problem(flag, value)
        if problem is not None:
            fail(problem)
        return value

    setattr(check, "bounds", bounds)  # noqa: B010
    return check


def name_check(flag: str) -> Callable[[Any], Any]:
    """An option callback that refuses an empty (or blank) name in one line naming ``flag``."""

    def check(value: Any) -> Any:
        names = value if isinstance(value, list | tuple) else [value]
        if any(isinstance(name, str) and not name.strip() for name in names):
            fail(f"{flag} needs a name, got an empty one")
        return value

    return check


def bounded(flag: str, bounds: Bounds, help: str) -> Any:
    """A command's own numeric option with a range: shown in its help, checked at once."""
    return typer.Option(flag, help=with_range(help, bounds), callback=range_check(flag, bounds))


def named(flag: str, help: str) -> Any:
    """A command's own option that takes names (an arm, a method): empty ones are refused."""
    return typer.Option(flag, help=help, callback=name_check(flag))


SIMULATOR_BLIND = (
    "the simulated debaters know the answers of Du et al.'s arithmetic questions and of the "
    "bundled GSM8K test items only; here they guess, so their answers mean nothing. Pass "
    "--model (and --base-url) to debate with a real model"
)


def simulated(models: list[str] | None) -> bool:
    """Whether every agent would be the offline simulated debater."""
    from debategraph.models.resolve import is_simulated

    return not models or all(is_simulated(m) for m in models)


def parse_pairs(values: list[str] | None, flag: str) -> dict[str, str]:
    """``["k=v", ...]`` -> ``{"k": "v"}``; exits with status 2 on a malformed entry."""
    pairs: dict[str, str] = {}
    for value in values or ():
        key, sep, raw = value.partition("=")
        if not sep or not key.strip():
            fail(f"{flag} takes KEY=VALUE, got {value!r}")
        pairs[key.strip().replace("-", "_")] = raw.strip()
    return pairs


def parse_loose(raw: str) -> Any:
    """A command-line value read loosely: JSON, a comma list of JSON values, or the string.

    Numbers, lists and ``true``/``false`` parse as JSON; ``20,25,30,20`` becomes a list.
    """
    for text in (raw, f"[{raw}]" if "," in raw else None):
        if text is None:
            continue
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            continue
    return raw


CACHE_HELP = (
    "Cache model calls in this SQLite file: a repeated run with the same settings makes no "
    "model call."
)
NO_CACHE_HELP = (
    "Use no call cache, not even the one a sweep file names (e.g. when the cache file is "
    "damaged or its disk is full)."
)
PRICES_HELP = (
    "IN,OUT[,CACHED]: $ per 1M input and output tokens, and input tokens the provider served "
    "from its prompt cache (cost)."
)
CachePath = Annotated[Path | None, typer.Option("--cache", help=CACHE_HELP)]
NoCache = Annotated[bool, typer.Option("--no-cache", help=NO_CACHE_HELP)]


def chosen_cache(cache: Path | str | None, no_cache: bool) -> Path | str | None:
    """The cache to use: ``None`` with ``--no-cache``; exits 2 when both are given."""
    if no_cache and cache is not None:
        fail("give --cache FILE or --no-cache, not both")
    return None if no_cache else cache
