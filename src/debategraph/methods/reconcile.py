"""RECONCILE (Chen, Saha and Bansal, ACL 2024): method ``reconcile``.

Stateless rounds: every agent reads every agent's latest answer (its own included), grouped
by answer with explanations and confidences; the debate stops at consensus and ends with a
confidence-weighted vote over recalibrated confidences (decision rule ``reconcile``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from debategraph.methods import (
    Call,
    DebateView,
    Method,
    MethodOptions,
    call,
    initial_calls,
    presets,
)
from debategraph.prompts import reconcile


@dataclass(frozen=True, kw_only=True)
class ReconcileOptions(MethodOptions):
    """Options of ``reconcile``.

    Attributes:
        answer_groups: How many answer groups a discussion round shows, most common first:
            ``"all"`` (default: every agent's answer and explanation, as the paper describes
            the discussion prompt) or a count; ``2`` reproduces the official code, which
            shows the two most common answers (with three agents it drops the third view
            only when all three differ).
    """

    answer_groups: Literal["all"] | int = "all"

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.answer_groups, int) and self.answer_groups < 1:
            raise ValueError(f"answer_groups must be 'all' or at least 1, got {self.answer_groups}")


def plan_reconcile(view: DebateView[ReconcileOptions]) -> list[Call]:
    """Everyone reads every agent's latest answer, its own included.

    A cut-off agent reads only its own latest answer and reflects on it.
    """
    if view.round == 0:
        return initial_calls(view)
    latest = view.latest_ids()
    everyone = [latest[a] for a in view.agents if a in latest]
    calls = []
    for agent in view.agents:
        if agent in view.cut_off:
            own = [latest[agent]] if agent in latest else []
            calls.append(call(view, agent, reads=own, template="reflect"))
        else:
            calls.append(call(view, agent, reads=everyone, template="debate"))
    return calls


RECONCILE = Method(
    name="reconcile",
    presets=presets.paper(presets.RECONCILE),
    description="RECONCILE: stateless rounds over grouped answers with confidence; "
    "confidence-weighted vote.",
    prompts=reconcile.PROMPTS,
    plan=plan_reconcile,
    options=ReconcileOptions,
    decision="reconcile",
    confidence=True,
    default_agents=3,
    default_rounds=2,
    stop_on_consensus=True,
    card="docs/methods/reconcile.md",
)
