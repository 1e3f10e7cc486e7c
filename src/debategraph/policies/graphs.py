"""Weighted debate graphs as networkx digraphs (pure; no LangGraph)."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike


def weighted_digraph(
    weights: ArrayLike, agents: Sequence[str], keep: ArrayLike | None = None
) -> nx.DiGraph:
    """A directed graph over ``agents`` with every edge ``i -> j`` (``i != j``) and its weight.

    Edge ``i -> j`` means tail ``j`` reads head ``i`` (``W[head, tail]``, as in
    ``debategraph.policies.mdm``).

    Args:
        weights: ``(n, n)`` matrix ``W[head, tail]``; the diagonal is ignored.
        agents: Node names, in matrix order.
        keep: Optional boolean ``(n, n)`` adjacency from ``mdm.prune``; without it every
            edge is marked kept.

    Returns:
        A ``DiGraph`` whose edges carry ``weight`` (float, may be ``inf``) and ``kept`` (bool).
    """
    w = np.asarray(weights, dtype=np.float64)
    n = len(agents)
    if w.shape != (n, n):
        raise ValueError(f"weights must be ({n}, {n}) for {n} agents, got shape {w.shape}")
    kept = np.ones((n, n), dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    if kept.shape != (n, n):
        raise ValueError(f"keep must be ({n}, {n}), got shape {kept.shape}")
    graph = nx.DiGraph()
    graph.add_nodes_from(agents)
    for i, head in enumerate(agents):
        for j, tail in enumerate(agents):
            if i != j:
                graph.add_edge(head, tail, weight=float(w[i, j]), kept=bool(kept[i, j]))
    return graph
