"""Checking that each call a planner returns is a call record before the engine reads it.

A planner is a method's own code, so a typo (``"tempalte"``), a missing key or a value of the
wrong type would otherwise surface as a bare ``KeyError`` or ``TypeError`` deep in the engine.
Each is one :class:`~debategraph.methods.contract.PlanError` naming the method, the call and
the field.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from debategraph.errors import PlanError
from debategraph.state.records import Call, upgrade_call

_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "id": (str, "a string"),
    "kind": (str, "a string"),
    "speaker": (str, "a string"),
    "round": (int, "an integer"),
    "reads": ((list, tuple), "a list of turn ids"),
    "template": (str, "a string"),
    "vars": (Mapping, "a mapping"),
    "history": (bool, "true or false"),
}
"""Every field of a :class:`~debategraph.state.records.Call`, with its type in words."""


def checked_call(method: str, raw: object, position: int) -> Call:
    """``raw`` as a call record, or a :class:`PlanError` naming what is wrong with it.

    Args:
        method: The method's name (for the message).
        raw: What the planner returned at ``position`` of the phase.
        position: Its index in the phase, counting from 0.

    Returns:
        The call (the old ``prompt`` key read as ``template``).

    Raises:
        PlanError: Not a mapping, a missing field, or a field of the wrong type.
    """
    if not isinstance(raw, Mapping):
        raise PlanError(
            f"{method}: call {position} of the phase is a {type(raw).__name__} ({_short(raw)}), "
            "not a call record: build calls with debategraph.methods.call(view, ...)"
        )
    call = upgrade_call(raw)
    record: Mapping[str, Any] = call
    name = _name(record, position)
    for field, (kind, words) in _FIELDS.items():
        if field not in record:
            near = difflib.get_close_matches(field, [str(k) for k in record if k not in _FIELDS])
            hint = f" (is {near[0]!r} a misspelling?)" if near else ""
            raise PlanError(
                f"{method}: {name} has no field {field!r}{hint}; build calls with "
                "debategraph.methods.call(view, ...)"
            )
        value = record[field]
        wrong = not isinstance(value, kind) or (field == "round" and isinstance(value, bool))
        if not wrong and field == "reads":
            wrong = not all(isinstance(i, str) for i in value)
        if wrong:
            raise PlanError(f"{method}: {name} has {field}={_short(value)}, which must be {words}")
    return call


def _name(call: Mapping[str, Any], position: int) -> str:
    ident = call.get("id")
    if isinstance(ident, str):
        return f"call {ident!r}"
    return f"call {position} of the phase ({_short(dict(call))})"


def _short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
