"""The debate's shared state and its reducers."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired, TypedDict

from debategraph.policies.types import TaskKind
from debategraph.state.records import AgentPlan, Turn


def replace(_old: Any, new: Any) -> Any:
    """Reducer that keeps only the newest value (the plan is recomputed, never appended)."""
    return new


def add_turns(old: list[Turn] | None, new: list[Turn]) -> list[Turn]:
    """Append turns not yet recorded, by id.

    Idempotent, because a round subgraph hands its whole turn list back to the parent graph.
    Only the tail of ``old`` from the earliest new round on is searched for duplicates.
    """
    old = old or []
    if not new:
        return old
    earliest = min(t["round"] for t in new)
    recent = set()
    for turn in reversed(old):
        if turn["round"] < earliest:
            break
        recent.add(turn["id"])
    return old + [t for t in new if t["id"] not in recent]


def merge(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """Reducer that updates a dict key by key (method state that persists across rounds)."""
    return {**(old or {}), **new}


class DebateInput(TypedDict):
    """What a caller passes in.

    Attributes:
        question: The question, verbatim.
        task: Answer kind: ``number``, ``choice`` or ``text``.
        choices: Options of a multiple-choice question, shown as A), B), ...
        reference: The right answer, for evaluation only; never shown to agents.
    """

    question: str
    task: NotRequired[TaskKind]
    choices: NotRequired[list[str] | None]
    reference: NotRequired[str | None]


class DebateState(DebateInput):
    """Full state of a running debate.

    Attributes:
        turns: Every model call, in order (append-only).
        round: The round last planned (0 is the initial round); one writer, last value wins.
        plan: Per speaking agent, what it reads in the current round (replaced each round).
        method_state: Method-specific state that persists across rounds (trust running means,
            graphs per round, score tables, cut-off agents, ...).
        decision: The final decision: ``answer``, ``rule``, ``evidence``.
    """

    turns: Annotated[list[Turn], add_turns]
    round: int
    plan: Annotated[dict[str, AgentPlan], replace]
    method_state: Annotated[dict[str, Any], merge]
    decision: Annotated[dict[str, Any], replace]
