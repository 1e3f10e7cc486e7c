"""What the method benchmarks share: many debates at once under one bound, and the arms' loop."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
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


async def run_table(
    arms: Sequence[tuple[str, dict[str, Any]]],
    items: Sequence[Any],
    *,
    run_arm: Callable[[Sequence[Any], dict[str, Any]], Awaitable[list[dg.DebateResult]]],
    measure: Callable[[list[dg.DebateResult]], Any],
    table: Callable[[list[tuple[str, Any]]], str],
    report: Callable[[list[tuple[str, Any]], float], str],
    results: Path,
) -> None:
    """Run every arm on ``items``, print the table, write the results file.

    Args:
        arms: ``(label, settings)`` pairs, run one after the other.
        items: Dataset items.
        run_arm: Runs one arm's debates.
        measure: One arm's figures from its results.
        table: The Markdown table of ``(label, figures)`` rows.
        report: The whole results file, from the rows and the wall time in seconds.
        results: Where the results file goes.
    """
    start = time.perf_counter()
    rows = []
    for label, settings in arms:
        t0 = time.perf_counter()
        rows.append((label, measure(await run_arm(items, settings))))
        print(f"{label}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    wall = time.perf_counter() - start
    print(table(rows))
    results.write_text(report(rows, wall), encoding="utf-8")
    print(f"wall time {wall:.1f} s; wrote {results}", file=sys.stderr)
