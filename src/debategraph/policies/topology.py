"""Who reads whom: fully connected, ring, or nobody. Pure functions over agent names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def full_reads(agents: Sequence[str], latest: Mapping[str, str]) -> dict[str, list[str]]:
    """Every agent reads every other agent's latest turn (Du et al.)."""
    return {a: [latest[b] for b in agents if b != a and b in latest] for a in agents}


def ring_reads(
    agents: Sequence[str], latest: Mapping[str, str], hops: int = 1
) -> dict[str, list[str]]:
    """Agent i reads agents i-hops .. i+hops on a ring, not itself (neighbour debate)."""
    n = len(agents)
    reads: dict[str, list[str]] = {}
    for i, agent in enumerate(agents):
        neighbours: list[str] = []
        for step in range(1, hops + 1):
            for j in ((i - step) % n, (i + step) % n):
                if j != i and agents[j] not in neighbours:
                    neighbours.append(agents[j])
        reads[agent] = [latest[b] for b in neighbours if b in latest]
    return reads
