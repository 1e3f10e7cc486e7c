"""The basic baselines: one answer (``cot``), votes (``sc``, ``mav``), debates (``du``, ``ring``).

``cot``, ``sc`` and ``mav`` do not debate: every agent answers once and the answers are put
to a majority vote. ``du`` is Du et al.'s society-of-mind debate (every agent keeps its own
chat history and reads all peers' latest answers each round); ``ring`` reads only the two
ring neighbours (the sparse "neighbour" debate of Li et al.).
"""

from __future__ import annotations

from debategraph.methods import Method, debate_planner, full_reads, presets, ring_reads
from debategraph.prompts import du

COT = Method(
    name="cot",
    presets=presets.paper(presets.BASELINE),
    description="Single-agent chain of thought: one agent, one answer.",
    prompts=du.PROMPTS,
    plan=debate_planner(full_reads, history=False),
    default_agents=1,
    default_rounds=0,
    debates=False,
)
SC = Method(
    name="sc",
    presets=presets.paper(presets.BASELINE),
    description="Self-consistency: one model sampled k times, majority vote.",
    prompts=du.PROMPTS,
    plan=debate_planner(full_reads, history=False),
    default_agents=5,
    default_rounds=0,
    single_model=True,
    debates=False,
)
MAV = Method(
    name="mav",
    presets=presets.paper(presets.BASELINE),
    description="Multi-agent voting: each agent answers once, majority vote.",
    prompts=du.PROMPTS,
    plan=debate_planner(full_reads, history=False),
    default_agents=3,
    default_rounds=0,
    debates=False,
)
DU = Method(
    name="du",
    presets=presets.paper(presets.DU),
    description="Du et al. debate: agents keep their history and read all peers each round.",
    prompts=du.PROMPTS,
    plan=debate_planner(full_reads, history=True),
    default_agents=3,
    default_rounds=2,
)
RING = Method(
    name="ring",
    presets=presets.paper(presets.BASELINE),
    description="Neighbour debate: like du, but each agent reads only its ring neighbours.",
    prompts=du.PROMPTS,
    plan=debate_planner(ring_reads, history=True),
    default_agents=6,
    default_rounds=2,
)
