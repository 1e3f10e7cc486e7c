"""Cells of the report's tables: a number as a table shows it, or a dash where there is none."""

from __future__ import annotations

import math

MISSING = "—"
"""The cell of a value that is not there (``None``) or not a number (NaN)."""


def number_cell(value: float | None, spec: str, scale: float = 1) -> str:
    """``value * scale`` formatted with ``spec`` (``format`` syntax), or :data:`MISSING`.

    Args:
        value: The number; ``None`` or NaN when there is none.
        spec: The format spec, e.g. ``".1f"`` or ``","``.
        scale: What the value is multiplied by first (100 for a share shown in %).

    Returns:
        The cell's text.
    """
    if value is None or math.isnan(value):
        return MISSING
    return format(value * scale, spec)
