"""Scaling an evaluation: Ray workers against one process, memory and start-up at any
``--concurrency``, and memory over a long run.

The loopback OpenAI-compatible server (``tests/openai_server/``, simulated responder,
50 ms per request) runs in its own process. Every arm runs in a child process of its own,
the arms interleaved (their order rotating from repeat to repeat); medians with ranges. The
machine is shared: each run waits for a quiet second, measures what the machine's other jobs
used meanwhile (``/proc/stat`` less this bench's processes), and is repeated (up to
``--tries`` times, the quietest kept) when they used more than ``FOREIGN_LIMIT`` of a core.

1. Throughput at saturation: ``du`` (3 agents, 2 debate rounds, models served over HTTP
   through ``ChatOpenAI``) on arithmetic items at ``--concurrency 64`` over all workers:
   one process (the local executor), Ray with 1, 2 and 4 workers (a local cluster the child
   starts), and an ideal client: the raw ``openai.AsyncOpenAI`` sending the same number of
   ``du``'s requests at the same concurrency. Calls/s and client CPU per call are taken over
   the steady part of the run (from the 10% to the 90% row, so the cluster's and the workers'
   start are left out); client CPU is every process of the child's tree (driver, Ray's
   processes, workers), the server's is shown apart.
2. ``--concurrency`` 64, 256, 1024, one process, ``--seconds`` of a run of more items than
   1024: peak RSS, time from ``run_eval``'s call to the server's first request (the parent
   polls the server's counter every 10 ms), calls/s (the server's count) and CPU per call,
   for this tree and for the tree at ``--base`` (the code before).
3. A long run on a zero-latency in-process model: RSS every 1,000 rows over ``--long``
   items (``du``, 3 agents, 2 rounds), then after the final rewrite and after the summary
   the command line prints, for this tree and the one at ``--base``.

Usage: python bench/scale.py [--items 400] [--concurrency-items 1100] [--repeats 3]
       [--long 10000] [--base /tmp/base/src] [--sections 1 2 3] [--out bench/RESULTS-scale.md]
(``--base``: ``git archive <commit> src | tar -x -C /tmp/base``.)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

LATENCY_S = 0.05
MODEL = "bench-model"
ARMS = ("raw", "local", "ray1", "ray2", "ray4")
CONCURRENCIES = (64, 256, 1024)


# --------------------------------------------------------------------------------------------
# Processes: CPU of a process tree, RSS
# --------------------------------------------------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def tree(pid: int) -> set[int]:
    """``pid`` and every process it started, directly or not."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = {pid}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def cpu_s(pids: set[int]) -> float:
    """User + system CPU seconds of these processes (those still running)."""
    ticks = 0
    for pid in pids:
        if (fields := _stat(pid)) is not None:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_busy_s() -> float:
    """CPU seconds every core of the machine spent busy (``/proc/stat``), steal included."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _wait, irq, softirq, steal = map(int, fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class Load:
    """What this bench's processes (``pids()``) and everything else used since it was made."""

    def __init__(self, pids: Any) -> None:
        self.pids = pids
        self.at, self.ours, self.all = time.perf_counter(), cpu_s(pids()), machine_busy_s()

    def read(self) -> dict[str, float]:
        wall = time.perf_counter() - self.at
        ours = cpu_s(self.pids()) - self.ours
        foreign = machine_busy_s() - self.all - ours
        return {"wall_s": wall, "cpu_s": ours, "foreign_cores": max(0.0, foreign) / wall}


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --------------------------------------------------------------------------------------------
# Children: one arm each, JSON on their last line
# --------------------------------------------------------------------------------------------


class Window:
    """Progress hook: this child's tree's CPU and the others' load from the 10% to the 90%
    row (the server's CPU apart: ``SERVER_PID``)."""

    def __init__(self, total: int) -> None:
        self.lo, self.hi = total // 10, total - total // 10
        self.seen = self.calls = 0
        self.load: Load | None = None
        self.driver = 0.0
        self.measured: dict[str, float] = {}
        server = int(os.environ.get("SERVER_PID", "0"))
        self.server = Load(lambda: {server})

    def start(self, totals: Any, done: Any) -> None:
        pass

    def advance(self, row: dict[str, Any]) -> None:
        self.seen += 1
        if self.lo < self.seen <= self.hi:
            self.calls += int(row.get("calls", 0))
        if self.seen == self.lo:
            self.load = Load(lambda: tree(os.getpid()))
            self.server = Load(self.server.pids)
            self.driver = time.process_time()
        elif self.seen == self.hi and self.load is not None:
            self.measured = self.load.read()
            self.measured["driver_cpu_s"] = time.process_time() - self.driver
            server = self.server.read()
            self.measured["server_cpu_s"] = server["cpu_s"]
            self.measured["foreign_cores"] -= server["cpu_s"] / server["wall_s"]

    def stop(self) -> None:
        pass

    def result(self) -> dict[str, float]:
        m = self.measured
        return {
            "calls": self.calls,
            "calls_per_s": self.calls / m["wall_s"],
            "cpu_ms_per_call": 1e3 * m["cpu_s"] / self.calls,
            "server_ms_per_call": 1e3 * m["server_cpu_s"] / self.calls,
            "driver_ms_per_call": 1e3 * m["driver_cpu_s"] / self.calls,
            "foreign_cores": max(0.0, m["foreign_cores"]),
        }


def arm_of(url: str) -> Any:
    from debategraph.eval.run.runner import Arm

    return Arm("du", "du", {"agents": 3, "rounds": 2, "models": MODEL, "base_url": url})


def _run_eval(
    items: Any, arms: Any, out: str | Path, progress: Any = None, **settings: Any
) -> Coroutine[Any, Any, Any]:
    """``run_eval`` of this tree (it takes an ``EvalPlan``) or of the tree at ``--base``."""
    from debategraph.eval.run import runner

    plan_type = getattr(runner, "EvalPlan", None)
    if plan_type is None:  # a tree from before run_eval took the plan
        return runner.run_eval(items, arms, out, progress=progress, **settings)
    plan = plan_type(out_dir=Path(out), **settings)
    return runner.run_eval(items, arms, plan, progress=progress)


async def child_throughput(arm: str, url: str, items: int, concurrency: int) -> dict[str, Any]:
    from debategraph.eval.datasets import arithmetic_items

    if arm == "raw":
        return await raw_client(url, items, concurrency)
    executor = None
    if arm.startswith("ray"):
        from debategraph.eval.run.executors import RayExecutor

        executor = RayExecutor(workers=int(arm.removeprefix("ray")))
    window = Window(items)
    todo = arithmetic_items(items)
    with tempfile.TemporaryDirectory() as out:
        outcome = await _run_eval(
            todo,
            [arm_of(url)],
            out,
            dataset="arithmetic",
            concurrency=concurrency,
            progress=window,
            executor=executor,
        )
        assert outcome.failed == 0, outcome.failed
    return window.result()


async def raw_client(url: str, items: int, concurrency: int) -> dict[str, Any]:
    """The same number of du's requests through the raw openai client, ``concurrency`` at once."""
    import openai
    from client import as_dicts, capture

    requests = [as_dicts(m) for m in capture(items)]
    client = openai.AsyncOpenAI(base_url=url, api_key="sk-bench", max_retries=0)
    gate = asyncio.Semaphore(concurrency)
    window = Window(len(requests))

    async def one(messages: list[dict[str, str]]) -> None:
        async with gate:
            reply = await client.chat.completions.create(model=MODEL, messages=messages)
        assert reply.choices[0].message.content
        window.advance({"calls": 1})

    await asyncio.gather(*(one(m) for m in requests))
    await client.close()
    return window.result()


async def child_concurrency(url: str, items: int, concurrency: int, seconds: float) -> None:
    """Run for ``seconds`` (the parent counts the server's requests), print, and exit at once:
    what is measured (peak RSS, the first call, the rate) needs no more."""
    from debategraph.eval.datasets import arithmetic_items

    todo = arithmetic_items(items)
    out = tempfile.mkdtemp(prefix="scale-")
    print(json.dumps({"start": time.time(), "out": out}), flush=True)
    server = int(os.environ.get("SERVER_PID", "0"))
    load, served = Load(lambda: {os.getpid()}), Load(lambda: {server})
    run = asyncio.ensure_future(
        _run_eval(todo, [arm_of(url)], out, dataset="arithmetic", concurrency=concurrency)
    )
    await asyncio.wait({run}, timeout=seconds)
    measured, server_load = load.read(), served.read()
    foreign = measured["foreign_cores"] - server_load["cpu_s"] / server_load["wall_s"]
    result = {
        "peak_rss_mib": peak_rss_mib(),
        "wall_s": measured["wall_s"],
        "cpu_s": measured["cpu_s"],
        "foreign_cores": max(0.0, foreign),
    }
    print(json.dumps(result), flush=True)
    os._exit(0)  # the parent removes ``out``


class RssEvery:
    """Progress hook: RSS every ``every`` rows."""

    def __init__(self, every: int) -> None:
        self.every, self.seen, self.rss = every, 0, [rss_mib()]

    def start(self, totals: Any, done: Any) -> None:
        pass

    def advance(self, row: Any) -> None:
        self.seen += 1
        if self.seen % self.every == 0:
            self.rss.append(rss_mib())

    def stop(self) -> None:
        pass


async def child_long(items: int) -> dict[str, Any]:
    from zero_model import FixedModel

    from debategraph.eval.analysis.metrics import summarize
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm

    arms = [Arm("du", "du", {"agents": 3, "rounds": 2, "models": FixedModel()})]
    todo = arithmetic_items(items)
    with tempfile.TemporaryDirectory() as out:
        await _run_eval(todo[:20], arms, Path(out, "warm"), dataset="arithmetic", concurrency=64)
        gc.collect()
        hook = RssEvery(1000)
        outcome = await _run_eval(todo, arms, Path(out, "run"), dataset="arithmetic",
                                  concurrency=64, progress=hook)  # fmt: skip
        finalized = rss_mib()
        rows = outcome.summary_rows() if hasattr(outcome, "summary_rows") else outcome.rows
        summary = summarize(rows)
        assert summary["du"]["n"] == items
        summarized = rss_mib()
    return {"rss": hook.rss, "finalized": finalized, "summarized": summarized,
            "peak": peak_rss_mib()}  # fmt: skip


def child(args: argparse.Namespace) -> None:
    os.environ["OPENAI_API_KEY"] = "sk-bench-dummy"
    if args.child == "throughput":
        result = asyncio.run(child_throughput(args.arm, args.url, args.items, args.concurrency))
    elif args.child == "concurrency":
        asyncio.run(child_concurrency(args.url, args.items, args.concurrency, args.seconds))
        return
    else:
        result = asyncio.run(child_long(args.long))
    print(json.dumps(result), flush=True)


# --------------------------------------------------------------------------------------------
# The parent: the server, the interleaved children, the tables
# --------------------------------------------------------------------------------------------


FOREIGN_LIMIT = 0.15
"""Cores the machine's other jobs may use during a measured run; a busier run is repeated."""


def quiet(server: Any, timeout_s: float = 300.0) -> None:
    """Wait (at most ``timeout_s``) for a second in which other jobs use under 0.1 core."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        load = Load(lambda: tree(os.getpid()))
        time.sleep(1.0)
        if load.read()["foreign_cores"] < 0.1:
            return


TRIES = [4]
"""Runs of a measurement at most (``--tries``)."""


def measured(argv: list[str], src: Path, server: Any) -> dict[str, Any]:
    """A child's result from a run the machine's other jobs left alone (or the quietest)."""
    runs = []
    for _ in range(TRIES[0]):
        quiet(server)
        server.reset()
        runs.append(run_child(argv, src, server))
        if runs[-1]["foreign_cores"] <= FOREIGN_LIMIT:
            break
    best = min(runs, key=lambda r: r["foreign_cores"])
    return {**best, "tries": len(runs)}


def run_child(argv: list[str], src: Path, server: Any = None) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1"}
    if server is not None:
        env["SERVER_PID"] = str(server.process.pid)
    command = [sys.executable, str(Path(__file__).resolve()), "--child", *argv]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    first = out = None
    if "concurrency" in argv[:1]:
        marker = json.loads(process.stdout.readline())
        started, out = marker["start"], marker["out"]
        while first is None and process.poll() is None:
            if server.stats()["requests"]:
                first = time.time() - started
            else:
                time.sleep(0.01)
    lines = process.stdout.read().strip().splitlines()
    requests = server.stats()["requests"] if out is not None else 0
    if out is not None:
        shutil.rmtree(out, ignore_errors=True)
    if process.wait() != 0 or not lines:
        raise SystemExit(f"child {argv} failed ({process.returncode})")
    result: dict[str, Any] = json.loads(lines[-1])
    if out is not None:
        result |= {"first_call_s": first, "calls_per_s": requests / result["wall_s"]}
        result["cpu_ms_per_call"] = 1e3 * result["cpu_s"] / requests
    return result


def throughput(url: str, server: Any, items: int, concurrency: int, repeats: int) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {arm: [] for arm in ARMS}
    for repeat in range(repeats):
        order = ARMS[repeat % len(ARMS) :] + ARMS[: repeat % len(ARMS)]
        for arm in order:
            argv = ["throughput", "--arm", arm, "--url", url, "--items", str(items)]
            result = measured([*argv, "--concurrency", str(concurrency)], ROOT / "src", server)
            runs[arm].append(result)
            print(arm, json.dumps(result), flush=True)
    return runs


def concurrency(
    url: str, server: Any, items: int, base: Path, repeats: int, seconds: float
) -> dict[str, Any]:
    trees = {"this": ROOT / "src", "base": base}
    runs: dict[str, list[dict[str, Any]]] = {}
    for repeat in range(repeats):
        for c in CONCURRENCIES:
            for name in list(trees)[repeat % 2 :] + list(trees)[: repeat % 2]:
                argv = ["concurrency", "--url", url, "--items", str(items), "--concurrency", str(c)]
                result = measured([*argv, "--seconds", str(seconds)], trees[name], server)
                runs.setdefault(f"{name} {c}", []).append(result)
                print(name, c, json.dumps(result), flush=True)
    return runs


def long_run(items: int, base: Path) -> dict[str, Any]:
    runs = {}
    for name, src in (("this", ROOT / "src"), ("base", base)):
        runs[name] = run_child(["long", "--long", str(items)], src)
        print(name, json.dumps(runs[name]), flush=True)
    return runs


def med(values: list[float], fmt: str = ".0f") -> str:
    if len(values) == 1:
        return format(values[0], fmt)
    return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}–{max(values):{fmt}})"


def render_throughput(runs: dict[str, list[dict[str, Any]]], items: int, conc: int) -> list[str]:
    one = statistics.median(r["calls_per_s"] for r in runs["local"])
    names = {
        "raw": "raw `openai.AsyncOpenAI` (ideal client)",
        "local": "one process (`--engine local`)",
        "ray1": "Ray, 1 worker",
        "ray2": "Ray, 2 workers",
        "ray4": "Ray, 4 workers",
    }
    lines = [
        f"## 1. Throughput at saturation: {items} items × 9 calls, `--concurrency {conc}`",
        "",
        "| arm | calls/s | × one process | client CPU ms/call | server CPU ms/call "
        "| other jobs, cores |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for arm in ARMS:
        rs = runs[arm]
        rate = [r["calls_per_s"] for r in rs]
        lines.append(
            f"| {names[arm]} | {med(rate)} | {statistics.median(rate) / one:.2f}x | "
            f"{med([r['cpu_ms_per_call'] for r in rs], '.2f')} | "
            f"{med([r['server_ms_per_call'] for r in rs], '.2f')} | "
            f"{med([r['foreign_cores'] for r in rs], '.2f')} |"
        )
    return lines


def render_concurrency(
    runs: dict[str, list[dict[str, Any]]], items: int, seconds: float
) -> list[str]:
    lines = [
        f"## 2. `--concurrency` 64, 256, 1024: one process, the first {seconds:.0f} s of "
        f"{items} items × 9 calls",
        "",
        "| code | `--concurrency` | peak RSS MiB | first call s | calls/s | CPU ms/call "
        "| other jobs, cores |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, label in (("base", "before"), ("this", "this branch")):
        for c in CONCURRENCIES:
            rs = runs[f"{name} {c}"]
            lines.append(
                f"| {label} | {c} | {med([r['peak_rss_mib'] for r in rs])} | "
                f"{med([r['first_call_s'] for r in rs], '.2f')} | "
                f"{med([r['calls_per_s'] for r in rs])} | "
                f"{med([r['cpu_ms_per_call'] for r in rs], '.2f')} | "
                f"{med([r['foreign_cores'] for r in rs], '.2f')} |"
            )
    return lines


def render_long(runs: dict[str, dict[str, Any]], items: int) -> list[str]:
    lines = [
        f"## 3. RSS over {items:,} items (`du` 3×2, zero-latency model, `--concurrency 64`)",
        "",
        "| code | RSS MiB at 0, 1k, ... rows | growth per item, 1k→end | after the final rewrite "
        "| after the summary | peak |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, label in (("base", "before"), ("this", "this branch")):
        r = runs[name]
        rss = r["rss"]
        per_item = 1024 * (rss[-1] - rss[1]) / (1000 * (len(rss) - 2)) if len(rss) > 2 else 0.0
        lines.append(
            f"| {label} | {' · '.join(f'{x:.0f}' for x in rss)} | {per_item:.2f} KiB | "
            f"{r['finalized']:.0f} | {r['summarized']:.0f} | {r['peak']:.0f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--concurrency-items", type=int, default=1100)
    parser.add_argument("--seconds", type=float, default=25.0)
    parser.add_argument("--tries", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--long", type=int, default=10_000)
    parser.add_argument("--base", type=Path, default=Path("/tmp/base/src"))
    parser.add_argument("--sections", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS-scale.md")
    parser.add_argument("--child", choices=["throughput", "concurrency", "long"])
    parser.add_argument("--arm", choices=ARMS)
    parser.add_argument("--url")
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    from tests.openai_server import spawn

    TRIES[0] = args.tries
    results: dict[str, Any] = {}
    with spawn(latency=LATENCY_S) as server:
        if 1 in args.sections:
            results["throughput"] = throughput(
                server.base_url, server, args.items, args.concurrency, args.repeats
            )
        if 2 in args.sections:
            results["concurrency"] = concurrency(
                server.base_url,
                server,
                args.concurrency_items,
                args.base,
                args.repeats,
                args.seconds,
            )
    if 3 in args.sections:
        results["long"] = long_run(args.long, args.base)
    cmd = ("python bench/scale.py " + " ".join(sys.argv[1:])).strip()
    lines = [
        "# Scaling an evaluation",
        "",
        f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs · server: "
        f"`tests/openai_server/`, simulated responder, {LATENCY_S * 1e3:.0f} ms per request, "
        "its own process · medians (range) of interleaved runs.",
        "",
    ]
    if "throughput" in results:
        lines += [*render_throughput(results["throughput"], args.items, args.concurrency), ""]
    if "concurrency" in results:
        lines += [
            *render_concurrency(results["concurrency"], args.concurrency_items, args.seconds),
            "",
        ]
    if "long" in results:
        lines += [*render_long(results["long"], args.long), ""]
    args.out.write_text("\n".join(lines) + "\n" + kept_notes(args.out))
    print("\n".join(lines))


NOTES = "<!-- Notes written by hand below this line; bench/scale.py keeps them. -->"


def kept_notes(path: Path) -> str:
    text = path.read_text() if path.exists() else ""
    return text[text.index(NOTES) :] if NOTES in text else NOTES + "\n"


if __name__ == "__main__":
    main()
