"""Evaluation runner overhead, memory and concurrency.

1. Overhead: 1,000 arithmetic items, `du` with 3 agents and 2 rounds, a zero-latency model,
   through `debategraph.eval.run.runner.run_eval` (JSONL rows, shared call limiter, manifest):
   items per second, vs a plain sequential loop of `arun` calls on the same items. Peak
   memory: the tracemalloc peak of a second, traced run, and the process's ru_maxrss.
2. Concurrency: the same run with a fixed 200 ms model latency and 64 concurrent calls:
   wall time vs the ideal (total calls / 64 x 200 ms), and the peak of in-flight calls
   measured inside the model (must never exceed 64).
3. The command line against section 1: `debategraph eval` on the simulated debaters (the
   same items, method and concurrency), timed from outside with its process start, and
   section 1's workload in a fresh process, ``--repeats`` pairs: the run the command
   reports and the whole command, each as a median ratio over the pairs.

Usage: python bench/runner.py [--items 1000] [--concurrency 64] [--repeats 7]
                              [--out bench/RESULTS-runner.md]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).parent))
from zero_model import FixedModel

import debategraph as dg
from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.runner import Arm, EvalPlan, run_eval

LATENCY_S = 0.2
RUN_TIME_RE = re.compile(r" new, ([0-9.]+) s\)")


class CountingModel(FixedModel):
    """FixedModel that records how many of its calls are in flight at once."""

    active: ClassVar[int] = 0
    peak: ClassVar[int] = 0

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        CountingModel.active += 1
        CountingModel.peak = max(CountingModel.peak, CountingModel.active)
        try:
            return await super()._agenerate(*args, **kwargs)
        finally:
            CountingModel.active -= 1


def arms(model: FixedModel) -> list[Arm]:
    return [Arm("du", "du", {"agents": 3, "rounds": 2, "models": model})]


async def timed_run(items: list[Any], model: FixedModel, concurrency: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        plan = EvalPlan(dataset="arithmetic", out_dir=Path(out), concurrency=concurrency)
        outcome = await run_eval(items, arms(model), plan)
        wall = time.perf_counter() - start
        calls = sum(row["calls"] for row in outcome.rows)
    return {"wall_s": wall, "items": outcome.count, "calls": calls}


async def sequential(items: list[Any], model: FixedModel) -> float:
    start = time.perf_counter()
    for item in items:
        await dg.arun(item.question, method="du", agents=3, rounds=2, models=model)
    return time.perf_counter() - start


def max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def bench(n_items: int, concurrency: int) -> dict[str, Any]:
    items = load_dataset("arithmetic", limit=n_items)
    zero = FixedModel()
    await timed_run(items[:20], zero, concurrency)  # warm up: imports, graph compile
    rss_before = max_rss_mib()
    overhead = await timed_run(items, zero, concurrency)
    rss_after = max_rss_mib()
    baseline = await sequential(items[:200], zero)
    tracemalloc.start()
    await timed_run(items, zero, concurrency)
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    CountingModel.peak = 0
    conc = await timed_run(items, CountingModel(delay_s=LATENCY_S), concurrency)
    ideal = conc["calls"] / concurrency * LATENCY_S
    return {
        "items": n_items,
        "concurrency": concurrency,
        "overhead": overhead,
        "items_per_s": overhead["items"] / overhead["wall_s"],
        "sequential_items_per_s": 200 / baseline,
        "rss_before_mib": rss_before,
        "rss_after_mib": rss_after,
        "traced_peak_mib": traced_peak / 2**20,
        "conc": conc,
        "ideal_s": ideal,
        "ratio": conc["wall_s"] / ideal,
        "peak_in_flight": CountingModel.peak,
    }


async def fresh_runner(n_items: int, concurrency: int) -> float:
    """Section 1's timed run (after the same warm-up) in this process: items per second."""
    items = load_dataset("arithmetic", limit=n_items)
    zero = FixedModel()
    await timed_run(items[:20], zero, concurrency)
    timed = await timed_run(items, zero, concurrency)
    return timed["items"] / timed["wall_s"]


def command_line(n_items: int, concurrency: int) -> tuple[float, float]:
    """``debategraph eval`` on the simulated debaters: items/s of the whole command (process
    start included) and of its run (the seconds the command reports for its debates)."""
    executable = shutil.which("debategraph")
    if executable is None:
        raise SystemExit("`debategraph` is not on PATH: install the project (pip install -e .)")
    with tempfile.TemporaryDirectory() as out:
        command = [
            executable, "eval", "--method", "du", "--dataset", "arithmetic",
            "--limit", str(n_items), "--concurrency", str(concurrency),
            "--out", out, "--force", "--quiet",
        ]  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        whole = time.perf_counter() - start
    reported = RUN_TIME_RE.search(done.stdout)
    if reported is None:
        raise SystemExit(f"no run time in the command's output:\n{done.stdout}")
    return n_items / whole, n_items / float(reported.group(1))


def interleaved(n_items: int, concurrency: int, repeats: int) -> dict[str, list[float]]:
    """Section 3: pairs of a fresh-process runner run and a command-line run, the order
    alternating from pair to pair (so a drift in the machine's speed favours neither)."""
    child = [sys.executable, __file__, "--child", "--items", str(n_items)]
    child += ["--concurrency", str(concurrency)]
    runs: dict[str, list[float]] = {"runner": [], "run": [], "whole": []}

    def runner() -> None:
        done = subprocess.run(child, check=True, capture_output=True, text=True)
        runs["runner"].append(json.loads(done.stdout.strip().splitlines()[-1]))

    def cli() -> None:
        whole, run = command_line(n_items, concurrency)
        runs["whole"].append(whole)
        runs["run"].append(run)

    for pair in range(repeats):
        for measure in (runner, cli) if pair % 2 == 0 else (cli, runner):
            measure()
    return runs


def render_command_line(runs: dict[str, list[float]], n: int, k: int) -> list[str]:
    def row(label: str, key: str) -> str:
        each = ", ".join(f"{x:.1f}" for x in runs[key])
        if key == "runner":
            return f"| {label} | {each} | {statistics.median(runs[key]):.1f} | |"
        ratios = [x / y for x, y in zip(runs[key], runs["runner"], strict=True)]
        return (
            f"| {label} | {each} | {statistics.median(runs[key]):.1f} | "
            f"**{statistics.median(ratios):.2f}x** ({min(ratios):.2f}-{max(ratios):.2f}) |"
        )

    return [
        "## 3. `debategraph eval` on the simulated debaters against section 1",
        "",
        f"`debategraph eval --method du --dataset arithmetic --limit {n} --concurrency {k} "
        "--force --quiet` with the offline simulated debaters, against section 1's workload "
        "(fixed-reply model, Python's collector as it is) in a fresh process, in "
        f"{len(runs['runner'])} pairs, which of the two runs first alternating. The "
        "command's run is the time it reports for its debates (what section 1 times: no "
        "imports; compiling the graph included); the whole command adds process start "
        "(imports, the dataset). Ratio: median over the pairs of command / section 1 "
        "(range). Target: the run reaches section 1's figure (ratio ≥ 1).",
        "",
        "| run | items/s, each run | median items/s | ratio to section 1 |",
        "|---|---|---:|---|",
        row("section 1, fresh process", "runner"),
        row("`debategraph eval`, its run", "run"),
        row("`debategraph eval`, whole command", "whole"),
        "",
        "The simulated debaters do work per call that the fixed reply does not (they read "
        "the question and every peer's answer, decide, and write a worked answer with usage "
        "counts: about 0.1 ms a call, against 0.01 ms); the command line freezes the heap "
        "after its imports and raises the collector's first-generation threshold (see "
        "[`RESULTS-collector.md`](RESULTS-collector.md)), which section 1, a plain "
        "`run_eval` call in a script, does not. This machine's speed drifts by 10-20% "
        "between minutes: compare the pairs, not single figures.",
        "",
    ]


def render(r: dict[str, Any], cmd: str) -> str:
    o, c, n, k = r["overhead"], r["conc"], r["items"], r["concurrency"]
    return "\n".join(
        [
            "# Evaluation runner benchmark",
            "",
            f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
            f"{platform.machine()}, 2 cores · single runs.",
            "",
            f"Workload: {n:,} arithmetic items, `du` with 3 agents and 2 debate rounds "
            f"(9 model calls per item, {o['calls']:,} calls), `--concurrency {k}`, through "
            "`run_eval` (one JSONL row appended and flushed per item, shared call limiter, "
            "manifest, final plan-order rewrite).",
            "",
            "## 1. Runner overhead, zero-latency model",
            "",
            "| items | wall s | items/s | ms/item | ms/call | sequential `arun` loop items/s "
            "| tracemalloc peak MiB | ru_maxrss MiB (before → after) |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {n:,} | {o['wall_s']:.2f} | {r['items_per_s']:.1f} | "
            f"{1e3 * o['wall_s'] / n:.2f} | {1e3 * o['wall_s'] / o['calls']:.2f} | "
            f"{r['sequential_items_per_s']:.1f} | {r['traced_peak_mib']:.1f} | "
            f"{r['rss_before_mib']:.0f} → {r['rss_after_mib']:.0f} |",
            "",
            "The sequential loop awaits `debategraph.arun` item after item on 200 of the items "
            "(no results file, no limiter): the runner's throughput against it shows what the "
            "file, the limiter and the bookkeeping cost. tracemalloc peak comes from a second, "
            "traced run of the same workload (Python allocations during the run); ru_maxrss "
            "is the whole process (interpreter, LangGraph and LangChain imports included), "
            "measured before and after the untraced run.",
            "",
            f"## 2. Concurrency, {LATENCY_S * 1e3:.0f} ms per model call, {k} concurrent calls",
            "",
            f"Ideal = calls / {k} × {LATENCY_S * 1e3:.0f} ms. Targets: wall ≤ 1.3x ideal; "
            f"peak in-flight calls ≤ {k} (counted inside the model).",
            "",
            "| calls | ideal s | wall s | ratio | peak in-flight calls |",
            "|---:|---:|---:|---:|---:|",
            f"| {c['calls']:,} | {r['ideal_s']:.2f} | {c['wall_s']:.2f} | {r['ratio']:.3f}x | "
            f"{r['peak_in_flight']} |",
            "",
            *render_command_line(r["command_line"], n, k),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "RESULTS-runner.md")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(fresh_runner(args.items, args.concurrency))))
        return
    result = asyncio.run(bench(args.items, args.concurrency))
    result["command_line"] = interleaved(args.items, args.concurrency, args.repeats)
    cmd = ("python bench/runner.py " + " ".join(sys.argv[1:])).strip()
    text = render(result, cmd)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
