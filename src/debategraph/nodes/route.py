"""The loop's router: another round, or the decision."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime

from debategraph.nodes.method import Method
from debategraph.policies.voting import unanimous
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
from debategraph.state.views import latest_by_agent


def make_router(method: Method) -> Any:
    """Route after each round: stop at the round limit, or at consensus if the method does."""

    def next_step(
        state: DebateState, runtime: Runtime[DebateContext]
    ) -> Literal["round", "decide"]:
        ctx = runtime.context
        if state["round"] >= ctx.rounds:
            return "decide"
        stop = method.stop_on_consensus if ctx.stop_on_consensus is None else ctx.stop_on_consensus
        if stop:
            latest = latest_by_agent(state["turns"])
            if unanimous([latest[a]["answer"] if a in latest else None for a in ctx.agent_names]):
                return "decide"
        return "round"

    return next_step
