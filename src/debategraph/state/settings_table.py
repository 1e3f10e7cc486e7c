"""Every run setting in one table, read from the declarations on :class:`DebateContext`.

The front ends derive from it: ``debategraph run`` and ``eval`` options
(:mod:`debategraph.cli_settings`), the keys a sweep file's ``[settings]`` and arms take and the
line that says where a misplaced key belongs (:mod:`debategraph.eval.run.sweep`), what a voting
arm copies from the arm it matches (:mod:`debategraph.eval.run.arms`), and the keywords of every
model call (:meth:`DebateContext.generation`). Python's ``run(**settings)`` and Studio's
context form take the context's fields themselves.
"""

from __future__ import annotations

import difflib
import functools
import typing
from dataclasses import fields, replace
from typing import Any

from debategraph.state.context import DebateContext
from debategraph.state.setting import Bounds, Setting

RUN_SETTINGS = (
    Setting(
        "generation",
        name="max_attempts",
        help="Attempts per model call on transient failures (default 6).",
        cli_type=int | None,
        bounds=Bounds(1, 20),
        voting=True,
    ),
    Setting(
        "generation",
        name="retry_backoff",
        help="Seconds before the first retry (default 1; doubles, with jitter).",
        cli_type=float | None,
        bounds=Bounds(0, 3600, whole=False),
        voting=True,
    ),
    Setting(
        "debate",
        name="gate",
        help="Debate only when round 0's vote is not settled: unanimous, entropy<H or "
        "confidence>C (see docs/methods/gate.md); round 0 is always paid.",
        eval_help="Gate every method that debates: it debates an item only when round 0's "
        "vote is not settled (unanimous, entropy<H, confidence>C); methods that do not "
        "debate run as they are.",
        cli_type=str | None,
    ),
)
"""The run settings that are no context field: retries (``run``/``arun`` keywords) and the
gate (it wraps the method)."""

MODEL_ALIAS = "model"
"""The old name of ``models``, still read in a sweep file and an arm's settings."""


def declarations(cls: type[Any]) -> tuple[Setting, ...]:
    """The settings declared on a dataclass's fields (see :func:`~.setting.setting`)."""
    hints = typing.get_type_hints(cls)
    table = []
    for f in fields(cls):
        s: Setting = f.metadata["setting"]
        kind = s.cli_type if s.cli_type is not None else hints[f.name]
        table.append(replace(s, name=s.name or f.name, field=f.name, cli_type=kind))
    return tuple(table)


@functools.cache
def declared() -> tuple[Setting, ...]:
    """Every run setting: the context's fields in their order, then :data:`RUN_SETTINGS`."""
    return (*declarations(DebateContext), *RUN_SETTINGS)


@functools.cache
def for_command(command: str) -> tuple[Setting, ...]:
    """The settings that ``command`` (``run`` or ``eval``) offers as options."""
    return tuple(s for s in declared() if s.help and command in s.commands)


@functools.cache
def arm_keys() -> frozenset[str]:
    """The keys a sweep file's ``[settings]`` and arms take (and an ``Arm``'s settings)."""
    names = {s.name for s in declared() if s.arm} | {s.field for s in declared() if s.field}
    return frozenset(names | {MODEL_ALIAS})


@functools.cache
def voting_keys() -> frozenset[str]:
    """What a voting arm made from another arm (``sc@M``, the screen) takes of its settings."""
    return frozenset(s.name for s in declared() if s.voting)


def closest(key: str, valid: typing.Iterable[str]) -> str | None:
    """The valid key ``key`` was likely meant as, if any."""
    close = difflib.get_close_matches(key, list(valid), n=1)
    return close[0] if close else None
