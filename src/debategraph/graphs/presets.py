"""The built-in methods, by name."""

from __future__ import annotations

from debategraph.graphs.cortex import CORTEX
from debategraph.graphs.groupdebate import GROUPDEBATE
from debategraph.graphs.madm2 import MAD, MADM2_O, MADM2_S
from debategraph.graphs.summaries import CHATEVAL, DU_SUM
from debategraph.graphs.svr import SVR
from debategraph.nodes.method import DebateView, Method, call, debate_planner, initial_calls
from debategraph.policies.topology import full_reads, ring_reads
from debategraph.prompts import du, freemad, reconcile
from debategraph.state.records import Call

COT = Method(
    name="cot",
    description="Single-agent chain of thought: one agent, one answer.",
    prompts=du.PROMPTS,
    plan=debate_planner(full_reads, history=False),
    default_agents=1,
    default_rounds=0,
)
SC = Method(
    name="sc",
    description="Self-consistency: one model sampled k times, majority vote.",
    prompts=du.PROMPTS,
    plan=debate_planner(full_reads, history=False),
    default_agents=5,
    default_rounds=0,
    single_model=True,
)
MAV = Method(
    name="mav",
    description="Multi-agent voting: each agent answers once, majority vote.",
    prompts=du.PROMPTS,
    plan=debate_planner(full_reads, history=False),
    default_agents=3,
    default_rounds=0,
)
DU = Method(
    name="du",
    description="Du et al. debate: agents keep their history and read all peers each round.",
    prompts=du.PROMPTS,
    plan=debate_planner(full_reads, history=True),
    default_agents=3,
    default_rounds=2,
)
RING = Method(
    name="ring",
    description="Neighbour debate: like du, but each agent reads only its ring neighbours.",
    prompts=du.PROMPTS,
    plan=debate_planner(ring_reads, history=True),
    default_agents=6,
    default_rounds=2,
)


def plan_reconcile(view: DebateView) -> list[Call] | None:
    """Everyone reads every agent's latest answer, its own included (RECONCILE).

    A cut-off agent reads only its own latest answer and reflects on it.
    """
    if view.phase > 0:
        return None
    if view.round == 0:
        return initial_calls(view)
    latest = view.latest_ids()
    everyone = [latest[a] for a in view.agents if a in latest]
    calls = []
    for agent in view.agents:
        if agent in view.cut_off:
            own = [latest[agent]] if agent in latest else []
            calls.append(call(view, agent, reads=own, prompt="reflect"))
        else:
            calls.append(call(view, agent, reads=everyone, prompt="debate"))
    return calls


FREEMAD_N = Method(
    name="freemad-n",
    description="Free-MAD: anti-conformity debate, then a score over the whole trajectory.",
    prompts=freemad.ANTI_CONFORMITY_PROMPTS,
    plan=debate_planner(full_reads, history=True),
    decision="freemad",
    default_agents=4,
    default_rounds=1,
)
FREEMAD_C = Method(
    name="freemad-c",
    description="Free-MAD with the plain (conformity) du debate prompt and the trajectory score.",
    prompts=freemad.CONFORMITY_PROMPTS,
    plan=debate_planner(full_reads, history=True),
    decision="freemad",
    default_agents=4,
    default_rounds=1,
)
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

METHODS: dict[str, Method] = {
    m.name: m for m in (COT, SC, MAV, DU, RING, FREEMAD_N, FREEMAD_C, RECONCILE, CORTEX, SVR)
}
"""Every built-in method by name."""
METHODS.update({m.name: m for m in (GROUPDEBATE, DU_SUM, CHATEVAL)})
METHODS.update({m.name: m for m in (MADM2_S, MADM2_O, MAD)})


def get_method(name: str) -> Method:
    """The method called ``name``.

    Raises:
        ValueError: Unknown name; the message lists the valid ones.
    """
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; choose one of: {', '.join(METHODS)}") from None
