"""Tango's score interval of a paired difference: exact values and simulated coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar

from debategraph.eval.analysis.stats import paired_score_interval, paired_score_intervals

Z = 1.959963984540054  # the 97.5% normal quantile


def independent_limits(a_only: int, b_only: int, n: int) -> tuple[float, float]:
    """The score interval by numeric maximum likelihood and root finding (no shared code)."""
    rest = n - a_only - b_only

    def log_likelihood(share_b: float, delta: float) -> float:
        cells = ((a_only, share_b + delta), (b_only, share_b), (rest, 1 - 2 * share_b - delta))
        return sum(k * math.log(p) for k, p in cells if k)

    def statistic(delta: float) -> float:
        floor, top = max(0.0, -delta), (1 - delta) / 2  # every cell share >= 0
        best = minimize_scalar(
            lambda q: -log_likelihood(q, delta),
            bounds=(floor + 1e-14, top - 1e-14),
            method="bounded",
            options={"xatol": 1e-14},
        )
        variance = n * (2 * best.x + delta - delta**2)
        return (a_only - b_only - n * delta) / math.sqrt(variance)

    estimate = (a_only - b_only) / n
    low = brentq(lambda d: statistic(d) - Z, -1 + 1e-9, estimate, xtol=1e-12)
    high = brentq(lambda d: statistic(d) + Z, estimate, 1 - 1e-9, xtol=1e-12)
    return low, high


@pytest.mark.parametrize(
    ("a_only", "b_only", "n"), [(6, 16, 161), (4, 1, 6), (9, 2, 44), (30, 12, 100), (1, 3, 500)]
)
def test_the_interval_matches_an_independent_computation(a_only, b_only, n):
    expected = independent_limits(a_only, b_only, n)
    assert paired_score_interval(a_only, b_only, n) == pytest.approx(expected, abs=1e-6)


def test_the_consolidation_therapy_example():
    # Cavo et al. (2012): 59 both, 6 before only, 16 after only, 80 neither (n = 161).
    low, high = paired_score_interval(6, 16, 161)
    assert (round(low, 4), round(high, 4)) == (-0.1240, -0.0054)


def test_no_discordant_item_still_gives_a_positive_width():
    # With no discordant item the score equation solves to delta = ±z² / (n + z²).
    for n in (1, 20, 50, 1319):
        low, high = paired_score_interval(0, 0, n)
        assert high == pytest.approx(Z**2 / (n + Z**2), rel=1e-9)
        assert low == pytest.approx(-high, rel=1e-9)


def test_every_item_discordant_one_way():
    # a_only = n: the statistic is sqrt(n (1 - delta) / (1 + delta)), so low = (n - z²) / (n + z²).
    for n in (1, 3, 40):
        low, high = paired_score_interval(n, 0, n)
        assert low == pytest.approx((n - Z**2) / (n + Z**2), rel=1e-9)
        assert high == 1.0


def test_without_items_or_with_bad_counts():
    assert all(math.isnan(x) for x in paired_score_interval(0, 0, 0))
    with pytest.raises(ValueError, match="a_only \\+ b_only <= n"):
        paired_score_interval(3, 2, 4)
    with pytest.raises(ValueError, match="counts must be >= 0"):
        paired_score_interval(-1, 0, 4)
    with pytest.raises(ValueError, match="confidence"):
        paired_score_interval(1, 0, 4, confidence=1.0)


SIMULATED = 10_000  # Monte-Carlo standard error at 95% coverage: 0.22 points


@pytest.mark.parametrize("n", [20, 50, 100, 500])
def test_coverage_is_near_nominal_at_small_n_and_rare_disagreement(n):
    rng = np.random.default_rng(n)
    coverage: dict[tuple[float, float], float] = {}
    for discordant in (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3):
        for towards_a in (0.5, 0.75, 0.9, 1.0):
            a_share = discordant * towards_a
            b_share = discordant - a_share
            counts = rng.multinomial(n, [a_share, b_share, 1 - discordant], size=SIMULATED)
            # Each distinct table once: draws repeat the same few tables at these sizes.
            tables, seen = np.unique(counts[:, :2], axis=0, return_inverse=True)
            low, high = (ends[seen.ravel()] for ends in paired_score_intervals(*tables.T, n))
            truth = a_share - b_share
            covered = (low <= truth + 1e-12) & (truth - 1e-12 <= high)
            coverage[(discordant, towards_a)] = float(np.mean(covered))
    worst = min(coverage, key=coverage.__getitem__)
    assert coverage[worst] >= 0.92, (worst, coverage[worst])
    assert coverage[(0.0, 0.5)] == 1.0
