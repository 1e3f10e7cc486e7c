"""RSS of ``debategraph eval`` over a long run, read from outside the process.

The command runs in its own process (``python -m debategraph eval --method du --dataset
arithmetic --limit N --concurrency 64`` on the simulated debaters, which answer at once), as a
user runs it. This script reads its RSS (``/proc/<pid>/status``) and the rows written so far
(``results.jsonl``) every 0.1 s, and notes the RSS at the first row, at 1k, 2k, ... rows, at
the end of the rows (before the summary) and the peak (the child's ``ru_maxrss``); the
summary step is the peak above the end of the rows. ``--src`` and ``--base`` run two trees
one after the other; ``--repeat N`` runs them N times, interleaved, and reports the medians.

Usage: python bench/cli_rss.py [--items 10000] [--src src] [--base /tmp/base/src]
       [--repeat 3] [--out bench/RESULTS-scale.md]  (appends a section; without --out prints)
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run(src: Path, items: int, every: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(src), HF_HUB_OFFLINE="1")
    with tempfile.TemporaryDirectory() as out:
        results = Path(out, "runs", "results.jsonl")
        argv = [
            sys.executable, "-m", "debategraph", "eval", "--method", "du", "--dataset",
            "arithmetic", "--limit", str(items), "--concurrency", "64", "--out",
            str(Path(out, "runs")),
        ]  # fmt: skip
        start = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        marks: list[float] = []
        rows, offset, last = 0, 0, None
        while True:
            time.sleep(0.1)
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            rss = rss_mib(child.pid)
            if results.exists():
                with results.open("rb") as handle:
                    handle.seek(offset)
                    chunk = handle.read()
                rows += chunk.count(b"\n")
                offset += len(chunk)
            if rss is None or rows == 0:
                continue
            if not marks or rows >= len(marks) * every:
                marks.append(rss)
            if rows < items:
                last = rss
        wall = time.perf_counter() - start
        err = child.stderr.read().decode() if child.stderr else ""
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"eval failed: {err[-2000:]}")
    return {
        "marks": marks,
        "end_of_rows": last,
        "peak": usage.ru_maxrss / 1024,
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
    }


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over repeated runs (the RSS marks one position at a time)."""
    marks = [statistics.median(m) for m in zip(*(r["marks"] for r in runs), strict=False)]
    keys = ("end_of_rows", "peak", "wall", "cpu")
    return {"marks": marks, **{k: statistics.median(r[k] for r in runs) for k in keys}}


def render(
    runs: dict[str, dict[str, Any]], cmd: str, items: int, every: int, repeat: int = 1
) -> str:
    lines = [
        "## RSS of `debategraph eval` over a long run (the command line)",
        "",
        f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs · "
        f"`debategraph eval --method du --dataset arithmetic --limit {items} "
        "--concurrency 64` on the simulated debaters, in its own process; RSS read from "
        "`/proc` every 0.1 s"
        + (f"; medians of {repeat} runs per tree, interleaved." if repeat > 1 else "."),
        "",
        f"| code | RSS MiB at the first row, {every // 1000}k, ... rows "
        f"| growth per item, {every // 1000}k→end of rows | end of rows | peak "
        "| summary step (peak − end of rows) | CPU s | wall s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in runs.items():
        marks = r["marks"]
        growth = (r["end_of_rows"] - marks[1]) * 1024 / max(1, items - every)
        lines.append(
            f"| {name} | {' · '.join(f'{m:.0f}' for m in marks)} | {growth:.2f} KiB | "
            f"{r['end_of_rows']:.0f} | {r['peak']:.0f} | {r['peak'] - r['end_of_rows']:+.0f} | "
            f"{r['cpu']:.0f} | {r['wall']:.0f} |"
        )
    return "\n".join([*lines, ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--base", type=Path, help="another checkout's src, run after")
    parser.add_argument("--repeat", type=int, default=1, help="runs per tree (medians)")
    parser.add_argument("--out", type=Path, help="append the section to this file")
    args = parser.parse_args()
    trees = {"this tree": args.src.resolve()}
    if args.base:
        trees["base"] = args.base.resolve()
    done: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for _ in range(max(1, args.repeat)):
        for name, src in trees.items():
            done[name].append(run(src, args.items, args.every))
            print(name, done[name][-1], flush=True)
    runs = {name: median_run(results) for name, results in done.items()}
    cmd = ("python bench/cli_rss.py " + " ".join(sys.argv[1:])).strip()
    text = render(runs, cmd, args.items, args.every, args.repeat)
    if args.out:
        with args.out.open("a") as handle:
            handle.write("\n" + text)
    print(text)


if __name__ == "__main__":
    main()
