"""The built-in methods, by name."""

from __future__ import annotations

from typing import Any

from debategraph.nodes.method import Method, plan_from_reads
from debategraph.policies.topology import full_reads, ring_reads
from debategraph.prompts import du
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
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

METHODS: dict[str, Method] = {m.name: m for m in (COT, SC, MAV, DU, RING)}
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
