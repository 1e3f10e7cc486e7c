"""Cold start: ``debategraph --help`` and ``debategraph run`` against a minimal LangGraph script.

Each command runs in a fresh interpreter; the variants are interleaved, repeated, and the
median wall time of each is compared with the floor (``bench/coldstart_floor.py``: LangGraph
imported, the same 3-agent, 3-round graph shape run on a fixed-reply model). Peak RSS comes
from the child's own rusage. A separate ``-X importtime`` run of each counts the modules it
imports and names the heavy ones it loads.

Usage: python bench/coldstart.py [--repeats 9] [--src src] [--out bench/RESULTS-coldstart.md]
       (``--src`` points at the ``src`` directory to measure, e.g. an older checkout's)
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
QUESTION = "What is the result of 3+4*5+6-7*2?"
CLI = "import sys; from debategraph.cli import main; sys.argv[0] = 'debategraph'; main()"
HEAVY = (
    "numpy",
    "networkx",
    "faiss",
    "openai",
    "langchain_openai",
    "httpx",
    "sympy",
    "matplotlib",
    "langgraph",
    "langchain_core",
    "typer",
    "rich",
    "filelock",
)

VARIANTS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "floor (bench/coldstart_floor.py)": [str(HERE / "coldstart_floor.py")],
    "import debategraph": ["-c", "import debategraph"],
    "debategraph --help": ["-c", CLI, "--help"],
    "debategraph run (simulated)": ["-c", CLI, "run", QUESTION],
}


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one fresh interpreter running ``args``."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    err = child.stderr.read().decode() if child.stderr else ""
    if child.returncode != 0:
        raise RuntimeError(f"{args} failed ({child.returncode}): {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def imports(args: list[str], env: dict[str, str]) -> tuple[int, list[str]]:
    """How many modules ``args`` imports, and which of the heavy ones."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    ).stderr
    names = [line.rsplit("|", 1)[-1].strip() for line in out.splitlines() if "|" in line]
    names = [n for n in names if n and n != "imported package"]
    return len(names), [h for h in HEAVY if h in names]


def measure(src: Path, repeats: int) -> dict[str, dict[str, Any]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    env.pop("PYTHONWARNINGS", None)
    walls: dict[str, list[float]] = {name: [] for name in VARIANTS}
    rss: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for args in VARIANTS.values():  # warm the page cache and .pyc files
        timed(args, env)
    for _ in range(repeats):
        for name, args in VARIANTS.items():
            wall, peak = timed(args, env)
            walls[name].append(wall)
            rss[name].append(peak)
    rows = {}
    for name, args in VARIANTS.items():
        count, heavy = imports(args, env)
        rows[name] = {
            "median_s": statistics.median(walls[name]),
            "min_s": min(walls[name]),
            "max_s": max(walls[name]),
            "rss_mib": statistics.median(rss[name]),
            "modules": count,
            "heavy": heavy,
        }
    return rows


def render(rows: dict[str, dict[str, Any]], cmd: str, src: Path, repeats: int) -> str:
    floor = rows["floor (bench/coldstart_floor.py)"]["median_s"]
    if src.resolve().is_relative_to(HERE.parent):
        src = src.resolve().relative_to(HERE.parent)
    lines = [
        "# Cold-start benchmark",
        "",
        f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, 2 cores shared with other jobs · each command in a fresh "
        f"interpreter, variants interleaved, medians of {repeats} runs · source: `{src}`.",
        "",
        "Floor: `bench/coldstart_floor.py`, LangGraph and LangChain's chat-model base "
        "imported, the graph shape of `debategraph run` (plan, a `Send` to each of 3 agent "
        "nodes calling a fixed-reply model, a deferred collect node, 3 rounds) run once. "
        "Target: `--help` and `run` within 1.3x of it.",
        "",
        "| command | median s | min–max s | vs floor | peak RSS MiB | modules imported "
        "| heavy modules loaded |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, r in rows.items():
        lines.append(
            f"| {name} | {r['median_s']:.3f} | {r['min_s']:.2f}–{r['max_s']:.2f} | "
            f"{r['median_s'] / floor:.2f}x | {r['rss_mib']:.0f} | {r['modules']} | "
            f"{', '.join(r['heavy']) or '-'} |"
        )
    lines += [
        "",
        f"`debategraph run` asks `{QUESTION}` of the default `du` debate (3 agents, 2 "
        "rounds) on the simulated model and prints the transcript; the commands run as "
        '`python -c "from debategraph.cli import main; main()" ...`, which is what the '
        "console script does.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS-coldstart.md")
    args = parser.parse_args()
    rows = measure(args.src.resolve(), args.repeats)
    cmd = ("python bench/coldstart.py " + " ".join(sys.argv[1:])).strip()
    text = render(rows, cmd, args.src, args.repeats)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
