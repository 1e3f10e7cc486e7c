"""Exact power of the report's McNemar test, against a brute force over every 2x2 outcome."""

from __future__ import annotations

import pytest
from scipy.stats import multinomial

from debategraph.eval.analysis.stats import (
    exact_minimum_detectable_difference,
    mcnemar_exact,
    mcnemar_power,
    minimum_detectable_difference,
)


def brute_force_power(n: int, discordant: float, difference: float) -> float:
    """Sum the multinomial probability of every (a_only, b_only, rest) the test rejects."""
    shares = [(discordant + difference) / 2, (discordant - difference) / 2, 1 - discordant]
    total = 0.0
    for a_only in range(n + 1):
        for b_only in range(n + 1 - a_only):
            if mcnemar_exact(a_only, b_only) < 0.05:
                total += multinomial.pmf([a_only, b_only, n - a_only - b_only], n, shares)
    return float(total)


@pytest.mark.parametrize(
    ("n", "discordant", "difference"),
    [(12, 0.5, 0.3), (30, 0.2, 0.1), (30, 0.3, -0.2), (40, 0.1, 0.0), (25, 1.0, 0.6)],
)
def test_power_matches_a_brute_force_sum(n, discordant, difference):
    assert mcnemar_power(n, discordant, difference) == pytest.approx(
        brute_force_power(n, discordant, difference), abs=1e-12
    )


def test_hand_computed_edges():
    # Ten discordant items all one way: p = 2 / 2^10 < 0.05, so the test always rejects.
    assert mcnemar_power(10, 1.0, 1.0) == 1.0
    # Five items: even five of five one way gives p = 2 / 32 > 0.05, so it never rejects.
    assert mcnemar_power(5, 1.0, 1.0) == 0.0
    # Under no difference the exact test rejects less often than its level.
    assert 0 < mcnemar_power(100, 0.2, 0.0) < 0.05


def test_the_exact_figure_is_above_the_normal_estimate_where_items_are_many():
    for n in (500, 1319):
        exact = exact_minimum_detectable_difference(n, 0.2)
        assert mcnemar_power(n, 0.2, exact) >= 0.8 > mcnemar_power(n, 0.2, exact - 2e-6)
        assert 1.01 < exact / minimum_detectable_difference(n, 0.2) < 1.05


def test_bad_values_are_refused():
    with pytest.raises(ValueError, match=r"\|difference\| <= discordant"):
        mcnemar_power(10, 0.1, 0.2)
    with pytest.raises(ValueError, match="n >= 1"):
        mcnemar_power(0, 0.1, 0.0)
