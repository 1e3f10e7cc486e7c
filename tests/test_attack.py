"""Choice of the agents cut off by the communication attack."""

from __future__ import annotations

import math
import random

import pytest

from debategraph.policies.attack import choose_cut_off, cut_off_count

AGENTS = ["alice", "bob", "carol", "dave"]


@pytest.mark.parametrize(
    ("n", "ratio", "expected"),
    [
        (4, None, 1),  # default: one agent
        (1, None, 1),
        (0, None, 0),
        (4, 0.0, 0),
        (4, 1.0, 4),
        (4, 0.5, 2),  # 2.0
        (4, 0.3, 1),  # 1.2 -> 1
        (4, 0.4, 2),  # 1.6 -> 2
        (3, 0.5, 2),  # 1.5 -> 2 (half to even)
        (5, 0.5, 2),  # 2.5 -> 2 (half to even)
        (4, 0.125, 0),  # 0.5 -> 0 (half to even)
        (3, 0.25, 1),  # 0.75 -> 1
        (3, 1 / 3, 1),  # 1.0
    ],
)
def test_cut_off_count(n: int, ratio: float | None, expected: int) -> None:
    assert cut_off_count(n, ratio) == expected


def test_default_cuts_one_agent_seeded() -> None:
    # The documented contract: sorted(random.Random(seed).sample(range(N), k)).
    for seed in range(10):
        chosen = choose_cut_off(AGENTS, None, seed)
        index = random.Random(seed).sample(range(4), 1)[0]
        assert chosen == [AGENTS[index]]


def test_ratio_picks_round_ratio_n_in_agent_order() -> None:
    for seed in range(10):
        chosen = choose_cut_off(AGENTS, 0.5, seed)
        indices = sorted(random.Random(seed).sample(range(4), 2))
        assert chosen == [AGENTS[i] for i in indices]
        assert len(chosen) == 2
        assert chosen == [a for a in AGENTS if a in chosen]  # agent order


def test_deterministic_and_seed_dependent() -> None:
    assert choose_cut_off(AGENTS, 0.5, 7) == choose_cut_off(AGENTS, 0.5, 7)
    outcomes = {tuple(choose_cut_off(AGENTS, 0.5, seed)) for seed in range(20)}
    assert len(outcomes) > 1


def test_extremes() -> None:
    assert choose_cut_off(AGENTS, 0.0, 3) == []
    assert choose_cut_off(AGENTS, 1.0, 3) == AGENTS
    assert choose_cut_off([], None, 0) == []
    assert choose_cut_off(("solo",), None, 0) == ["solo"]


@pytest.mark.parametrize("ratio", [-0.1, 1.01, math.nan, math.inf, True, "0.5"])
def test_invalid_ratio(ratio: object) -> None:
    with pytest.raises(ValueError, match="ratio"):
        choose_cut_off(AGENTS, ratio, 0)  # type: ignore[arg-type]


def test_invalid_agents() -> None:
    with pytest.raises(ValueError, match="unique"):
        choose_cut_off(["a", "a", "b"], None, 0)
    with pytest.raises(ValueError, match="string"):
        choose_cut_off("abc", None, 0)
