"""RECONCILE (Chen, Saha and Bansal, ACL 2024): method ``reconcile``.

Stateless rounds: every agent reads every agent's latest answer (its own included), grouped
by answer with explanations and confidences; the debate stops at consensus and ends with a
confidence-weighted vote over recalibrated confidences (decision rule ``reconcile``).
"""

from __future__ import annotations

from typing import Any

from debategraph.methods import Call, DebateView, Method, call, initial_calls
from debategraph.prompts import reconcile


def plan_reconcile(view: DebateView[Any]) -> list[Call]:
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
    description="RECONCILE: stateless rounds over grouped answers with confidence; "
    "confidence-weighted vote.",
    prompts=reconcile.PROMPTS,
    plan=plan_reconcile,
    decision="reconcile",
    confidence=True,
    default_agents=3,
    default_rounds=2,
    stop_on_consensus=True,
)
