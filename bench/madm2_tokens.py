"""MAD-M²'s token formulas (paper §3.2 and App. C): naive MAD against MAD-M².

Notation: ``query`` is ``T^q``, the query's tokens; ``outputs[r][i]`` is ``T^o``, agent ``i``'s
output tokens in round ``r`` (``r = 0`` is the initial round, the paper's ``r = 1``), so
``len(outputs)`` is the paper's ``N_round`` and ``len(outputs[0])`` its ``N_a``. Instructions
and evaluation outputs are left out, as in the paper.
"""

from __future__ import annotations

from collections.abc import Sequence


def _shape(outputs: Sequence[Sequence[int]]) -> tuple[int, int]:
    if not outputs:
        raise ValueError("outputs needs at least the initial round")
    agents = len(outputs[0])
    if agents == 0 or any(len(row) != agents for row in outputs):
        raise ValueError("every round needs one output count per agent, and at least one agent")
    return len(outputs), agents


def mad_tokens(query: int, outputs: Sequence[Sequence[int]]) -> int:
    """``N_MAD``: every agent reads every memory of the previous round.

    ``N_a N_round T^q + N_a Σ_{r≥2} Σ_i T^o_{r-1,i} + Σ_r Σ_i T^o_{r,i}``.

    Raises:
        ValueError: No rounds, no agents, or rounds of different sizes.
    """
    rounds, agents = _shape(outputs)
    memories = sum(sum(outputs[r - 1]) for r in range(1, rounds))
    return agents * rounds * query + agents * memories + sum(map(sum, outputs))


def madm2_tokens(
    query: int,
    outputs: Sequence[Sequence[int]],
    kept: Sequence[Sequence[bool]] | None = None,
    *,
    evaluators: int | None = None,
) -> int:
    """``N_MAD-M²``: an evaluation step, then every agent reads the kept memories.

    With every memory kept and ``evaluators = N_a`` this is the paper's upper bound
    ``N_a N_round T^q + 2 N_a Σ_{r≥2} Σ_i T^o_{r-1,i} + Σ_r Σ_i T^o_{r,i}``.

    Args:
        query: ``T^q``.
        outputs: ``T^o`` per round and agent.
        kept: Per debate round (``len(outputs) - 1`` rows), which of the previous round's
            memories every agent reads (a shared mask); ``None`` keeps all.
        evaluators: How many evaluations read each memory: ``N_a`` in the paper's formula
            (every agent judges every memory, the default), 1 when one shared evaluation is
            made per memory, 0 for objective masking (no evaluation calls).

    Raises:
        ValueError: Shapes that do not fit.
    """
    rounds, agents = _shape(outputs)
    per_memory = agents if evaluators is None else evaluators
    if kept is not None and (len(kept) != rounds - 1 or any(len(row) != agents for row in kept)):
        raise ValueError("kept needs one row per debate round and one flag per agent")
    total = agents * rounds * query + sum(map(sum, outputs))
    for r in range(1, rounds):
        previous = outputs[r - 1]
        read = (
            previous
            if kept is None
            else [t for t, k in zip(previous, kept[r - 1], strict=True) if k]
        )
        total += per_memory * sum(previous) + agents * sum(read)
    return total
