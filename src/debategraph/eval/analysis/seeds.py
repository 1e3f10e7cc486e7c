"""Accuracy over seeds: each seed's accuracy, and their mean, sample sd, min and max.

A run with ``--seeds`` writes one row per (method, item, seed), each with an integer
``seed``; a row without the field belongs to one unnamed seed (``None``), so a single-seed
run has one seed. Failed rows are left out, as in every other figure; a seed none of whose
rows was scored has no accuracy and does not count. The spread is the sample standard
deviation (``ddof=1``) of the per-seed accuracies: the seeds are a sample of the debates'
randomness, so it estimates how far another seed's accuracy may land. With one seed it is
undefined (``None``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, TypedDict

from msgspec import UNSET

from debategraph.eval.log.row import as_row, opt

if TYPE_CHECKING:
    from debategraph.eval.analysis.dynamics import Row, RowLike


class SeedAccuracy(TypedDict):
    """One seed's figure.

    Attributes:
        seed: The seed (``None`` for rows that record none).
        items: Scored rows of that seed.
        correct: How many of them are correct.
        accuracy: ``correct / items``.
    """

    seed: int | None
    items: int
    correct: int
    accuracy: float


class SeedSpread(TypedDict):
    """Accuracy over seeds, per method (``summary.json``'s ``seeds``).

    Attributes:
        n: Seeds with a scored row.
        mean: Mean of the per-seed accuracies (``None`` when ``n`` is 0).
        sd: Their sample standard deviation, ``ddof=1`` (``None`` when ``n`` < 2).
        min: The lowest per-seed accuracy (``None`` when ``n`` is 0).
        max: The highest (``None`` when ``n`` is 0).
        accuracies: Each seed's figure, in seed order (the unnamed seed first).
    """

    n: int
    mean: float | None
    sd: float | None
    min: float | None
    max: float | None
    accuracies: list[SeedAccuracy]


def row_seed(row: RowLike) -> int | None:
    """The seed a row ran under: its integer ``seed``, or ``None`` when it records none."""
    return opt(as_row(row).seed)


def seed_accuracies(rows: Iterable[RowLike]) -> list[SeedAccuracy]:
    """Each seed's accuracy over one method's rows (failed rows left out), in seed order.

    Args:
        rows: One method's rows.

    Returns:
        One entry per seed that has a scored row; the unnamed seed (``None``) first.
    """
    counts: dict[int | None, list[int]] = {}
    for row in rows:
        count_seed(counts, as_row(row))
    return accuracies_of(counts)


def count_seed(counts: dict[int | None, list[int]], row: Row) -> None:
    """Add a row to per-seed ``[scored, correct]`` counts (a failed row adds nothing)."""
    if row.error is not UNSET:
        return
    tally = counts.setdefault(opt(row.seed), [0, 0])
    tally[0] += 1
    tally[1] += bool(row.correct)


def accuracies_of(counts: Mapping[int | None, list[int]]) -> list[SeedAccuracy]:
    """Per-seed ``[scored, correct]`` counts as seed figures, in seed order (unnamed first)."""
    order = sorted(counts, key=lambda s: (s is not None, s or 0))
    return [
        SeedAccuracy(seed=s, items=counts[s][0], correct=counts[s][1],
                     accuracy=counts[s][1] / counts[s][0])
        for s in order
    ]  # fmt: skip


def seed_spread(rows: Iterable[RowLike]) -> SeedSpread:
    """Mean, sample sd (``ddof=1``), min and max of one method's per-seed accuracies.

    Args:
        rows: One method's rows.

    Returns:
        The spread (see :class:`SeedSpread`).
    """
    return spread_of(seed_accuracies(rows))


def spread_of(per_seed: list[SeedAccuracy]) -> SeedSpread:
    """Mean, sample sd (``ddof=1``), min and max of per-seed figures (:func:`seed_spread`)."""
    values = [entry["accuracy"] for entry in per_seed]
    n = len(values)
    mean = math.fsum(values) / n if n else None
    sd = None
    if mean is not None and n > 1:
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return SeedSpread(
        n=n,
        mean=mean,
        sd=sd,
        min=min(values) if values else None,
        max=max(values) if values else None,
        accuracies=per_seed,
    )
