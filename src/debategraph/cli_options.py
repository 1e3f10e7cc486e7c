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


Models = Annotated[
    list[str] | None,
    typer.Option(
        help="'simulated' (default), 'provider:model', or a name served at --base-url; "
        "repeat to give each agent its own."
    ),
]
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint for --model names.")]
Agents = Annotated[int | None, typer.Option(help="Number of agents (method default).")]
Rounds = Annotated[
    int | None,
    typer.Option(
        help="Debate rounds after the initial answers (method default); cot, sc and mav never "
        "debate: run refuses rounds above 0 for them, eval leaves them out of theirs."
    ),
]
DecisionRule = Annotated[
    str | None,
    typer.Option(help="Decision rule overriding the method's own (debategraph rules lists them)."),
]
Ties = Annotated[str, typer.Option(help="Majority-vote ties: first, random or confidence.")]
MethodOption = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        help="KEY=VALUE option of the method (e.g. prune=top_k for cortex); repeat. "
        "See the method's card in docs/methods.",
    ),
]
DecisionOption = Annotated[
    list[str] | None,
    typer.Option(help="KEY=VALUE option of the decision rule (e.g. weights=20,25,30,20); repeat."),
]
Gate = Annotated[
    str | None,
    typer.Option(
        help="Debate only when round 0's vote is not settled: unanimous, entropy<H or "
        "confidence>C (see docs/methods/gate.md); round 0 is always paid.",
    ),
]
Temperature = Annotated[float | None, typer.Option(help="Sampling temperature of every call.")]
TopP = Annotated[float | None, typer.Option(help="Nucleus-sampling top-p of every call.")]
TopK = Annotated[
    int | None,
    typer.Option(
        help="Sample among the K most likely tokens (vLLM, llama.cpp, Ollama; not OpenAI's "
        "API); 0 sends none, even when --settings has one."
    ),
]
SamplingPresetName = Annotated[
    str | None,
    typer.Option(
        "--settings",
        help="A sampling preset of the method: 'paper' is the temperature, top-p and top-k "
        "its paper ran with (see its card); --temperature, --top-p and --top-k win.",
    ),
]
MaxTokens = Annotated[int | None, typer.Option(help="Most tokens generated per call.")]
Stop = Annotated[list[str] | None, typer.Option(help="A stop sequence; repeat.")]
Timeout = Annotated[
    float | None,
    typer.Option(
        help="Seconds one model call may take, its whole reply included, before it fails "
        "and is retried."
    ),
]
MaxAttempts = Annotated[
    int | None,
    typer.Option(help="Attempts per model call on transient failures (default 6, 1 to 20)."),
]
RetryBackoff = Annotated[
    float | None,
    typer.Option(help="Seconds before the first retry (default 1; doubles, with jitter)."),
]
Logprobs = Annotated[bool, typer.Option(help="Ask every call for token logprobs.")]
AllowLarge = Annotated[bool, typer.Option(help="Allow more than 64 agents or 20 rounds.")]
CachePath = Annotated[
    Path | None,
    typer.Option(
        "--cache",
        help="Cache model calls in this SQLite file: a repeated run with the same settings "
        "makes no model call.",
    ),
]

NoCache = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Use no call cache, not even the one a sweep file names (e.g. when the cache "
        "file is damaged or its disk is full).",
    ),
]


def chosen_cache(cache: Path | str | None, no_cache: bool) -> Path | str | None:
    """The cache to use: ``None`` with ``--no-cache``; exits 2 when both are given."""
    if no_cache and cache is not None:
        fail("give --cache FILE or --no-cache, not both")
    return None if no_cache else cache


def generation_settings(
    temperature: float | None,
    top_p: float | None,
    max_tokens: int | None,
    stop: list[str] | None,
    timeout: float | None,
    top_k: int | None = None,
    preset: str | None = None,
) -> dict[str, Any]:
    """The generation settings given on the command line, as context fields."""
    settings = {
        "settings": preset,
        "temperature": temperature,
        "top_p": top_p,
        "top_k": top_k,
        "max_tokens": max_tokens,
        "stop": stop or None,
        "timeout": timeout,
    }
    return {k: v for k, v in settings.items() if v is not None}
