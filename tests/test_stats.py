"""Paired statistics against hand-computed values and independent references (scipy, dev only)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as reference
from scipy.stats import multinomial

from debategraph.eval.analysis.stats import (
    exact_minimum_detectable_difference,
    holm,
    mcnemar_exact,
    mcnemar_power,
    minimum_detectable_difference,
    paired_bootstrap,
    sign_flip_test,
)


@pytest.mark.parametrize(
    ("a_only", "b_only", "expected"),
    [
        (0, 0, 1.0),  # no discordant item: nothing to test
        (3, 1, 10 / 16),  # 2 * (C(4,0) + C(4,1)) / 2^4
        (1, 5, 14 / 64),  # 2 * (1 + 6) / 2^6
        (10, 2, 158 / 4096),  # 2 * (1 + 12 + 66) / 2^12
        (0, 5, 2 / 32),  # 2 * 1 / 2^5
        (7, 7, 1.0),  # twice the tail passes 1: capped
    ],
)
def test_mcnemar_exact_on_small_tables(a_only, b_only, expected):
    assert mcnemar_exact(a_only, b_only) == expected
    assert mcnemar_exact(b_only, a_only) == expected


def test_mcnemar_exact_stays_exact_for_thousands_of_discordant_items():
    p = mcnemar_exact(2000, 2100)
    assert p == pytest.approx(reference.binomtest(2000, 4100, 0.5).pvalue, rel=1e-9)
    assert mcnemar_exact(0, 1000) == 2.0**-999  # no float underflow on the way


def test_mcnemar_refuses_negative_counts():
    with pytest.raises(ValueError, match=">= 0"):
        mcnemar_exact(-1, 2)


DIFFERENCES = [1] * 8 + [-1] * 3 + [0] * 9  # a right alone on 8 items, b on 3, tied on 9


def exact_bootstrap_quantiles(differences, q_low, q_high):
    """Quantiles of the bootstrap distribution of the mean, by enumerating every resample."""
    values, counts = np.unique(differences, return_counts=True)
    n = len(differences)
    assert list(values) == [-1, 0, 1]
    mass: dict[float, float] = {}
    for minus in range(n + 1):
        for zero in range(n + 1 - minus):
            plus = n - minus - zero
            mean = round((plus - minus) / n, 12)
            p = multinomial.pmf([minus, zero, plus], n, counts / n)
            mass[mean] = mass.get(mean, 0.0) + p
    cdf, low, high, margins = 0.0, None, None, []
    for mean in sorted(mass):
        before, cdf = cdf, cdf + mass[mean]
        if low is None and cdf >= q_low:
            low, margins = mean, [*margins, q_low - before, cdf - q_low]
        if high is None and cdf >= q_high:
            high, margins = mean, [*margins, q_high - before, cdf - q_high]
    return low, high, min(margins)


def test_bootstrap_interval_matches_the_exact_bootstrap_distribution():
    low, high, margin = exact_bootstrap_quantiles(DIFFERENCES, 0.025, 0.975)
    assert (low, high) == (-0.05, 0.55)
    # three standard errors of a 2.5% quantile from 10,000 resamples: they land on these atoms
    assert margin > 3 * math.sqrt(0.025 * 0.975 / 10_000)
    assert paired_bootstrap(DIFFERENCES, resamples=10_000, seed=0) == pytest.approx((low, high))
    assert paired_bootstrap(DIFFERENCES, resamples=10_000, seed=7) == pytest.approx((low, high))


def test_bootstrap_interval_agrees_with_scipy_resampling_items():
    rng = np.random.default_rng(3)
    differences = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=60, p=[0.1, 0.1, 0.4, 0.2, 0.2])
    ours = paired_bootstrap(differences.tolist(), resamples=20_000, seed=1)
    theirs = reference.bootstrap(
        (differences,), np.mean, n_resamples=20_000, method="percentile", random_state=2
    ).confidence_interval
    assert ours[0] == pytest.approx(theirs.low, abs=0.02)
    assert ours[1] == pytest.approx(theirs.high, abs=0.02)


def test_bootstrap_is_reproducible_from_its_seed():
    rng = np.random.default_rng(5)
    differences = rng.normal(0.1, 1.0, size=40).tolist()
    first = paired_bootstrap(differences, resamples=2000, seed=11)
    assert paired_bootstrap(differences, resamples=2000, seed=11) == first
    assert paired_bootstrap(differences, resamples=2000, seed=12) != first


def test_bootstrap_edge_cases():
    assert all(math.isnan(x) for x in paired_bootstrap([]))
    assert paired_bootstrap([0.5] * 10) == (0.5, 0.5)
    with pytest.raises(ValueError, match="resamples"):
        paired_bootstrap([1.0], resamples=0)
    with pytest.raises(ValueError, match="confidence"):
        paired_bootstrap([1.0], confidence=1.0)


def test_sign_flip_exact_by_hand():
    # signs of (1, .5, -.5): |sums| are 2, 1, 1, 0, 0, 1, 1, 2; six of eight reach |1|
    assert sign_flip_test([1.0, 0.5, -0.5, 0.0]) == (0.75, "sign-flip exact")
    assert sign_flip_test([1, 1, 1, 1]) == (2 / 16, "sign-flip exact")
    assert sign_flip_test([0, 0]) == (1.0, "sign-flip exact")


def test_sign_flip_on_right_wrong_differences_is_mcnemar():
    for a_only, b_only in [(8, 3), (5, 0), (4, 4), (1, 6)]:
        p, _ = sign_flip_test([1] * a_only + [-1] * b_only + [0] * 5)
        assert p == pytest.approx(mcnemar_exact(a_only, b_only), rel=1e-12)


def test_sign_flip_monte_carlo_approaches_the_exact_p_value():
    differences = [0.2, -0.4, 0.6, 0.8, 1.0, 0.2, -0.2, 0.4, 0.6] * 2
    exact, test = sign_flip_test(differences, exact_limit=18)
    assert test == "sign-flip exact"
    estimate, test = sign_flip_test(differences, exact_limit=5, resamples=100_000, seed=0)
    assert test == "sign-flip monte carlo"
    assert estimate == pytest.approx(exact, abs=0.002)
    again = sign_flip_test(differences, exact_limit=5, resamples=100_000, seed=0)
    assert again == (estimate, test)


def test_holm_on_known_p_values():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> 0.06 (monotone)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.6, 0.7]) == [1.0, 1.0]
    assert holm([0.02]) == [0.02]
    adjusted = holm([0.01, float("nan"), 0.04])
    assert adjusted[0] == pytest.approx(0.02) and adjusted[2] == pytest.approx(0.04)
    assert math.isnan(adjusted[1])
    assert holm([]) == []


def test_minimum_detectable_difference_against_the_normal_quantiles():
    z = reference.norm.ppf(0.975) + reference.norm.ppf(0.8)
    for n in (100, 500, 1319):
        expected = z * math.sqrt(0.2 / n)
        assert minimum_detectable_difference(n, 0.2) == pytest.approx(expected, rel=1e-9)
    assert minimum_detectable_difference(100, 0.2) == pytest.approx(0.1253, abs=1e-4)


def evaluation_doc() -> str:
    from pathlib import Path

    return (Path(__file__).parents[1] / "docs" / "evaluation.md").read_text(encoding="utf-8")


def test_the_docs_table_of_detectable_differences_is_the_exact_test():
    doc = evaluation_doc()
    for d in (0.1, 0.2, 0.3):
        cells = [f"{100 * exact_minimum_detectable_difference(n, d):.1f}" for n in (100, 500)]
        assert f"| {d} | {' | '.join(cells)} | " in doc
    # The item counts quoted: the power crosses 80% there and not one item before.
    assert "about 1,800 items" in doc and "gain about 658" in doc
    assert mcnemar_power(658, 0.2, 0.05) >= 0.8 > mcnemar_power(657, 0.2, 0.05)


@pytest.mark.slow  # the exact test at 1,319 and 1,800 items: about 3 s of CPU
def test_the_docs_figures_at_gsm8ks_size_are_the_exact_test():
    doc = evaluation_doc()
    for d in (0.1, 0.2, 0.3):
        cells = [f"{100 * exact_minimum_detectable_difference(n, d):.1f}" for n in (100, 500, 1319)]
        assert f"| {d} | {' | '.join(cells)} |" in doc
    assert mcnemar_power(1800, 0.2, 0.03) >= 0.8 > mcnemar_power(1799, 0.2, 0.03)
