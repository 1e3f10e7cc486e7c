"""Memory and CPU of the end-of-``eval`` summary over a results file: list vs one pass.

What ``debategraph eval`` does after the last row: read the run's rows back
(``EvalOutcome.summary_rows``, a digest of each) and summarise them. "list" groups them in
lists per method first, as ``summarize`` did before it went through ``MethodTally``;
``summarize_stream`` (what ``summarize`` is now) keeps tallies. For each this prints the
peak of Python allocations (``tracemalloc``) and, in separate runs without tracing, the
median CPU and wall seconds; and, for the list, the largest allocation sites once every
digest is held (what the peak is made of).

Usage: python bench/summary_memory.py runs/results.jsonl [--repeat 3]
"""

from __future__ import annotations

import argparse
import linecache
import statistics
import time
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from debategraph.eval.analysis.metrics import MethodSummary, Row, group_by, summarize_method
from debategraph.eval.analysis.summary_stream import summarize_stream
from debategraph.eval.run.runner import EvalOutcome


def summarize_lists(rows: Iterable[Row]) -> dict[str, MethodSummary]:
    """The rows grouped in lists per method, then each list summarised."""
    return {method: summarize_method(method, group) for method, group in group_by(rows).items()}


WAYS: dict[str, Callable[..., Any]] = {"list": summarize_lists, "one pass": summarize_stream}


def outcome(path: Path) -> EvalOutcome:
    return EvalOutcome(path=path, count=0, resumed=0, written=0, failed=0)


def traced_peak(path: Path, way: Callable[..., Any]) -> float:
    tracemalloc.start()
    way(outcome(path).summary_rows())
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def timed(path: Path, way: Callable[..., Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    way(outcome(path).summary_rows())
    return time.process_time() - cpu, time.perf_counter() - wall


def held_by_lists(path: Path) -> str:
    tracemalloc.start(4)
    groups = group_by(outcome(path).summary_rows(), "method")
    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()
    rows = sum(map(len, groups.values()))
    total = sum(stat.size for stat in snapshot.statistics("filename"))
    per_row = total / max(1, rows)
    lines = [f"held once grouped: {total / 2**20:.1f} MiB for {rows} rows ({per_row:.0f} B/row)"]
    for stat in snapshot.statistics("lineno")[:6]:
        frame = stat.traceback[0]
        code = linecache.getline(frame.filename, frame.lineno).strip()[:60]
        where = f"{frame.filename.split('/')[-1]}:{frame.lineno}"
        lines.append(f"  {stat.size / 2**20:6.1f} MiB {stat.count:8d} blocks  {where}  {code}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(held_by_lists(args.results))
    for name, way in WAYS.items():
        peak = traced_peak(args.results, way)
        runs = [timed(args.results, way) for _ in range(args.repeat)]
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{name:>8}: traced peak {peak:5.1f} MiB · CPU {cpu:.2f} s · wall {wall:.2f} s")


if __name__ == "__main__":
    main()
