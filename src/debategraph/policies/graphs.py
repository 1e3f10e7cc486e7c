"""Weighted debate graphs as networkx digraphs (pure; no LangGraph).

numpy and networkx are imported by the functions that use them: a debate records its edge
lists without networkx, and only a caller asking for digraphs loads it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx
    from numpy.typing import ArrayLike

INF = "inf"
"""How an infinite weight is written in a JSON edge list (JSON has no infinity)."""


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
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(agents)
    for head, tail, weight, kept in _edges(weights, agents, keep):
        graph.add_edge(head, tail, weight=weight, kept=kept)
    return graph


def _edges(
    weights: ArrayLike, agents: Sequence[str], keep: ArrayLike | None
) -> list[tuple[str, str, float, bool]]:
    """Every edge ``i -> j`` (``i != j``) as ``(head, tail, weight, kept)``, head by head."""
    import numpy as np

    w = np.asarray(weights, dtype=np.float64)
    n = len(agents)
    if w.shape != (n, n):
        raise ValueError(f"weights must be ({n}, {n}) for {n} agents, got shape {w.shape}")
    kept = np.ones((n, n), dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    if kept.shape != (n, n):
        raise ValueError(f"keep must be ({n}, {n}), got shape {kept.shape}")
    return [
        (head, tail, float(w[i, j]), bool(kept[i, j]))
        for i, head in enumerate(agents)
        for j, tail in enumerate(agents)
        if i != j
    ]


def edge_list(
    weights: ArrayLike, agents: Sequence[str], keep: ArrayLike | None = None
) -> list[dict[str, Any]]:
    """The edges of ``weighted_digraph`` as JSON-safe dicts, in head-then-tail order.

    Args:
        weights: ``(n, n)`` matrix ``W[head, tail]``.
        agents: Node names, in matrix order.
        keep: Optional boolean adjacency from ``mdm.prune``.

    Returns:
        ``{"head", "tail", "weight", "kept"}`` per edge; an infinite weight is the string
        ``"inf"`` (``INF``).
    """
    return [
        {"head": head, "tail": tail, "weight": INF if math.isinf(weight) else weight, "kept": kept}
        for head, tail, weight, kept in _edges(weights, agents, keep)
    ]


def digraph_from_edges(agents: Sequence[str], edges: Sequence[Mapping[str, Any]]) -> nx.DiGraph:
    """The ``DiGraph`` of an ``edge_list`` (``"inf"`` read back as ``float("inf")``).

    Args:
        agents: Node names.
        edges: Dicts with ``head``, ``tail``, ``weight`` and ``kept``; any other keys (e.g.
            SVR-MAD's ``outcome``) become edge attributes as they are.

    Returns:
        A ``DiGraph`` whose edges carry ``weight`` (float), ``kept`` (bool) and the extra keys.
    """
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(agents)
    for e in edges:
        weight = math.inf if e["weight"] == INF else float(e["weight"])
        extra = {k: v for k, v in e.items() if k not in ("head", "tail", "weight", "kept")}
        graph.add_edge(e["head"], e["tail"], **extra, weight=weight, kept=bool(e["kept"]))
    return graph


def read_graphs(turns: Sequence[Mapping[str, Any]], agents: Sequence[str]) -> list[nx.DiGraph]:
    """Per debate round, who read whom: an edge ``head -> tail`` per turn a call read.

    Nodes are the agents plus any other speaker read (a summariser). Edges carry ``turns``
    (the ids read along that edge), ``kinds`` (the kinds of the reading calls), ``weight``
    (how many turns were read along it) and ``kept`` (always true: the read happened).
    ``graph.graph`` holds ``round`` and ``weighted=False``.

    Args:
        turns: Turn records (mappings with ``id``, ``agent``, ``round``, ``kind``, ``read``).
        agents: The agents, in agent order.

    Returns:
        One digraph per round from 1 to the last round.
    """
    import networkx as nx

    speaker = {t["id"]: t["agent"] for t in turns}
    last = max((t["round"] for t in turns), default=0)
    graphs = []
    for r in range(1, last + 1):
        graph = nx.DiGraph(round=r, weighted=False)
        graph.add_nodes_from(agents)
        for t in turns:
            if t["round"] != r:
                continue
            for read in t["reads"]:
                head = speaker.get(read)
                if head is None or head == t["agent"]:
                    continue
                if graph.has_edge(head, t["agent"]):
                    data = graph.edges[head, t["agent"]]
                    data["turns"].append(read)
                    data["weight"] = float(len(data["turns"]))
                    if t["kind"] not in data["kinds"]:
                        data["kinds"].append(t["kind"])
                else:
                    graph.add_edge(
                        head, t["agent"], turns=[read], kinds=[t["kind"]], weight=1.0, kept=True
                    )
        graphs.append(graph)
    return graphs
