"""Paired statistics for comparing two arms on the same items: pure math, no model call.

- :func:`paired_score_interval`: Tango's score interval of the difference of two paired
  proportions (each item right or wrong under both arms).
- :func:`paired_bootstrap`: percentile interval of a mean of per-item differences, from a
  seeded bootstrap over items (used where items are scored on several seeds).
- :func:`mcnemar_exact`: the exact two-sided McNemar test (a binomial test on the discordant
  items).
- :func:`sign_flip_test`: a paired randomisation test on per-item mean differences, for items
  scored on several seeds (exact when few items differ, seeded Monte Carlo otherwise).
- :func:`holm`: Holm's step-down correction of several p-values.
- :func:`mcnemar_power` and :func:`exact_minimum_detectable_difference`: the power of the
  exact McNemar test the report runs, and the smallest difference it finds with given power.

Resampling draws counts per distinct difference value (a multinomial for the bootstrap,
binomials for the sign flips) rather than item indices: the same distributions as resampling
items one by one, at a cost that does not grow with the number of items.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads when a statistic is computed, not with the report
    import numpy as np
    import numpy.typing as npt

DEFAULT_RESAMPLES = 10_000
"""Bootstrap resamples (and Monte Carlo sign flips) unless told otherwise."""

EXACT_FLIP_LIMIT = 16
"""Up to this many non-zero differences, :func:`sign_flip_test` enumerates every sign."""

if TYPE_CHECKING:
    _FloatArray = npt.NDArray[np.float64]

_SCORE_STEPS = 64
"""Bisection steps of :func:`paired_score_intervals` (each halves a bracket of width <= 2)."""


def _tango_statistic(
    a_only: _FloatArray, b_only: _FloatArray, n: _FloatArray, delta: _FloatArray
) -> _FloatArray:
    """Tango's score statistic at ``delta``: its variance uses the cells' constrained MLE."""
    import numpy as np

    quad_a = 2 * n
    quad_b = -a_only - b_only + (2 * n - a_only + b_only) * delta
    quad_c = -b_only * delta * (1 - delta)
    b_only_share = (-quad_b + np.sqrt(np.maximum(quad_b**2 - 4 * quad_a * quad_c, 0.0))) / (
        2 * quad_a
    )
    variance = np.maximum(n * (2 * b_only_share + delta * (1 - delta)), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray((a_only - b_only - n * delta) / np.sqrt(variance), dtype=np.float64)


def paired_score_intervals(
    a_only: npt.ArrayLike,
    b_only: npt.ArrayLike,
    n: npt.ArrayLike,
    *,
    confidence: float = 0.95,
) -> tuple[_FloatArray, _FloatArray]:
    """:func:`paired_score_interval` of many tables at once (counts as arrays that broadcast).

    Returns:
        ``(low, high)`` arrays; NaN where a table has no item.

    Raises:
        ValueError: ``confidence`` outside (0, 1).
    """
    import numpy as np

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    from statistics import NormalDist

    z = NormalDist().inv_cdf((1 + confidence) / 2)
    s, t, m = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (a_only, b_only, n)))
    items = np.where(m > 0, m, 1.0)
    estimate = (s - t) / items

    def root(low: _FloatArray, high: _FloatArray, target: float) -> _FloatArray:
        for _ in range(_SCORE_STEPS):
            middle = (low + high) / 2
            above = _tango_statistic(s, t, items, middle) > target
            low, high = np.where(above, middle, low), np.where(above, high, middle)
        return np.asarray((low + high) / 2, dtype=np.float64)

    lower = root(np.full_like(estimate, -1.0), estimate, z)
    upper = root(estimate, np.full_like(estimate, 1.0), -z)
    empty = m <= 0
    return np.where(empty, np.nan, lower), np.where(empty, np.nan, upper)


def paired_score_interval(
    a_only: int, b_only: int, n: int, *, confidence: float = 0.95
) -> tuple[float, float]:
    """Tango's score interval of ``accuracy_a - accuracy_b`` on ``n`` paired items.

    Tango (1998, *Statistics in Medicine* 17:891): the differences ``delta`` that a score test
    does not reject, the test's variance taken at the cells' maximum-likelihood estimate under
    ``delta``. At ``delta = 0`` the statistic is McNemar's, ``(a_only - b_only) /
    sqrt(a_only + b_only)``. No resampling; the width stays positive when no item is
    discordant (then the interval is ``±z² / (n + z²)``), and the coverage stays near nominal
    at small ``n`` and rare or one-sided disagreement. The limits are found by bisection
    (about 1e-16 from the exact roots).

    Args:
        a_only: Items only the first arm got right.
        b_only: Items only the second arm got right.
        n: Paired items in all (concordant ones included).
        confidence: Coverage of the interval, in (0, 1).

    Returns:
        ``(low, high)``; ``(nan, nan)`` without items.

    Raises:
        ValueError: A negative count, ``a_only + b_only`` above ``n``, or ``confidence``
            outside (0, 1).
    """
    if min(a_only, b_only) < 0 or a_only + b_only > n:
        raise ValueError(
            f"counts must be >= 0 with a_only + b_only <= n, got {a_only}, {b_only} and {n}"
        )
    low, high = paired_score_intervals(a_only, b_only, n, confidence=confidence)
    return (float(low), float(high))


def _distinct(values: Sequence[float]) -> tuple[_FloatArray, npt.NDArray[np.int64]]:
    import numpy as np

    unique, counts = np.unique(np.asarray(values, dtype=np.float64), return_counts=True)
    return unique, counts.astype(np.int64)


def paired_bootstrap(
    differences: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of per-item differences.

    Each resample draws as many items as there are, with replacement, and takes the mean of
    their differences; the interval is the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
    quantiles of those means (linear interpolation). The same seed gives the same interval.

    Args:
        differences: One difference per item (for a pair of arms scored right/wrong on one
            seed: 1, 0 or -1; on several seeds, the item's mean over its seeds).
        resamples: How many resamples, at least 1.
        seed: Seed of the random generator.
        confidence: Coverage of the interval, in (0, 1).

    Returns:
        ``(low, high)``; ``(nan, nan)`` without items.

    Raises:
        ValueError: ``resamples`` below 1 or ``confidence`` outside (0, 1).
    """
    import numpy as np

    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    n = len(differences)
    if n == 0:
        return (float("nan"), float("nan"))

    values, counts = _distinct(differences)
    rng = np.random.default_rng(seed)
    drawn = rng.multinomial(n, counts / n, size=resamples)
    means = drawn @ values / n
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return (float(low), float(high))


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Exact two-sided McNemar p-value from the discordant counts.

    Under the null each discordant item is as likely to favour either arm, so ``a_only`` is
    Binomial(``a_only + b_only``, 1/2); the p-value is twice the smaller tail, at most 1.
    Computed with exact integers, so it stays right for thousands of discordant items.

    Args:
        a_only: Items the first arm got right and the second wrong.
        b_only: Items the first arm got wrong and the second right.

    Returns:
        The p-value; 1.0 when no item is discordant.

    Raises:
        ValueError: A negative count.
    """
    if a_only < 0 or b_only < 0:
        raise ValueError(f"discordant counts must be >= 0, got {a_only} and {b_only}")
    n, k = a_only + b_only, min(a_only, b_only)
    term = tail = 1  # C(n, 0), then C(n, j) step by step
    for j in range(k):
        term = term * (n - j) // (j + 1)
        tail += term
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def sign_flip_test(
    differences: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    exact_limit: int = EXACT_FLIP_LIMIT,
) -> tuple[float, str]:
    """Two-sided paired randomisation test that the per-item differences centre on zero.

    Under the null, each item's difference is as likely to have either sign; the statistic is
    ``|sum of differences|``. With at most ``exact_limit`` non-zero differences every sign
    pattern is enumerated (an exact p-value); otherwise ``resamples`` random patterns are
    drawn, and the p-value is ``(1 + hits) / (1 + resamples)``.

    Args:
        differences: One difference per item (e.g. its mean over seeds).
        resamples: Monte Carlo patterns when the test is not exact.
        seed: Seed of the random generator (Monte Carlo only).
        exact_limit: The most non-zero differences enumerated exactly.

    Returns:
        ``(p_value, test)`` with ``test`` ``"sign-flip exact"`` or
        ``"sign-flip monte carlo"``; ``(1.0, "sign-flip exact")`` when every difference is 0.

    Raises:
        ValueError: ``resamples`` below 1.
    """
    import numpy as np

    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")

    nonzero = np.asarray([d for d in differences if d != 0], dtype=np.float64)
    observed = abs(float(nonzero.sum()))
    tolerance = 1e-9 * max(1.0, float(np.abs(nonzero).sum()))
    if len(nonzero) <= exact_limit:
        m = len(nonzero)
        patterns = ((np.arange(2**m)[:, None] >> np.arange(m)) & 1) * 2 - 1
        sums = np.abs(patterns @ nonzero)
        return (float(np.mean(sums >= observed - tolerance)), "sign-flip exact")
    values, counts = _distinct(nonzero.tolist())
    rng = np.random.default_rng(seed)
    positive = rng.binomial(counts, 0.5, size=(resamples, len(counts)))
    sums = np.abs((2 * positive - counts) @ values)
    hits = int(np.count_nonzero(sums >= observed - tolerance))
    return ((1 + hits) / (1 + resamples), "sign-flip monte carlo")


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    The i-th smallest of m p-values is multiplied by ``m - i + 1`` (i from 1), made no smaller
    than the adjusted values before it, and capped at 1. NaN p-values are kept as NaN and do
    not count in m.

    Args:
        p_values: The p-values of a family of tests.

    Returns:
        The adjusted p-values.
    """
    order = sorted((p, i) for i, p in enumerate(p_values) if p == p)
    m = len(order)
    adjusted = [float("nan")] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def minimum_detectable_difference(
    n: int, discordant: float, *, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Smallest accuracy difference a paired test on ``n`` items detects with given power.

    A quick estimate, 2-4% below :func:`exact_minimum_detectable_difference` (what the exact
    test the report runs needs). The normal approximation of McNemar's test: with a share
    ``discordant`` of items on which the arms disagree, the difference is
    ``(z_{1-alpha/2} + z_{power}) * sqrt(discordant / n)`` (Connor's formula at small
    differences).

    Args:
        n: Items.
        discordant: Expected share of discordant items, in (0, 1].
        alpha: Two-sided significance level.
        power: Wanted power.

    Returns:
        The difference, as a fraction.
    """
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power)
    return float(z * (discordant / n) ** 0.5)


def _log_factorials(n: int) -> _FloatArray:
    import numpy as np

    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))])


@lru_cache(maxsize=8)
def _mcnemar_grid(n: int, alpha: float) -> tuple[_FloatArray, npt.NDArray[np.bool_]]:
    """The log of C(D, k) for k, D = 0..n (``-inf`` where k > D), and where McNemar rejects."""
    import numpy as np

    log_fact = _log_factorials(n)
    k, count = np.arange(n + 1)[:, None], np.arange(n + 1)[None, :]
    inside = k <= count
    gap = np.where(inside, count - k, 0)
    log_choose = np.where(inside, log_fact[count] - log_fact[k] - log_fact[gap], -np.inf)
    null_tail = np.cumsum(np.exp(log_choose - count * np.log(2.0)), axis=0)
    cut = np.count_nonzero(inside & (2 * null_tail < alpha), axis=0) - 1  # per D; -1: none
    rejected = inside & (cut >= 0) & ((k <= cut) | (k >= count - cut))
    return log_choose, rejected


def _xlogy(count: npt.NDArray[np.int64], share: float) -> _FloatArray:
    """``count * log(share)``, 0 where ``count`` is 0 (also when ``share`` is 0)."""
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(count > 0, count * np.log(share), 0.0), dtype=np.float64)


def mcnemar_power(n: int, discordant: float, difference: float, *, alpha: float = 0.05) -> float:
    """Probability that :func:`mcnemar_exact` gives p below ``alpha`` on ``n`` paired items.

    Exact, no approximation: each item is discordant with probability ``discordant``; a
    discordant item favours the first arm with probability ``(discordant + difference) /
    (2 * discordant)``. The power sums, over every count D of discordant items and every
    split of them, the probability of the splits whose exact p-value is below ``alpha``.

    Args:
        n: Items, at least 1.
        discordant: Share of items on which the arms disagree, in (0, 1].
        difference: Accuracy difference (first minus second), in [-discordant, discordant].
        alpha: Two-sided significance level.

    Returns:
        The power (at ``difference = 0``, the test's size, at most ``alpha``).

    Raises:
        ValueError: A value outside the ranges above.
    """
    import numpy as np

    if n < 1 or not 0 < discordant <= 1 or not abs(difference) <= discordant:
        raise ValueError(
            f"need n >= 1, discordant in (0, 1] and |difference| <= discordant, got n={n}, "
            f"discordant={discordant}, difference={difference}"
        )
    log_choose, rejected = _mcnemar_grid(n, alpha)
    towards_first = (discordant + difference) / (2 * discordant)
    k, count = np.arange(n + 1)[:, None], np.arange(n + 1)[None, :]
    gap = np.where(k <= count, count - k, 0)
    log_split = log_choose + _xlogy(k + 0 * count, towards_first) + _xlogy(gap, 1 - towards_first)
    counts = np.arange(n + 1)
    log_weight = (
        _log_factorials(n)[n]
        - _log_factorials(n)[counts]
        - _log_factorials(n)[n - counts]
        + _xlogy(counts, discordant)
        + _xlogy(n - counts, 1 - discordant)
    )
    found = np.where(rejected, np.exp(log_split + log_weight[None, :]), 0.0)
    return float(min(found.sum(), 1.0))


def exact_minimum_detectable_difference(
    n: int, discordant: float, *, alpha: float = 0.05, power: float = 0.8
) -> float:
    """Smallest difference the exact McNemar test finds with ``power`` on ``n`` items.

    Bisection on :func:`mcnemar_power`, which grows with the difference, to 1e-6.

    Args:
        n: Items.
        discordant: Expected share of discordant items, in (0, 1].
        alpha: Two-sided significance level.
        power: Wanted power.

    Returns:
        The difference, as a fraction; NaN when even ``difference = discordant`` falls short.
    """
    if mcnemar_power(n, discordant, discordant, alpha=alpha) < power:
        return float("nan")
    low, high = 0.0, discordant
    while high - low > 1e-6:
        middle = (low + high) / 2
        if mcnemar_power(n, discordant, middle, alpha=alpha) >= power:
            high = middle
        else:
            low = middle
    return high
