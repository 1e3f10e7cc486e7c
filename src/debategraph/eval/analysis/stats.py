"""Paired statistics for comparing two arms on the same items: pure math, no model call.

- :func:`paired_bootstrap`: percentile interval of a mean of per-item differences, from a
  seeded bootstrap over items.
- :func:`mcnemar_exact`: the exact two-sided McNemar test (a binomial test on the discordant
  items).
- :func:`sign_flip_test`: a paired randomisation test on per-item mean differences, for items
  scored on several seeds (exact when few items differ, seeded Monte Carlo otherwise).
- :func:`holm`: Holm's step-down correction of several p-values.

Resampling draws counts per distinct difference value (a multinomial for the bootstrap,
binomials for the sign flips) rather than item indices: the same distributions as resampling
items one by one, at a cost that does not grow with the number of items.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
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
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    n = len(differences)
    if n == 0:
        return (float("nan"), float("nan"))
    import numpy as np

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
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    import numpy as np

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

    The normal approximation of McNemar's test: with a share ``discordant`` of items on which
    the arms disagree, the difference is ``(z_{1-alpha/2} + z_{power}) * sqrt(discordant / n)``
    (Connor's formula at small differences).

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
