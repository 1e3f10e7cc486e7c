"""The debate's shared state, its reducers, and the narrower schemas of its inputs and outputs.

``typing_extensions.TypedDict`` (not ``typing``'s) keeps the schemas convertible to JSON
schema on Python 3.11, which LangGraph Studio and ``graph.as_tool()`` need.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, Any, NotRequired

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from debategraph.errors import PlanError
from debategraph.policies.types import TaskKind
from debategraph.state.records import Call, Turn, upgrade_turn


class DuplicateTurnError(PlanError, ValueError):
    """Two different turns were recorded under one id: a planner issued a call id twice."""


def replace(_old: Any, new: Any) -> Any:
    """Reducer that keeps only the newest value."""
    return new


def add_turns(old: list[Turn] | None, new: Sequence[Turn]) -> list[Turn]:
    """Append turns not yet recorded.

    A round subgraph hands its whole turn list back to the parent graph, so a turn that is
    already recorded, unchanged, is skipped. A *different* turn under a recorded id means two
    calls shared an id, and raises. Ids carry their round, so only the tail of ``old`` from the
    earliest round in ``new`` is searched.

    Raises:
        DuplicateTurnError: A new turn has the id of a recorded turn but other content.
    """
    old = old or []
    if not new:
        return old
    if len(new) == 1:  # one call node's write: compare with the turns of its round only
        turn = upgrade_turn(new[0])
        turn_id, round_ = turn["id"], turn["round"]
        for seen in reversed(old):
            if seen["round"] < round_:
                break
            if seen["id"] == turn_id:
                if seen != turn:
                    raise DuplicateTurnError(
                        f"two different turns have the id {turn_id!r}: every call a planner "
                        "issues needs an id of its own"
                    )
                return old
        return [*old, turn]
    # The usual hand-back: the very turn objects of ``old``, then the round's new ones.
    if len(new) >= len(old) and all(map(operator.is_, old, new)):
        if len(new) == len(old):
            return old
        new = new[len(old) :]
    earliest = min(t["round"] for t in new)
    recent: dict[str, Turn] = {}
    for turn in reversed(old):
        if turn["round"] < earliest:
            break
        recent[turn["id"]] = turn
    added: list[Turn] = []
    for turn in map(upgrade_turn, new):
        seen = recent.get(turn["id"])
        if seen is None:
            recent[turn["id"]] = turn
            added.append(turn)
        elif seen is not turn and seen != turn:
            raise DuplicateTurnError(
                f"two different turns have the id {turn['id']!r}: every call a planner issues "
                "needs an id of its own"
            )
    return old + added if added else old


def merge(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """Reducer that updates a dict key by key (method state that persists across rounds)."""
    return {**(old or {}), **new}


class DebateInput(TypedDict):
    """What a caller passes in.

    Attributes:
        question: The question, verbatim.
        task: Answer kind: ``number``, ``choice``, ``math`` or ``text`` (default ``number``).
        choices: Options of a multiple-choice question, shown as A), B), ...
        reference: The right answer, for evaluation only; never shown to agents.
        item_id: The question's id in its dataset (seeds the item's random tie-breaks).
    """

    question: str
    task: NotRequired[TaskKind]
    choices: NotRequired[list[str] | None]
    reference: NotRequired[str | None]
    item_id: NotRequired[str | None]


class DebateRequest(BaseModel):
    """A debate's input as the graphs take it: only the question is required.

    The graphs' input schema (a model rather than :class:`DebateInput`, so that
    ``graph.as_tool()`` asks a calling model for the question alone; the other fields are
    optional with their defaults).
    """

    question: str = Field(description="The question, verbatim.")
    task: TaskKind = Field(
        default="number", description="Answer kind: number, choice, math or text."
    )
    choices: list[str] | None = Field(
        default=None, description="Options of a multiple-choice question, shown as A), B), ..."
    )
    reference: str | None = Field(
        default=None, description="The right answer, for evaluation only; never shown to agents."
    )
    item_id: str | None = Field(
        default=None, description="The question's id in its dataset (seeds random tie-breaks)."
    )


class DebateOutput(DebateInput):
    """What a finished debate returns.

    Attributes:
        agents: The agents, in agent order.
        cut_off: Agents that received no peer turns (the communication attack).
        turns: Every model call, in order.
        round: The last round run (0 is the initial round).
        method_state: What the method kept across rounds (graphs, masks, scores, ...).
        decision: The final decision: ``answer``, ``rule``, ``evidence``.
    """

    agents: list[str]
    cut_off: list[str]
    turns: Annotated[list[Turn], add_turns]
    round: int
    method_state: Annotated[dict[str, Any], merge]
    decision: Annotated[dict[str, Any] | None, replace]


class DebateState(DebateOutput):
    """Full state of a running debate.

    Attributes:
        phase: The phase of the current round that ran last; ``None`` between rounds.
        calls: The calls of the current phase (replaced every phase).
    """

    phase: int | None
    calls: Annotated[list[Call], replace]


class RoundInput(TypedDict):
    """What a round subgraph reads from the debate."""

    question: str
    task: NotRequired[TaskKind]
    choices: NotRequired[list[str] | None]
    agents: list[str]
    cut_off: list[str]
    turns: Annotated[list[Turn], add_turns]
    round: int
    phase: int | None
    method_state: Annotated[dict[str, Any], merge]


class RoundOutput(TypedDict):
    """What a round subgraph hands back to the debate."""

    turns: Annotated[list[Turn], add_turns]
    round: int
    phase: int | None
    method_state: Annotated[dict[str, Any], merge]


class RoundState(RoundInput):
    """State inside a round subgraph."""

    calls: Annotated[list[Call], replace]
