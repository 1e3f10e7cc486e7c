"""The command line's garbage-collector settings against Python's defaults.

A zero-latency evaluation (`du`, 3 agents, 2 debate rounds, arithmetic items, the simulated
debaters, `--concurrency 64`) through `run_eval`, each run in a fresh process, the settings
interleaved:

- `default`: Python's collector as it is (threshold 700, nothing frozen);
- `freeze`: `gc.freeze()` after the imports (what `debategraph` did before);
- `cli`: `gc.freeze()` and a first-generation threshold of 20,000 (what `debategraph`'s
  `main` does now).

Reports items per second and the seconds spent in collections of each generation (timed
with `gc.callbacks`).

Usage: python bench/collector.py [--items 1000] [--repeats 3] [--out bench/RESULTS-collector.md]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

SETTINGS = ("default", "freeze", "cli")


def child(setting: str, n_items: int) -> dict[str, float]:
    """One timed evaluation in this process under ``setting``."""
    from debategraph.eval.datasets import load_dataset
    from debategraph.eval.run.runner import Arm, EvalPlan, run_eval

    items = load_dataset("arithmetic", limit=n_items)
    if setting != "default":
        gc.freeze()
    if setting == "cli":
        gc.set_threshold(20_000, 10, 10)
    spent = [0.0, 0.0, 0.0]
    started = [0.0]

    def timer(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            spent[info["generation"]] += time.perf_counter() - started[0]

    arms = [Arm("du", "du", {"agents": 3, "rounds": 2, "models": "simulated"})]
    with tempfile.TemporaryDirectory() as out:
        gc.callbacks.append(timer)
        start = time.perf_counter()
        plan = EvalPlan(dataset="arithmetic", out_dir=Path(out), concurrency=64)
        asyncio.run(run_eval(items, arms, plan))
        wall = time.perf_counter() - start
        gc.callbacks.remove(timer)
    return {"items_s": n_items / wall, "gen0": spent[0], "gen1": spent[1], "gen2": spent[2]}


def measure(setting: str, n_items: int) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", setting, "--items", str(n_items)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", choices=SETTINGS)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "RESULTS-collector.md")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.items)))
        return
    runs: dict[str, list[dict[str, float]]] = {s: [] for s in SETTINGS}
    for _ in range(args.repeats):
        for setting in SETTINGS:
            runs[setting].append(measure(setting, args.items))
    lines = [
        "# Garbage collector settings",
        "",
        f"Command: `python bench/collector.py --items {args.items} --repeats {args.repeats}` · "
        f"{date.today()} · Python {platform.python_version()} · {platform.machine()} · "
        f"medians of {args.repeats} fresh processes per setting, interleaved.",
        "",
        f"Workload: {args.items:,} arithmetic items, `du` with 3 agents and 2 debate rounds, "
        "simulated debaters, zero latency, `run_eval` at concurrency 64.",
        "",
        "| setting | items/s | runs | gen0 s | gen1 s | gen2 s | collector s |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for setting, rows in runs.items():
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        each = ", ".join(f"{r['items_s']:.1f}" for r in rows)
        total = med["gen0"] + med["gen1"] + med["gen2"]
        lines.append(
            f"| {setting} | {med['items_s']:.1f} | {each} | {med['gen0']:.2f} | "
            f"{med['gen1']:.2f} | {med['gen2']:.2f} | {total:.2f} |"
        )
    text = "\n".join(lines) + "\n"
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
