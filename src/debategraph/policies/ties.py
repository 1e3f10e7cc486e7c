"""Ties between float scores: equal up to floating-point rounding."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TypeVar

K = TypeVar("K")

TIE_REL_TOL = 1e-9
"""Relative tolerance under which two scores count as tied (floating-point rounding)."""

TIE_ABS_TOL = 1e-9
"""Absolute tolerance under which two scores count as tied (floating-point rounding)."""


def best_scored(scores: Mapping[K, float]) -> list[K]:
    """The keys whose score ties the highest (up to rounding), in the order of ``scores``.

    Args:
        scores: Score per key; at least one.

    Returns:
        The tied best keys; more than one is a tie.
    """
    best = max(scores.values())
    return [
        k
        for k, s in scores.items()
        if math.isclose(s, best, rel_tol=TIE_REL_TOL, abs_tol=TIE_ABS_TOL)
    ]
