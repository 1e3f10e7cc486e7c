"""How a run setting is declared: once, where it lives, with everything its front ends need.

A :class:`Setting` rides on its :class:`~debategraph.state.context.DebateContext` field (see
:func:`setting`), or stands beside the context for the few run settings that are no context
field (retries, the gate, the method's options). The command line's ``run`` and ``eval``
options, sweep-file validation, the arms' shared keys and the generation keywords of a model
call are all read from these declarations (:mod:`debategraph.state.settings_table`).

This module imports nothing of debategraph, so that every layer may read it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Literal

Group = Literal["debate", "generation", "attack", "evaluation"]
"""Where a setting belongs; ``--help`` shows one panel per group."""

PANELS: dict[str, str | None] = {
    "debate": "Debate settings",
    "generation": "Generation settings",
    "attack": "Attack settings",
    "evaluation": None,
}
"""The ``--help`` panel of each group (``None``: the command's own ``Options``)."""

Parse = Literal["value", "list", "models", "pairs", "agent_pairs", "method_pairs"]
"""How a command-line value becomes the setting's value: as given, a repeated option (none
given: unset), model specs (one: a single spec), ``KEY=VALUE`` pairs read loosely as JSON,
``AGENT=TEXT`` pairs, or the method's typed ``KEY=VALUE`` options."""

Check = Callable[[str, Any], "str | None"]
"""A check of a set value: the problem in one line, or ``None`` when it is fine."""


SEED_MAX = 2**32 - 1
"""The largest seed an option takes (NumPy's and most servers' seeds are 32-bit)."""


@dataclass(frozen=True)
class Bounds:
    """The range a numeric command-line option takes, checked before the command does any work.

    Attributes:
        low: The least value (excluded when ``above``).
        high: The greatest value.
        above: Values must be above ``low`` rather than at least ``low``.
        whole: Integers only (a float option takes any finite number in range).
    """

    low: float
    high: float
    above: bool = False
    whole: bool = True

    def describe(self) -> str:
        """The range in words, for ``--help`` and refusals (``1 to 1000000``)."""
        low, high = _shown(self.low), _shown(self.high)
        return f"above {low} and at most {high}" if self.above else f"{low} to {high}"

    def problem(self, flag: str, value: Any) -> str | None:
        """What is wrong with ``value`` for ``flag`` in one line, or ``None`` (unset is fine)."""
        if value is None:
            return None
        inside = (
            not isinstance(value, bool)
            and isinstance(value, int | float)
            and math.isfinite(value)
            and (value > self.low if self.above else value >= self.low)
            and value <= self.high
        )
        return None if inside else f"{flag} must be {self.describe()}, got {value}"

    def outside(self) -> tuple[float, float]:
        """A value just below the range and one just above it (for tests and examples)."""
        below = self.low if self.above else self.low - (1 if self.whole else 0.5)
        return (below, self.high + 1 if self.whole else self.high * 2 + 1)


def _shown(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


@dataclass(frozen=True, eq=False)
class Setting:
    """One run setting, declared once.

    Attributes:
        group: Its group (``debate``, ``generation``, ``attack``, ``evaluation``).
        help: Its ``--help`` line; empty when it has no command-line option.
        flag: The option's name when it is not ``--`` and the setting's name with dashes.
        commands: The commands that offer the option (``run``, ``eval``).
        cli_type: The option's value type (``list[str] | None`` for a repeated option).
        cli_default: The option's default.
        parse: How the option's value becomes the setting's (see :data:`Parse`).
        form: What a pair option takes (``AGENT=ANSWER``) and an example, for its error line.
        arm: An arm of a sweep may set it (``[settings]`` or ``[arms.X]``); otherwise it
            belongs at the sweep file's top level.
        voting: A voting arm made from another arm (``sc@M``, the screen) takes it.
        sent: A keyword of every model call (``temperature``); ``"nonzero"`` when 0 sends none.
        check: Checks a set value (``None`` is always fine).
        bounds: A numeric option's range, shown in its help and checked on the command line
            before any work (the refusal names the flag).
        eval_help: The ``eval`` option's help, when it differs from ``run``'s.
        toml: An evaluation setting's type as a top-level key of a sweep file (``None``: no
            such key).
        config: Where in a sweep file an evaluation setting's flag belongs when ``--config``
            is given (``None``: the flag may be given beside it, and wins).
        name: The Python keyword and sweep key (filled in from the field's name).
        field: The context field, or ``None`` for a setting that is no context field.
    """

    group: Group
    help: str = ""
    flag: str | None = None
    commands: tuple[str, ...] = ("run", "eval")
    cli_type: Any = None
    cli_default: Any = None
    parse: Parse = "value"
    form: tuple[str, str] | None = None
    arm: bool = True
    voting: bool = False
    sent: bool | Literal["nonzero"] = False
    check: Check | None = None
    bounds: Bounds | None = None
    eval_help: str | None = None
    toml: Any = None
    config: str | None = None
    name: str = ""
    field: str | None = None

    @property
    def option(self) -> str:
        """The command-line option (``--top-p``)."""
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def parameter(self) -> str:
        """The command function's parameter name of the option."""
        return self.option.removeprefix("--").replace("-", "_")

    @property
    def flag_decls(self) -> str:
        """The option's declaration: ``--x/--no-x`` for a switch without a flag of its own."""
        if self.cli_type is bool and self.flag is None:
            return f"{self.option}/--no-{self.option[2:]}"
        return self.option

    def help_for(self, command: str) -> str:
        """The option's help in ``command`` (with its range, for a bounded option)."""
        text = self.eval_help if command == "eval" and self.eval_help else self.help
        return with_range(text, self.bounds)


def with_range(help: str, bounds: Bounds | None) -> str:
    """``help`` followed by the range of a bounded option (``Range: 1 to 20.``)."""
    return f"{help} Range: {bounds.describe()}." if bounds is not None else help


def setting(
    group: Group,
    *,
    default: Any = None,
    factory: Any = None,
    key: str = "",
    **declared: Any,
) -> Any:
    """A :class:`DebateContext` field that carries its :class:`Setting` declaration.

    Args:
        group: The setting's group.
        default: The field's default (``None``: the method's or the model's own).
        factory: Makes the default instead (``dict``, ``list``).
        key: The Python keyword and sweep key when it is not the field's name.
        **declared: The other :class:`Setting` attributes; ``cli_default`` is ``default``
            unless given.
    """
    if "cli_default" not in declared and factory is None:
        declared["cli_default"] = default
    meta = {"setting": Setting(group, name=key, **declared)}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def integer(minimum: int | None = None, message: str = "") -> Check:
    """A check: an integer, at least ``minimum`` (``message`` says what is allowed)."""

    def check(name: str, value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{name} must be an integer, got {value!r}"
        if minimum is not None and value < minimum:
            return f"{name} must be {message}, got {value}"
        return None

    return check


def number(within: Callable[[float], bool] | None = None, message: str = "") -> Check:
    """A check: a finite number for which ``within`` holds (``message`` says which)."""

    def check(name: str, value: Any) -> str | None:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            return f"{name} must be a finite number, got {value!r}"
        if within is not None and not within(value):
            return f"{name} must be {message}, got {value}"
        return None

    return check


def one_of(values: Collection[str]) -> Check:
    """A check: one of ``values``, which the message lists."""

    def check(name: str, value: Any) -> str | None:
        if value in values:
            return None
        return f"{name} must be one of {', '.join(values)}, got {value!r}"

    return check
