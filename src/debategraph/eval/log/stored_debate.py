"""The debate a stored row keeps, as ``debategraph show`` prints it.

Kept apart from :mod:`debategraph.eval.log.rows` (which makes rows, and loads the model
stack for it): ``show`` reads one item's rows and needs only the row and the result types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import UNSET

from debategraph.eval.log.row import Row, as_row, opt
from debategraph.result import DebateResult

SHOWN_FIELDS = ("question", "turns", "decision", "agent_names")
"""The fields a row needs for ``debategraph show`` (rows written before 0.2 lack them)."""


def result_from_row(row: Row[Any] | Mapping[str, Any]) -> DebateResult:
    """The debate a finished row keeps, as a :class:`~debategraph.result.DebateResult`.

    Raises:
        ValueError: A failed row, or one written without the debate (before 0.2).
        RowError: ``row`` is a JSON object that is no row (a field of the wrong type).
    """
    row = as_row(row)
    if opt(row.error) is not None:
        raise ValueError(f"{row.method}/{row.id} failed: {row.error}")
    shown = (row.question, row.turns, row.decision, row.agent_names)
    missing = [f for f, value in zip(SHOWN_FIELDS, shown, strict=True) if value is UNSET]
    decision, turns, names = row.decision, row.turns, row.agent_names
    if missing or decision is UNSET or turns is UNSET or names is UNSET:
        raise ValueError(
            f"the row of {row.method}/{row.id} does not keep its debate (no "
            f"{', '.join(missing)}): it was written by debategraph 0.1; run the item again"
        )
    models = row.agent_models or []
    return DebateResult(
        method=row.method,
        question=str(row.question),
        answer=opt(row.answer),
        decision=dict(decision or {}),
        rounds=row.rounds or 0,
        agents=[
            {"name": n, "model": models[k] if k < len(models) else "?"} for k, n in enumerate(names)
        ],
        turns=[msgspec.to_builtins(turn) for turn in turns],
        cut_off=list(row.cut_off or []),
        adversaries=dict(row.adversaries or {}),
        method_state=dict(row.method_state or {}),
        reference=opt(row.reference),
        settings=dict(row.settings or {}),
        task=row.task or "number",  # type: ignore[arg-type]
    )
