"""The offline simulated debater's own cost, and eval throughput on it.

1. Cost per call of ``SimulatedDebater`` inside a ``du`` debate (2 debate rounds) on a GSM8K
   item, for n = 3, 5, 20, 64 agents: the CPU time spent in the model per call (its
   ``_respond``: reading the prompt, deciding, writing the reply), the prompt characters it
   reads per call, the time per KiB of prompt, and how many answer parses
   (``extract_answer``) it runs per call against the peers each call reads. A model that
   reads each peer once keeps parses/call ≤ peers/call and a flat µs per KiB.
2. ``run_eval`` throughput at zero latency on the same GSM8K items: ``du`` (3 agents,
   2 rounds) on the default simulated model vs on a fixed-reply model (``bench/zero_model``,
   the runner benchmark's model), interleaved, medians.
3. The default evaluation as a user runs it, ``debategraph eval --method du`` (every
   bundled GSM8K item, the simulated model, ``--concurrency 16``; a fresh process, start-up
   included), against the runner benchmark's figure measured in the same session
   (``bench/runner.py``'s workload: 1,000 arithmetic items, fixed-reply model, 64
   concurrent calls, in-process).

Usage: PYTHONPATH=src python bench/simulated.py [--items 200] [--repeats 3]
       [--out bench/RESULTS-simulated.md]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from zero_model import FixedModel

import debategraph as dg
from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.runner import EvalPlan, arms_for, run_eval
from debategraph.models import simulated


@contextmanager
def instrumented() -> Iterator[dict[str, float]]:
    """Count the simulated model's calls, parses, prompt characters and time in ``_respond``."""
    counts = {"calls": 0, "parses": 0, "chars": 0, "seconds": 0.0, "peers": 0}
    respond = simulated.SimulatedDebater._respond
    parse = simulated.extract_answer
    read = simulated.SimulatedDebater._read

    def timed(self: Any, messages: Any, top: int = 0) -> Any:
        start = time.thread_time()  # CPU time of the event loop's thread
        try:
            return respond(self, messages, top)
        finally:
            counts["seconds"] += time.thread_time() - start
            counts["calls"] += 1
            counts["chars"] += sum(len(str(m.content)) for m in messages)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts["parses"] += 1
        return parse(*args, **kwargs)

    def reading(self: Any, messages: Any) -> Any:
        scene = read(self, messages)
        counts["peers"] += len(scene.peers)
        return scene

    simulated.SimulatedDebater._respond = timed  # type: ignore[method-assign]
    simulated.SimulatedDebater._read = reading  # type: ignore[method-assign]
    simulated.extract_answer = counted  # type: ignore[assignment]
    try:
        yield counts
    finally:
        simulated.SimulatedDebater._respond = respond  # type: ignore[method-assign]
        simulated.SimulatedDebater._read = read  # type: ignore[method-assign]
        simulated.extract_answer = parse


def model_cost(ns: list[int], question: str, repeats: int) -> list[dict[str, Any]]:
    rows = []
    dg.run(question, method="du", agents=3, seed=99)  # warm up: imports, oracle index, graph
    for n in ns:
        per_call, samples = [], []
        for r in range(repeats):
            for cached in ("_parsed", "_line_tokens"):  # no reuse across runs
                if hasattr(simulated, cached):
                    getattr(simulated, cached).cache_clear()
            with instrumented() as c:
                dg.run(question, method="du", agents=n, rounds=2, seed=r)
            per_call.append(c["seconds"] / c["calls"])
            samples.append(c)
        c = samples[0]
        us = statistics.median(per_call) * 1e6
        kib = c["chars"] / c["calls"] / 1024
        rows.append(
            {
                "n": n,
                "calls": c["calls"],
                "us_per_call": us,
                "kib_per_call": kib,
                "us_per_kib": us / kib,
                "parses_per_call": c["parses"] / c["calls"],
                "peers_per_call": c["peers"] / c["calls"],
            }
        )
    return rows


async def eval_rate(items: list[Any], model: Any) -> float:
    settings: dict[str, Any] = {"agents": 3, "rounds": 2, "seed": 0}
    if model is not None:
        settings["model"] = model
    arms = arms_for(["du"], settings)
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        await run_eval(items, arms, EvalPlan(dataset="gsm8k", out_dir=Path(out), concurrency=16))
        return len(items) / (time.perf_counter() - start)


def eval_throughput(n_items: int, repeats: int) -> dict[str, Any]:
    items = load_dataset("gsm8k", limit=n_items, seed=0)
    fixed = FixedModel()
    asyncio.run(eval_rate(items[:10], None))  # warm up
    asyncio.run(eval_rate(items[:10], fixed))
    sim, fix = [], []
    for _ in range(repeats):
        sim.append(asyncio.run(eval_rate(items, None)))
        fix.append(asyncio.run(eval_rate(items, fixed)))
    return {
        "items": n_items,
        "simulated": statistics.median(sim),
        "fixed": statistics.median(fix),
        "simulated_runs": sim,
        "fixed_runs": fix,
    }


CLI = "import sys; from debategraph.cli import main; sys.argv[0] = 'debategraph'; main()"


def cli_eval_rate() -> tuple[float, int]:
    """items/s of ``debategraph eval --method du`` (all bundled GSM8K items), start-up included."""
    env = {**os.environ, "PYTHONPATH": str(Path(simulated.__file__).resolve().parents[2])}
    items = len(load_dataset("gsm8k"))
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", CLI, "eval", "--method", "du", "--out", out, "--quiet"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return items / (time.perf_counter() - start), items


def runner_figure() -> float:
    """items/s of the runner benchmark's overhead workload (``bench/runner.py``)."""
    from runner import timed_run

    items = load_dataset("arithmetic", limit=1000)
    result = asyncio.run(timed_run(items, FixedModel(), 64))
    return result["items"] / result["wall_s"]


def default_eval(repeats: int) -> dict[str, Any]:
    runner_figure()  # warm up
    cli, bench = [], []
    items = 0
    for _ in range(repeats):
        bench.append(runner_figure())
        rate, items = cli_eval_rate()
        cli.append(rate)
    return {"items": items, "cli": cli, "bench": bench}


def render(
    rows: list[dict[str, Any]],
    ev: dict[str, Any],
    default: dict[str, Any],
    cmd: str,
    repeats: int,
) -> str:
    lines = [
        "# Simulated debater benchmark",
        "",
        f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, 2 cores shared with other jobs · medians of {repeats} runs.",
        "",
        "## 1. The simulated model's cost per call, `du` (2 debate rounds), one GSM8K item",
        "",
        "CPU time inside the model (`SimulatedDebater._respond`: reading the prompt, deciding, "
        "writing the reply), prompt size per call (system, history and the peers' answers), "
        "and answer parses per call against peer blocks read per call.",
        "",
        "| agents | calls | µs/call | prompt KiB/call | µs per KiB of prompt "
        "| parses/call | peer blocks/call |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']} | {r['calls']} | {r['us_per_call']:.0f} | {r['kib_per_call']:.1f} | "
            f"{r['us_per_kib']:.0f} | {r['parses_per_call']:.2f} | {r['peers_per_call']:.2f} |"
        )
    ratio = ev["simulated"] / ev["fixed"]
    lines += [
        "",
        f"## 2. `run_eval` at zero latency, {ev['items']} GSM8K items, `du` 3 agents × 2 rounds",
        "",
        "Same items, same runner (16 concurrent, JSONL rows), runs interleaved; the fixed-reply "
        "model is the runner benchmark's (`bench/zero_model.py`).",
        "",
        "| model | items/s (median) | runs |",
        "|---|---:|---|",
        f"| simulated (default) | {ev['simulated']:.1f} | "
        + ", ".join(f"{x:.1f}" for x in ev["simulated_runs"])
        + " |",
        f"| fixed reply | {ev['fixed']:.1f} | "
        + ", ".join(f"{x:.1f}" for x in ev["fixed_runs"])
        + " |",
        "",
        f"Simulated / fixed: {ratio:.2f}.",
        "",
        "## 3. The default evaluation vs the runner benchmark's figure",
        "",
        "| measurement | items/s (median) | runs |",
        "|---|---:|---|",
        f"| `debategraph eval --method du` ({default['items']:,} GSM8K items, simulated, "
        f"fresh process) | {statistics.median(default['cli']):.1f} | "
        + ", ".join(f"{x:.1f}" for x in default["cli"])
        + " |",
        "| runner benchmark workload (`bench/runner.py`: 1,000 arithmetic items, fixed "
        f"reply, 64 concurrent, in-process) | {statistics.median(default['bench']):.1f} | "
        + ", ".join(f"{x:.1f}" for x in default["bench"])
        + " |",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[3, 5, 20, 64])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "RESULTS-simulated.md")
    args = parser.parse_args()
    question = load_dataset("gsm8k", limit=1, seed=0)[0].question
    rows = model_cost(args.agents, question, args.repeats)
    ev = eval_throughput(args.items, args.repeats)
    default = default_eval(args.repeats)
    cmd = ("PYTHONPATH=src python bench/simulated.py " + " ".join(sys.argv[1:])).strip()
    text = render(rows, ev, default, cmd, args.repeats)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
