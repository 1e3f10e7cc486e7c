"""CPU a command spends before its first model call, beside a plain ``openai`` asyncio client.

A loopback server (``tests.openai_server``) runs on a thread of this process and answers at
once with a fixed solution. When a chat request arrives from a fresh child, the server reads
that child's CPU time (user + system, ``/proc/<pid>/stat``, 10 ms ticks) before answering:
that is the CPU the command spent from its start to its first call (interpreter, imports,
settings, model checks, dataset, graph). The arms run in fresh interpreters, interleaved;
medians and ranges, with the whole run's CPU and wall time beside them.

Arms: a plain ``openai.AsyncOpenAI`` client making one chat call (the yardstick); the floor
of any LangGraph program on ``langchain-openai``: the same call after importing
``langgraph.graph`` and ``langchain_openai`` (with the collector off, as the command line
does); and ``debategraph eval --method du --dataset arithmetic --limit 1`` against the
server, from ``--src`` and, with ``--base``, from another checkout's ``src`` as well.

Usage: python bench/first_call.py [--repeats 9] [--src src] [--base /tmp/base/src]
       [--out bench/RESULTS-coldstart.md]  (appends a section; without --out prints it)
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.openai_server import ChatRequest, Completion, Responder, serve  # noqa: E402

REPLY = "3+4*5 = 23, 23+6 = 29, 7*2 = 14, 29-14 = 15. The answer is 15."
TICK = os.sysconf("SC_CLK_TCK")
CLI = "import sys; from debategraph.entry import main; sys.argv[0] = 'debategraph'; main()"
PLAIN = """
import asyncio, sys
import openai

async def main():
    client = openai.AsyncOpenAI(base_url=sys.argv[1], api_key="sk-test", max_retries=0)
    reply = await client.chat.completions.create(
        model="bench-model", messages=[{"role": "user", "content": "What is 3+4*5+6-7*2?"}]
    )
    print(reply.choices[0].message.content)
    await client.close()

asyncio.run(main())
"""
FLOOR = "import gc; gc.disable(); import langgraph.graph, langchain_openai; gc.enable()\n" + PLAIN


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class FirstCall(Responder):
    """Notes the CPU time of the watched child at its first chat request."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.cpu: float | None = None
        self.lock = threading.Lock()

    def watch(self, pid: int) -> None:
        with self.lock:
            self.pid, self.cpu = pid, None

    async def respond(self, request: ChatRequest) -> Completion:
        with self.lock:
            if self.pid is not None and self.cpu is None:
                self.cpu = cpu_seconds(self.pid)
        return Completion(content=REPLY)


def run_one(args: list[str], env: dict[str, str], responder: FirstCall, cwd: Path) -> dict:
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    responder.watch(child.pid)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    err = child.stderr.read().decode() if child.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0 or responder.cpu is None:
        raise RuntimeError(f"{args[:3]} failed or made no call: {err[-2000:]}")
    return {
        "first": responder.cpu,
        "cpu": usage.ru_utime + usage.ru_stime,
        "wall": wall,
        "rss": usage.ru_maxrss / 1024,
    }


def arms(url: str, srcs: dict[str, Path], out: Path) -> dict[str, tuple[list[str], Path | None]]:
    table: dict[str, tuple[list[str], Path | None]] = {
        "plain `openai.AsyncOpenAI`, one call": (["-c", PLAIN, url], None),
        "floor: LangGraph and langchain-openai imported (collector off), then that call": (
            ["-c", FLOOR, url],
            None,
        ),
    }
    for label, src in srcs.items():
        eval_args = [
            "-c", CLI, "eval", "--method", "du", "--dataset", "arithmetic", "--limit", "1",
            "--model", "bench-model", "--base-url", url, "--out", str(out / "runs"),
        ]  # fmt: skip
        table[f"`debategraph eval --limit 1` ({label})"] = (eval_args, src)
    return table


def measure(srcs: dict[str, Path], repeats: int) -> dict[str, dict[str, list[float]]]:
    responder = FirstCall()
    work = Path(tempfile.mkdtemp(prefix="first-call-"))
    results: dict[str, dict[str, list[float]]] = {}
    try:
        with serve(responder=responder) as server:
            table = arms(server.base_url, srcs, work)
            for k in range(repeats + 1):
                for name, (args, src) in table.items():
                    env = dict(os.environ, OPENAI_API_KEY="sk-test", HF_HUB_OFFLINE="1")
                    env.pop("PYTHONWARNINGS", None)
                    if src is not None:
                        env["PYTHONPATH"] = str(src)
                    shutil.rmtree(work / "runs", ignore_errors=True)
                    row = run_one(args, env, responder, work)
                    if k == 0:  # warm the page cache and .pyc files
                        continue
                    for key, value in row.items():
                        results.setdefault(name, {}).setdefault(key, []).append(value)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results


def spread(values: list[float], fmt: str = ".2f") -> str:
    return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}–{max(values):{fmt}})"


def render(results: dict[str, dict[str, list[float]]], cmd: str, repeats: int) -> str:
    load = os.getloadavg()[0]
    lines = [
        "## CPU before the first model call",
        "",
        f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs (load "
        f"{load:.1f} at the end) · fresh interpreters, arms interleaved, medians (range) "
        f"of {repeats} runs · server: `tests.openai_server` on a thread of the bench "
        "process, a fixed reply at once; the child's CPU is read from `/proc` when its "
        "first chat request arrives.",
        "",
        "| arm | CPU s before the first call | CPU s, whole run | wall s, whole run "
        "| peak RSS MiB |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        lines.append(
            f"| {name} | {spread(r['first'])} | {spread(r['cpu'])} | {spread(r['wall'])} "
            f"| {statistics.median(r['rss']):.0f} |"
        )
    return "\n".join([*lines, ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--base", type=Path, help="another checkout's src, measured beside")
    parser.add_argument("--out", type=Path, help="append the section to this file")
    args = parser.parse_args()
    srcs: dict[str, Any] = {"this tree": args.src.resolve()}
    if args.base:
        srcs["base"] = args.base.resolve()
    results = measure(srcs, args.repeats)
    cmd = ("python bench/first_call.py " + " ".join(sys.argv[1:])).strip()
    text = render(results, cmd, args.repeats)
    if args.out:
        with args.out.open("a") as handle:
            handle.write("\n" + text)
    print(text)


if __name__ == "__main__":
    main()
