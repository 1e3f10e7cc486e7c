"""The plan node: decides who speaks this round and what each speaker reads."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from debategraph.nodes.method import Method
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
from debategraph.state.records import AgentPlan


def make_plan_node(method: Method) -> Any:
    """Plan node for ``method``: everyone answers alone in round 0, then the method plans."""

    def plan(state: DebateState, runtime: Runtime[DebateContext]) -> dict[str, Any]:
        ctx = runtime.context
        next_round = state.get("round", -1) + 1
        if next_round == 0:
            initial = {a: AgentPlan(reads=[], prompt="initial") for a in ctx.agent_names}
            return {"round": 0, "plan": initial}
        return {"round": next_round, **method.plan(state, ctx, next_round)}

    return plan
