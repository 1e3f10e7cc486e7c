"""Du et al.'s arithmetic task, generated from the seed (no data needed)."""

from __future__ import annotations

import random
import re

from debategraph.eval.datasets.items import Item
from debategraph.eval.datasets.source import DatasetInfo, Selection, select_ids

ARITHMETIC_DEFAULT_SIZE = 100
"""Items generated for ``arithmetic`` when no ``limit`` is given (Du et al. used 100)."""

ARITHMETIC_MAX = 1_000_000
"""Most items ``arithmetic`` generates: a larger ``limit`` is refused at once."""


def arithmetic_items(n: int, seed: int = 0) -> list[Item]:
    """Du et al.'s arithmetic task: ``a+b*c+d-e*f`` with six integers drawn from [0, 30).

    Integers are drawn in order with ``random.Random(seed).randrange(30)``, so the first
    ``k`` items of a larger set equal ``arithmetic_items(k, seed)``.

    Args:
        n: How many items.
        seed: Generator seed; it is part of every id (``"arith-<seed>-<i>"``).

    Returns:
        The items, task ``"number"``; metadata holds ``expression`` and ``operands``.

    Raises:
        ValueError: ``n`` is negative.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = random.Random(seed)
    items = []
    for i in range(n):
        a, b, c, d, e, f = (rng.randrange(30) for _ in range(6))
        expression = f"{a}+{b}*{c}+{d}-{e}*{f}"
        items.append(
            Item(
                id=f"arith-{seed}-{i}",
                question=f"What is the result of {expression}?",
                reference=str(a + b * c + d - e * f),
                task="number",
                metadata={"expression": expression, "operands": [a, b, c, d, e, f]},
            )
        )
    return items


def arithmetic_pool(limit: int | None, seed: int, wanted: list[str] | None) -> list[Item]:
    """Arithmetic items covering ``wanted`` ids (any seed), else ``limit`` items of ``seed``."""
    if wanted is None:
        return arithmetic_items(ARITHMETIC_DEFAULT_SIZE if limit is None else limit, seed)
    needed: dict[int, int] = {}
    for item_id in wanted:
        match = re.fullmatch(r"arith-(-?\d+)-(\d+)", item_id)
        if match:
            item_seed, index = int(match.group(1)), int(match.group(2))
            if index >= ARITHMETIC_MAX:
                raise ValueError(
                    f"arithmetic item {item_id!r} is beyond the {ARITHMETIC_MAX:,} items it "
                    "generates"
                )
            needed[item_seed] = max(needed.get(item_seed, 0), index + 1)
    return [item for s, n in needed.items() for item in arithmetic_items(n, s)]


def load_arithmetic(selection: Selection) -> list[Item]:
    """``limit`` (default 100) items of ``seed``, or exactly the ``ids`` (of any seed).

    Raises:
        ValueError: A ``limit`` above :data:`ARITHMETIC_MAX`.
    """
    if selection.limit is not None and selection.limit > ARITHMETIC_MAX:
        raise ValueError(
            f"arithmetic generates at most {ARITHMETIC_MAX:,} items, got limit {selection.limit:,}"
        )
    pool = arithmetic_pool(selection.limit, selection.seed, selection.ids)
    return pool if selection.ids is None else select_ids(pool, selection.ids)


ARITHMETIC = DatasetInfo(
    "Du et al.'s a+b*c+d-e*f task, generated from the seed",
    "number",
    offline=True,
    load=load_arithmetic,
    source="generated",
    license="-",
    size="100 by default (any number)",
    grader="number",
)
