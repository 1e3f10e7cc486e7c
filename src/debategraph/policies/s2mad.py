"""S²-MAD's decision-making mechanism (Zeng et al., NAACL 2025): pure functions.

Before a debate round, each agent's latest response is compared with the responses it would
read. Two responses are *similar* (the same viewpoint) when their similarity reaches the
threshold: answer equivalence gives 1 or 0, response embeddings give a cosine. Then

* **conditional participation**: an agent takes part in the round only if at least one of
  the responses it would read holds a viewpoint different from its own; otherwise it keeps
  its answer and makes no call;
* **redundant information filtering**: a taking-part agent reads only the responses whose
  viewpoint differs from its own and, with ``dedupe``, only the first of several responses
  that share one viewpoint;
* **consensus**: the debate ends once enough agents share one viewpoint.

Agents are indices into the similarity matrix. An abstention (no answer) is similar to
nothing, not even to another abstention: it never makes an agent sit out and is never
filtered as redundant. No LangGraph import.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from debategraph.policies.types import Answer

Matrix = list[list[float]]
"""A square similarity matrix, ``[i][j]`` the similarity of agents ``i`` and ``j``."""


def answer_similarity(answers: Sequence[Answer]) -> Matrix:
    """Answer equivalence: 1 where two agents give the same answer, else 0 (diagonal 1).

    Args:
        answers: Each agent's canonical answer (``None``: abstained).

    Returns:
        The 0/1 similarity matrix.
    """
    n = len(answers)
    return [
        [1.0 if i == j or (a is not None and a == answers[j]) else 0.0 for j in range(n)]
        for i, a in enumerate(answers)
    ]


def cosine_similarity(vectors: Sequence[Sequence[float]]) -> Matrix:
    """Cosine similarity of every pair of response embeddings (diagonal 1).

    A zero vector (a response without words, for hashing embeddings) is similar to nothing:
    its off-diagonal entries are 0.

    Args:
        vectors: One embedding per agent, all of one length.

    Returns:
        The similarity matrix.

    Raises:
        ValueError: Vectors of different lengths.
    """
    if len({len(v) for v in vectors}) > 1:
        raise ValueError("the embeddings must all have the same length")
    norms = [math.sqrt(math.fsum(x * x for x in v)) for v in vectors]
    n = len(vectors)
    sim = [[0.0] * n for _ in range(n)]
    for i in range(n):
        sim[i][i] = 1.0
        for j in range(i + 1, n):
            if norms[i] == 0 or norms[j] == 0:
                continue
            dot = math.fsum(x * y for x, y in zip(vectors[i], vectors[j], strict=True))
            sim[i][j] = sim[j][i] = dot / (norms[i] * norms[j])
    return sim


def check_threshold(threshold: float) -> float:
    """The threshold itself, checked to be a similarity in (0, 1].

    Raises:
        ValueError: A threshold outside (0, 1].
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be a similarity in (0, 1], got {threshold}")
    return threshold


def differing(i: int, peers: Sequence[int], sim: Matrix, threshold: float) -> list[int]:
    """The peers whose viewpoint differs from agent ``i``'s, in the order given."""
    return [j for j in peers if j != i and sim[i][j] < threshold]


def participates(i: int, peers: Sequence[int], sim: Matrix, threshold: float) -> bool:
    """Conditional participation: some peer agent ``i`` would read holds another viewpoint."""
    return bool(differing(i, peers, sim, threshold))


def filter_views(
    i: int, peers: Sequence[int], sim: Matrix, threshold: float, *, dedupe: bool = True
) -> list[int]:
    """Redundant information filtering: the peers agent ``i`` reads.

    Args:
        i: The reading agent.
        peers: The agents it would read without filtering, in reading order.
        sim: The similarity matrix of the latest responses.
        threshold: Similarity at or above which two responses share a viewpoint.
        dedupe: Also drop a peer similar to a peer already kept (one response per
            viewpoint); ``False`` keeps every differing peer.

    Returns:
        The kept peers, in reading order.
    """
    kept: list[int] = []
    for j in differing(i, peers, sim, threshold):
        if dedupe and any(sim[j][k] >= threshold for k in kept):
            continue
        kept.append(j)
    return kept


def redundant_group(i: int, members: Sequence[int], sim: Matrix, threshold: float) -> bool:
    """A group's summary is redundant for agent ``i``: every member shares its viewpoint."""
    return not differing(i, members, sim, threshold)


def agreement(sim: Matrix, threshold: float) -> int:
    """The most agents that share one agent's viewpoint, that agent included.

    With answer equivalence this is the size of the largest group of equal answers
    (abstentions count 1 each, for themselves).
    """
    n = len(sim)
    sizes = (sum(1 for j in range(n) if j == k or sim[k][j] >= threshold) for k in range(n))
    return max(sizes, default=0)


def reached_consensus(sim: Matrix, threshold: float, share: float) -> bool:
    """Consensus: at least ``share`` of the agents share one viewpoint (1.0: all of them).

    An abstention is similar to no one, so a debate with an abstaining agent reaches full
    consensus only when ``share`` allows leaving it out.
    """
    n = len(sim)
    return n > 0 and agreement(sim, threshold) >= math.ceil(share * n - 1e-9)
