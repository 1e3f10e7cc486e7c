"""The basic baselines: one answer (``cot``), votes (``sc``, ``mav``), debates (``du``, ``ring``).

``cot``, ``sc`` and ``mav`` do not debate: every agent answers once and the answers are put
to a majority vote. ``du`` is Du et al.'s society-of-mind debate (every agent keeps its own
chat history and reads all peers' latest answers each round); ``ring`` reads only the two
ring neighbours (the sparse "neighbour" debate of Li et al.).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from debategraph.methods import Method, debate_planner, full_reads, presets, ring_reads
from debategraph.policies.sampling import SamplingPreset
from debategraph.prompts import du


def _du_prompted(
    name: str,
    description: str,
    *,
    reads: Callable[[Sequence[str], Mapping[str, str]], Mapping[str, Sequence[str]]],
    history: bool,
    agents: int,
    rounds: int,
    paper: SamplingPreset = presets.BASELINE,
    **fields: Any,
) -> Method:
    """A method with du's prompts and the plain debate planner; ``fields`` go to Method."""
    return Method(
        name=name,
        presets=presets.paper(paper),
        description=description,
        prompts=du.PROMPTS,
        plan=debate_planner(reads, history=history),
        default_agents=agents,
        default_rounds=rounds,
        **fields,
    )


COT = _du_prompted(
    "cot",
    "Single-agent chain of thought: one agent, one answer.",
    reads=full_reads,
    history=False,
    agents=1,
    rounds=0,
    debates=False,
)
SC = _du_prompted(
    "sc",
    "Self-consistency: one model sampled k times, majority vote.",
    reads=full_reads,
    history=False,
    agents=5,
    rounds=0,
    single_model=True,
    debates=False,
)
MAV = _du_prompted(
    "mav",
    "Multi-agent voting: each agent answers once, majority vote.",
    reads=full_reads,
    history=False,
    agents=3,
    rounds=0,
    debates=False,
)
DU = _du_prompted(
    "du",
    "Du et al. debate: agents keep their history and read all peers each round.",
    reads=full_reads,
    history=True,
    agents=3,
    rounds=2,
    paper=presets.DU,
)
RING = _du_prompted(
    "ring",
    "Neighbour debate: like du, but each agent reads only its ring neighbours.",
    reads=ring_reads,
    history=True,
    agents=6,
    rounds=2,
)
