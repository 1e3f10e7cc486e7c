"""The ``run`` and ``eval`` options of every declared run setting, and what they parse to.

:func:`with_settings` adds one option per setting of :mod:`debategraph.state.settings_table`
to a command, in the ``--help`` panel of its group, and hands the command one
:class:`GivenSettings` instead of a parameter per option. A new setting declared on
:class:`~debategraph.state.context.DebateContext` becomes an option of both commands with no
edit here.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, cast

import typer

from debategraph.cli_options import fail, parse_loose, parse_pairs, range_check
from debategraph.state.setting import PANELS, Setting
from debategraph.state.settings_table import declarations, for_command

CommandT = TypeVar("CommandT", bound=Callable[..., Any])


@dataclass(frozen=True)
class GivenSettings:
    """The declared settings' options as a command received them.

    Attributes:
        command: ``run`` or ``eval``.
        raw: Every run setting option's value as parsed by the command line, by name.
        own: The command's own options (``eval``'s ``EvalOptions``), or ``None``.
    """

    command: str
    raw: dict[str, Any]
    own: Any = None

    def changed(self) -> list[str]:
        """The options given a value other than their default, in declaration order."""
        return [
            s.option
            for s in for_command(self.command)
            if self.raw[s.name] != s.cli_default and self.raw[s.name] != []
        ]

    def values(self) -> dict[str, Any]:
        """The settings given, parsed, as ``run``/``arun`` keywords (unset ones left out).

        Exits with status 2 and one line on a malformed ``KEY=VALUE`` option. Method options
        (``--option``) are left out: reading them needs the method (see :meth:`pairs`).
        """
        values = {}
        for s in for_command(self.command):
            if s.parse == "method_pairs":
                continue
            value = _parsed(s, self.raw[s.name])
            if value is not None and value is not False and value != {}:
                values[s.name] = value
        return values

    def pairs(self, name: str) -> list[str] | None:
        """A ``KEY=VALUE`` option's values as given (``--option``), ``None`` if none."""
        return self.raw[name] or None


def with_settings(command: str, own: type[Any] | None = None) -> Callable[[CommandT], CommandT]:
    """Add every setting ``command`` offers as an option of the decorated command function.

    Args:
        command: ``run`` or ``eval``.
        own: A dataclass whose fields declare the command's own options (with
            :func:`~debategraph.state.setting.setting`); the command gets an instance.

    The function takes a keyword ``given: GivenSettings`` in their place; its own parameters
    keep their options, shown before the settings' panels in ``--help``.
    """
    settings = for_command(command)
    owned = declarations(own) if own is not None else ()

    def decorate(func: CommandT) -> CommandT:
        signature = inspect.signature(func, eval_str=True)
        params = [p for p in signature.parameters.values() if p.name != "given"]
        params += [_parameter(s, command) for s in (*owned, *settings)]

        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            raw = {s.name: kwargs.pop(s.parameter, s.cli_default) for s in settings}
            mine = {s.name: kwargs.pop(s.parameter, s.cli_default) for s in owned}
            given = GivenSettings(command, raw, own(**mine) if own is not None else None)
            return func(*args, given=given, **kwargs)

        run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        return cast(CommandT, run)

    return decorate


def _parameter(s: Setting, command: str) -> inspect.Parameter:
    option = typer.Option(
        s.flag_decls,
        help=s.help_for(command),
        rich_help_panel=PANELS[s.group],
        callback=range_check(s.option, s.bounds) if s.bounds is not None else None,
    )
    return inspect.Parameter(
        s.parameter,
        inspect.Parameter.KEYWORD_ONLY,
        default=s.cli_default,
        annotation=Annotated[s.cli_type, option],
    )


def _parsed(s: Setting, value: Any) -> Any:
    """An option's value as the setting's (see :data:`debategraph.state.setting.Parse`)."""
    if s.parse == "list":
        return list(value) if value else None
    if s.parse == "models":
        return None if not value else value[0] if len(value) == 1 else list(value)
    if s.parse == "pairs":
        return {k: parse_loose(v) for k, v in parse_pairs(value, s.option).items()}
    if s.parse == "agent_pairs":
        return _agent_pairs(s, value)
    return value


def _agent_pairs(s: Setting, values: list[str] | None) -> dict[str, str]:
    """``["a3=42"]`` -> ``{"a3": "42"}``; exits with status 2 on a malformed entry."""
    form, example = s.form or ("AGENT=TEXT", "a1=...")
    pairs: dict[str, str] = {}
    for value in values or ():
        agent, sep, text = value.partition("=")
        if not sep or not agent.strip() or not text.strip():
            fail(f"{s.option} takes {form} (e.g. {example}), got {value!r}")
        pairs[agent.strip()] = text.strip()
    return pairs
