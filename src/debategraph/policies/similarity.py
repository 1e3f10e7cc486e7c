"""Grouping free-text answers that say the same thing, with a faiss similarity index.

For ``text`` tasks two agents may give one answer in different words ("Paris", "the city of
Paris"). :func:`meaning_groups` embeds the distinct answers, finds every pair whose cosine
similarity reaches a threshold with a faiss inner-product range search over the L2-normalised
vectors, and joins linked answers into groups (connected components), so a vote counts them
as one answer. faiss computes in float32, which is fine for a threshold on answers; the
trust weights of CortexDebate stay in float64 numpy, where float32 rounding would break the
exact ties its pruning rule compares.

No LangGraph import; faiss and numpy are imported when the function is called.
"""

from __future__ import annotations

from collections.abc import Sequence


def meaning_groups(
    answers: Sequence[str], vectors: Sequence[Sequence[float]], threshold: float
) -> dict[str, str]:
    """Map each distinct answer to the representative of its group (the first one seen).

    Args:
        answers: Distinct answers, in first-seen order.
        vectors: One embedding per answer.
        threshold: Cosine similarity at or above which two answers are linked, in (0, 1].

    Returns:
        ``answer -> representative``; an answer linked to none maps to itself.

    Raises:
        ValueError: Mismatched lengths, an empty or ragged vector list, or a bad threshold.
    """
    import faiss
    import numpy as np

    if len(answers) != len(vectors):
        raise ValueError(f"{len(answers)} answers but {len(vectors)} vectors")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be a cosine similarity in (0, 1], got {threshold}")
    if not answers:
        return {}
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError("vectors must all have the same length")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    index = faiss.IndexFlatIP(matrix.shape[1])
    index.add(matrix)
    # range_search keeps scores strictly above the radius; step just below the threshold.
    radius = float(np.nextafter(np.float32(threshold), np.float32(-2)))
    limits, _, neighbours = index.range_search(matrix, radius)
    parent = list(range(len(answers)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(answers)):
        if norms[i, 0] == 0:
            continue
        for j in neighbours[limits[i] : limits[i + 1]]:
            a, b = root(i), root(int(j))
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {answer: answers[root(i)] for i, answer in enumerate(answers)}
