"""The basic baselines: one answer (``cot``), votes (``sc``, ``mav``), debates (``du``, ``ring``).

``cot``, ``sc`` and ``mav`` do not debate: every agent answers once and the answers are put
to a majority vote. ``du`` is Du et al.'s society-of-mind debate (every agent keeps its own
chat history and reads all peers' latest answers each round); ``ring`` reads only the two
ring neighbours (the sparse "neighbour" debate of Li et al.).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from debategraph.methods import Method, debate_planner, full_reads, presets, ring_reads
from debategraph.policies.sampling import SamplingPreset
from debategraph.prompts import du


def _du_prompted(
    name: str,
    description: str,
    agents: int,
    *,
    debates: bool = True,
    reads: Callable[[Sequence[str], Mapping[str, str]], Mapping[str, Sequence[str]]] = full_reads,
    paper: SamplingPreset = presets.BASELINE,
    single_model: bool = False,
) -> Method:
    """A method with du's prompts: a two-round debate (with history), or one vote (no rounds)."""
    return Method(
        name=name,
        presets=presets.paper(paper),
        description=description,
        prompts=du.PROMPTS,
        plan=debate_planner(reads, history=debates),
        default_agents=agents,
        default_rounds=2 if debates else 0,
        single_model=single_model,
        debates=debates,
    )


COT = _du_prompted("cot", "Single-agent chain of thought: one agent, one answer.", 1, debates=False)
SC = _du_prompted(
    "sc",
    "Self-consistency: one model sampled k times, majority vote.",
    5,
    debates=False,
    single_model=True,
)
MAV = _du_prompted(
    "mav", "Multi-agent voting: each agent answers once, majority vote.", 3, debates=False
)
DU = _du_prompted(
    "du",
    "Du et al. debate: agents keep their history and read all peers each round.",
    3,
    paper=presets.DU,
)
RING = _du_prompted(
    "ring",
    "Neighbour debate: like du, but each agent reads only its ring neighbours.",
    6,
    reads=ring_reads,
)
