"""The built-in methods, by name."""

from __future__ import annotations

from typing import Any

from debategraph.graphs.cortex import CORTEX
from debategraph.nodes.method import Method, plan_from_reads
from debategraph.policies.topology import full_reads, ring_reads
from debategraph.prompts import du, freemad, reconcile
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
from debategraph.state.records import AgentPlan
from debategraph.state.views import latest_by_agent


def _latest_ids(state: DebateState) -> dict[str, str]:
    return {a: t["id"] for a, t in latest_by_agent(state["turns"]).items()}


def plan_full(state: DebateState, ctx: DebateContext, _round: int) -> dict[str, Any]:
    """Everyone reads everyone else's latest answer."""
    reads = full_reads(ctx.agent_names, _latest_ids(state))
    return {"plan": plan_from_reads(reads, set(ctx.cut_off))}


def plan_ring(state: DebateState, ctx: DebateContext, _round: int) -> dict[str, Any]:
    """Each agent reads its two ring neighbours."""
    reads = ring_reads(ctx.agent_names, _latest_ids(state))
    return {"plan": plan_from_reads(reads, set(ctx.cut_off))}


COT = Method(
    name="cot",
    description="Single-agent chain of thought: one agent, one answer.",
    prompts=du.PROMPTS,
    plan=plan_full,
    default_agents=1,
    default_rounds=0,
)
SC = Method(
    name="sc",
    description="Self-consistency: one model sampled k times, majority vote.",
    prompts=du.PROMPTS,
    plan=plan_full,
    default_agents=5,
    default_rounds=0,
    single_model=True,
)
MAV = Method(
    name="mav",
    description="Multi-agent voting: each agent answers once, majority vote.",
    prompts=du.PROMPTS,
    plan=plan_full,
    default_agents=3,
    default_rounds=0,
)
DU = Method(
    name="du",
    description="Du et al. debate: agents keep their history and read all peers each round.",
    prompts=du.PROMPTS,
    plan=plan_full,
    history=True,
    default_agents=3,
    default_rounds=2,
)
RING = Method(
    name="ring",
    description="Neighbour debate: like du, but each agent reads only its ring neighbours.",
    prompts=du.PROMPTS,
    plan=plan_ring,
    history=True,
    default_agents=6,
    default_rounds=2,
)


def plan_all_with_self(state: DebateState, ctx: DebateContext, _round: int) -> dict[str, Any]:
    """Everyone reads every agent's latest answer, its own included (RECONCILE).

    A cut-off agent reads only its own latest answer and reflects on it.
    """
    latest = _latest_ids(state)
    everyone = [latest[a] for a in ctx.agent_names if a in latest]
    plan = {}
    for agent in ctx.agent_names:
        if agent in ctx.cut_off:
            own = [latest[agent]] if agent in latest else []
            plan[agent] = AgentPlan(reads=own, prompt="reflect")
        else:
            plan[agent] = AgentPlan(reads=list(everyone), prompt="debate")
    return {"plan": plan}


FREEMAD_N = Method(
    name="freemad-n",
    description="Free-MAD: anti-conformity debate, then a score over the whole trajectory.",
    prompts=freemad.ANTI_CONFORMITY_PROMPTS,
    plan=plan_full,
    history=True,
    decision="freemad",
    default_agents=4,
    default_rounds=1,
)
FREEMAD_C = Method(
    name="freemad-c",
    description="Free-MAD with the plain (conformity) du debate prompt and the trajectory score.",
    prompts=freemad.CONFORMITY_PROMPTS,
    plan=plan_full,
    history=True,
    decision="freemad",
    default_agents=4,
    default_rounds=1,
)
RECONCILE = Method(
    name="reconcile",
    description="RECONCILE: stateless rounds over grouped answers with confidence; "
    "confidence-weighted vote.",
    prompts=reconcile.PROMPTS,
    plan=plan_all_with_self,
    decision="reconcile",
    confidence=True,
    default_agents=3,
    default_rounds=2,
    stop_on_consensus=True,
)

METHODS: dict[str, Method] = {
    m.name: m for m in (COT, SC, MAV, DU, RING, FREEMAD_N, FREEMAD_C, RECONCILE, CORTEX)
}
"""Every built-in method by name."""


def get_method(name: str) -> Method:
    """The method called ``name``.

    Raises:
        ValueError: Unknown name; the message lists the valid ones.
    """
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; choose one of: {', '.join(METHODS)}") from None
