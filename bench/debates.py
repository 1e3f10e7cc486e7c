"""What the method benchmarks share: many debates at once, one per item, under one bound."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import debategraph as dg


async def debate_all(
    items: Sequence[Any], settings: dict[str, Any], *, concurrency: int
) -> list[dg.DebateResult]:
    """One debate per item (``item.question``, ``item.reference``), ``concurrency`` at a time.

    Args:
        items: Dataset items.
        settings: Keyword settings of ``debategraph.arun`` shared by every debate.
        concurrency: Most debates in flight at once.

    Returns:
        The results, in item order.
    """
    gate = asyncio.Semaphore(concurrency)

    async def one(item: Any) -> dg.DebateResult:
        async with gate:
            return await dg.arun(item.question, reference=item.reference, **settings)

    return await asyncio.gather(*(one(i) for i in items))
