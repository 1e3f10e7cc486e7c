"""An evaluation under injected provider faults, against a fault-free run of the same items.

The loopback OpenAI-compatible server (``tests/openai_server/``) runs in its own process
with a fixed latency and the simulated responder (it answers like the offline debaters, and
the same request always gets the same reply). ``run_eval`` runs ``du`` (3 agents, 1 debate
round, models ``sim-0``..``sim-2`` served over HTTP through ``ChatOpenAI``) on arithmetic
items at a concurrency bound, twice, into fresh directories:

1. fault-free;
2. with ``--fault-rate`` of the chat requests faulted, spread over the retryable fault kinds
   the server offers (see ``FAULT_MIX``); ``hang`` ends by the request timeout.

Recorded per run: wall time, items/s, requests the server received vs calls kept in the rows,
retries, failed items, the runner's peak in-flight calls vs the bound, the server's peak of
concurrent requests, the eval process's peak RSS, and the wasted tokens the rows record. Then
the rows of the two runs are compared with the spend fields (``wall_s``, ``requests``,
``failed_requests``, ``wasted_*``) left out: they must be equal. Failed rows of the faulted
run, if any, are run again by calling ``run_eval`` on the same directory (it resumes).

Usage: PYTHONPATH=src python bench/faults.py [--items 500] [--concurrency 64]
       [--fault-rate 0.05] [--latency 0.05] [--timeout 3] [--out bench/RESULTS-faults.md]

The fault map (``bench/fault_map.py``): each fault of issue 30 and the tests that hold it,
run, with their pass counts (tests not written yet are reported as missing):

       PYTHONPATH=src python bench/faults.py --tests [--list] [--out FILE]

Every token on the bill (``bench/spend_faults.py``): the server's requests and tokens
against rows plus ledger after a SIGKILL storm (local and Ray), a full cache disk, failing
debates' other calls, Ctrl-C and the spend guard:

       PYTHONPATH=src python bench/faults.py --spend [--no-ray] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from tests.openai_server import estimate_tokens, message_text, spawn

from debategraph.eval.datasets import arithmetic_items
from debategraph.eval.run.runner import Arm, EvalOutcome, EvalPlan, run_eval
from debategraph.nodes.patience import GIVE_UP_S
from debategraph.nodes.retry import DEFAULT_ATTEMPTS, DEFAULT_BACKOFF_S, MAX_INTERVAL_S

FAULT_MIX = {
    "http500": 0.20,
    "http429": 0.20,
    "malformed": 0.15,
    "reset": 0.15,
    "no_choices": 0.10,
    "empty": 0.10,
    "hang": 0.10,
}
"""Share of each fault kind among the faulted requests (retryable kinds only)."""

RETRY_AFTER_S = 0.2
"""``Retry-After`` announced by the ``http429`` fault."""

SPEND_FIELDS = (
    "wall_s",
    "requests",
    "failed_requests",
    "wasted_input_tokens",
    "wasted_output_tokens",
)
"""Row fields that differ between runs by design (timing and what retries cost)."""

MAX_RESUMES = 3
"""Most extra passes over failed rows of the faulted run."""


def fault_rates(total: float) -> dict[str, float]:
    return {kind: round(total * share, 6) for kind, share in FAULT_MIX.items()}


def arm(base_url: str, timeout: float) -> Arm:
    settings = {
        "agents": 3,
        "rounds": 1,
        "models": ["sim-0", "sim-1", "sim-2"],
        "base_url": base_url,
        "timeout": timeout,
    }
    return Arm("du", "du", settings)


def _status_kib(field: str) -> int | None:
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) of this process; False where unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_rss_mib() -> float:
    """VmHWM (peak RSS since the last reset), else ru_maxrss (peak since the start)."""
    hwm = _status_kib("VmHWM")
    if hwm is not None:
        return hwm / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def server_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (Linux ``/proc``; 0.0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


QUESTION_RE = re.compile(r"What is the result of [^?]*\?")


def faults_by_item(log: list[dict[str, Any]], ids_of: dict[str, str]) -> dict[str, Counter[str]]:
    """Fault kinds per item id, read from the server's request log (question text)."""
    out: dict[str, Counter[str]] = {}
    for record in log:
        if not record.get("fault") or not isinstance(record.get("body"), dict):
            continue
        text = json.dumps(record["body"].get("messages"))
        match = QUESTION_RE.search(text)
        item = ids_of.get(match.group(0)) if match else None
        out.setdefault(item or "?", Counter())[record["fault"]] += 1
    return out


CUT_SHORT = "This reply is cut short on purpose."
"""The content the server puts in ``no_choices`` replies' usage (see ``Server._chat``)."""


def billed_on_faults(log: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Tokens the server's usage reported on faulted replies the client could read.

    ``empty`` and ``no_choices`` replies are well-formed JSON with a ``usage`` object
    (prompt tokens estimated from the messages; completion tokens of the fault content).
    Returns ``kind -> [input, output]``.
    """
    out: dict[str, list[int]] = {}
    for record in log:
        kind = record.get("fault")
        if kind not in ("empty", "no_choices") or not isinstance(record.get("body"), dict):
            continue
        messages = record["body"].get("messages") or []
        n_in = sum(estimate_tokens(message_text(m.get("content"))) for m in messages)
        n_out = estimate_tokens(CUT_SHORT) if kind == "no_choices" else 0
        total = out.setdefault(kind, [0, 0])
        total[0] += n_in
        total[1] += n_out
    return out


async def one_run(
    items: list[Any],
    the_arm: Arm,
    out: Path,
    server: Any,
    concurrency: int,
    rates: dict[str, float],
) -> dict[str, Any]:
    """One eval into ``out``; failed rows are run again (resumed), up to MAX_RESUMES times."""
    server.reset()  # counters, request log; fault draws re-seeded
    server.configure(clear_faults=True, fault_rates=rates)
    rss_start = (_status_kib("VmRSS") or 0) / 1024
    reset_peak_rss()
    cpu0, server_cpu0 = own_cpu_s(), server_cpu_s(server.process.pid)
    passes: list[dict[str, Any]] = []
    start = time.perf_counter()
    outcome: EvalOutcome | None = None
    for _ in range(1 + MAX_RESUMES):
        t0 = time.perf_counter()
        plan = EvalPlan(dataset="arithmetic", out_dir=Path(out), concurrency=concurrency)
        outcome = await run_eval(items, [the_arm], plan)
        passes.append(
            {
                "wall_s": time.perf_counter() - t0,
                "resumed": outcome.resumed,
                "written": outcome.written,
                "failed": outcome.failed,
                "errors": [(r["id"], r["error"]) for r in outcome.rows if "error" in r],
                "peak_in_flight": outcome.peak_in_flight,
            }
        )
        if not outcome.failed:
            break
    wall = time.perf_counter() - start
    cpu, server_cpu = own_cpu_s() - cpu0, server_cpu_s(server.process.pid) - server_cpu0
    peak_rss = peak_rss_mib()
    assert outcome is not None
    stats = server.stats(log=True)
    rows = outcome.rows
    lines = [json.loads(x) for x in outcome.path.read_text().splitlines() if x.strip()]
    ok_rows = [row for row in rows if "error" not in row]
    walls = sorted(row["wall_s"] for row in ok_rows)
    wall_of = {row["id"]: row["wall_s"] for row in ok_rows}
    hit = faults_by_item(stats["log"], {item.question: item.id for item in items})
    by_kind: dict[str, list[float]] = {}
    for item_id, kinds in hit.items():
        for kind in kinds:
            by_kind.setdefault(kind, []).append(wall_of.get(item_id, float("nan")))
    untouched = [w for i, w in wall_of.items() if i not in hit]
    return {
        "wall_s": wall,
        "first_pass_wall_s": passes[0]["wall_s"],
        "passes": passes,
        "rows": rows,
        "file_lines": len(lines),
        "unique_keys": len({(row["method"], row["id"]) for row in lines}),
        "items_per_s": len(items) / passes[0]["wall_s"],
        "server_requests": stats["chat_requests"],
        "server_completed": stats["completed"],
        "server_faulted": stats["faulted"],
        "server_faults": stats["faults"],
        "server_errors": stats["errors"],
        "server_peak_in_flight": stats["peak_in_flight"],
        "server_peak_connections": stats["peak_connections"],
        "server_connections": stats["connections"],
        "log_len": len(stats["log"]),
        "calls": sum(row.get("calls", 0) for row in rows),
        "row_requests": sum(row.get("requests", 0) for row in rows),
        "row_failed_requests": sum(row.get("failed_requests", 0) for row in rows),
        "wasted_input": sum(row.get("wasted_input_tokens", 0) for row in rows),
        "wasted_output": sum(row.get("wasted_output_tokens", 0) for row in rows),
        "used_tokens": sum(
            row.get("input_tokens", 0) + row.get("output_tokens", 0) for row in rows
        ),
        "failed_items": passes[0]["failed"],
        "final_failed": outcome.failed,
        "peak_in_flight": max(p["peak_in_flight"] for p in passes),
        "rss_start_mib": rss_start,
        "peak_rss_mib": peak_rss,
        "cpu_s": cpu,
        "server_cpu_s": server_cpu,
        "billed_on_faults": billed_on_faults(stats["log"]),
        "items_hit": len(hit),
        "unmatched_faults": sum(hit.get("?", Counter()).values()),
        "kind_items": {k: len(v) for k, v in by_kind.items()},
        "kind_wall_mean": {k: statistics.fmean(v) for k, v in by_kind.items()},
        "kind_wall_max": {k: max(v) for k, v in by_kind.items()},
        "untouched_wall_mean": statistics.fmean(untouched) if untouched else 0.0,
        "hit_wall_mean": statistics.fmean([wall_of[i] for i in hit if i in wall_of] or [0.0]),
        "item_wall_p50": statistics.median(walls) if walls else 0.0,
        "item_wall_p99": walls[int(0.99 * (len(walls) - 1))] if walls else 0.0,
        "item_wall_max": walls[-1] if walls else 0.0,
    }


def comparable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in SPEND_FIELDS}


def compare(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
    """Rows of two runs, keyed by (method, id), with the spend fields left out."""
    ka = {(r["method"], r["id"]): comparable(r) for r in a}
    kb = {(r["method"], r["id"]): comparable(r) for r in b}
    differ = sorted(k for k in ka.keys() & kb.keys() if ka[k] != kb[k])
    fields = Counter(
        f for k in differ for f in set(ka[k]) | set(kb[k]) if ka[k].get(f) != kb[k].get(f)
    )
    return {
        "same_order": [(r["method"], r["id"]) for r in a] == [(r["method"], r["id"]) for r in b],
        "only_a": len(ka.keys() - kb.keys()),
        "only_b": len(kb.keys() - ka.keys()),
        "differ": len(differ),
        "differ_ids": [k[1] for k in differ[:10]],
        "differ_fields": dict(fields),
        "answers_equal": all(
            ka[k].get("answer") == kb[k].get("answer") for k in ka.keys() & kb.keys()
        ),
    }


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    os.environ["OPENAI_API_KEY"] = "sk-bench-dummy"
    items = arithmetic_items(args.items)
    rates = fault_rates(args.fault_rate)
    with (
        spawn(latency=args.latency, retry_after=RETRY_AFTER_S, fault_seed=13) as server,
        tempfile.TemporaryDirectory(prefix="faultbench-") as tmp,
    ):
        the_arm = arm(server.base_url, args.timeout)
        # warm up: imports, graph compile, client pool
        warm = EvalPlan(
            dataset="arithmetic", out_dir=Path(tmp, "warm"), concurrency=args.concurrency
        )
        await run_eval(arithmetic_items(20), [the_arm], warm)
        clean = await one_run(items, the_arm, Path(tmp, "clean"), server, args.concurrency, {})
        faulted = await one_run(
            items, the_arm, Path(tmp, "faulted"), server, args.concurrency, rates
        )
    return {
        "items": args.items,
        "concurrency": args.concurrency,
        "latency": args.latency,
        "timeout": args.timeout,
        "fault_rate": args.fault_rate,
        "rates": rates,
        "clean": clean,
        "faulted": faulted,
        "compare": compare(clean["rows"], faulted["rows"]),
        "ru_maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


WHAT_CLIENT_SEES = {
    "http500": "HTTP 500 `server_error`",
    "http429": f"HTTP 429 with `Retry-After: {RETRY_AFTER_S:g}`",
    "malformed": "200 with the JSON body cut in half",
    "reset": "200 header, half the body, then a TCP reset",
    "no_choices": "200 with a completion without `choices`",
    "empty": "200 with empty content",
    "hang": "request read, never answered (ends by the client's timeout)",
}


def _n(x: float) -> str:
    return f"{x:,.0f}"


def retry_waits() -> list[float]:
    """The default policy's waits before attempts 2..N, jitter left out (LangGraph's formula)."""
    return [min(DEFAULT_BACKOFF_S * 2.0**k, MAX_INTERVAL_S) for k in range(DEFAULT_ATTEMPTS - 1)]


def retry_defaults() -> str:
    """The retry defaults in words, from the constants the runs used."""
    waits = ", ".join(f"{w:g}" for w in retry_waits())
    return (
        f"{DEFAULT_ATTEMPTS} attempts, waits of {waits} s (doubling from "
        f"{DEFAULT_BACKOFF_S:g} s, capped at {MAX_INTERVAL_S:g} s), each plus LangGraph's "
        f"jitter of up to 1 s, and a call gives up {GIVE_UP_S:g} s after its first attempt "
        "began, waits included (`debategraph.nodes.patience`)"
    )


def reading(r: dict[str, Any]) -> list[str]:
    """What the figures say: throughput, backoff, accounting (computed, so reruns keep it)."""
    c, f, k = r["clean"], r["faulted"], r["concurrency"]
    retries = f["server_requests"] - f["calls"]
    ideal = c["calls"] / k * r["latency"]
    extra = f["first_pass_wall_s"] - c["first_pass_wall_s"]
    ms_per_call = 1e3 * c["cpu_s"] / max(c["server_requests"], 1)
    billed = f["billed_on_faults"]
    empty, no_choices = billed.get("empty", [0, 0]), billed.get("no_choices", [0, 0])
    n_empty = f["server_faults"].get("empty", 0)
    n_no_choices = f["server_faults"].get("no_choices", 0)
    peak = max(c["peak_in_flight"], f["peak_in_flight"])
    return [
        "## Reading",
        "",
        "- Throughput. Both runs are bound by the eval process's CPU, not by the "
        f"{r['latency'] * 1e3:g} ms latency: it spent {c['cpu_s']:.1f} CPU s in "
        f"{c['first_pass_wall_s']:.1f} s of run 1 "
        f"(about {ms_per_call:.1f} ms per request in LangGraph, LangChain, `openai`/`httpx` "
        f"and the runner), against a latency-bound ideal of {c['calls']:,} calls / {k} × "
        f"{r['latency'] * 1e3:g} ms = {ideal:.1f} s. The limiter's slot covers the whole call, "
        "client-side work included, so all "
        f"{c['peak_in_flight']} slots were taken while the server saw at most "
        f"{max(c['server_peak_in_flight'], f['server_peak_in_flight'])} requests at once. "
        f"The bound {'held' if peak <= k else 'was EXCEEDED'}: peak {peak}, bound {k}.",
        f"- Backoff. Each of the {retries} retries waited {retry_waits()[0]:g}–"
        f"{retry_waits()[0] + 1:g} s (before a second attempt), {retry_waits()[1]:g}–"
        f"{retry_waits()[1] + 1:g} s (before a third) and so on: `MODEL_RETRY` "
        "with LangGraph's jitter; a 429 adds its "
        f"{RETRY_AFTER_S:g} s `Retry-After` before that, a hang the {r['timeout']:g} s "
        f"timeout. That is at least {retries} s of waiting in all. Per item the waits show: an "
        f"item with a fault took {f['hit_wall_mean']:.2f} s on average against "
        f"{f['untouched_wall_mean']:.2f} s without, and the hung items "
        f"{f['kind_wall_mean'].get('hang', float('nan')):.2f} s. For the run they mostly "
        "overlap with other items' calls (a waiting item holds one of the "
        f"{k} item workers but no call slot), so the run took {extra:+.1f} s "
        f"({extra / c['first_pass_wall_s']:+.0%}) over the fault-free one: mostly the tail, "
        f"the last items' retry chains (longest item {f['item_wall_max']:.1f} s against "
        f"{c['item_wall_max']:.1f} s fault-free). Items without a fault were faster than in "
        "the fault-free run, likely because waiting items leave the CPU to the others. With fewer "
        "items than workers, or a faster client, the waits would be a larger share of the "
        "wall time.",
        f"- Accounting. Requests counted by the rows' `SpendMeter` ({f['row_requests']:,}) "
        f"equal the requests the server received ({f['server_requests']:,}). "
        f"`failed_requests` ({f['row_failed_requests']:,}) is {retries - f['row_failed_requests']}"
        f" short of the retries: the {n_empty} `empty` replies arrive as successful replies "
        "(LangChain's `on_llm_end`) and are rejected afterwards by the call node "
        "(`UnusableReplyError`), so they count as requests but not as failed ones, and "
        f"their tokens are the rows' wasted tokens ({f['wasted_input']:,} input, equal to the "
        f"server's usage on them, {empty[0]:,}). The {n_no_choices} `no_choices` replies "
        f"also carried usage ({no_choices[0]:,} input / {no_choices[1]:,} output tokens) but "
        "fail inside `langchain_openai` before `on_llm_end`, so no row records those tokens; "
        "the cut `malformed` and `reset` bodies cannot be read at all.",
    ]


def render(r: dict[str, Any], cmd: str) -> str:
    c, f, cmp = r["clean"], r["faulted"], r["compare"]
    n, k = r["items"], r["concurrency"]
    calls_per_item = c["calls"] / n if n else 0
    out = [
        "# Evaluation under provider faults",
        "",
        f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, 2 CPU cores shared with other engineers' jobs · one run.",
        "",
        f"Workload: {n:,} arithmetic items (`arithmetic_items({n})`), `du` with 3 agents and "
        f"1 debate round ({calls_per_item:g} model calls per item), models `sim-0`, `sim-1`, "
        "`sim-2` served over HTTP by the loopback OpenAI-compatible server "
        "(`tests/openai_server/`, started with `spawn` in its own process, simulated "
        f"responder, {r['latency'] * 1e3:g} ms latency per request) and reached through "
        f"`ChatOpenAI` (`base_url`, `timeout={r['timeout']:g}` s, the library's "
        f"`max_retries=0`), `run_eval` with `concurrency={k}`. A 20-item warm-up ran first. "
        "Each run writes into a fresh directory; the server's counters are reset between runs.",
        "",
        "Retries are the call nodes' LangGraph `RetryPolicy` (`MODEL_RETRY`, the defaults "
        f"of `debategraph.nodes.retry`): {retry_defaults()}; a `Retry-After` header is "
        "slept first. Failed rows would be run again by calling `run_eval` on the same "
        f"directory (resume), up to {MAX_RESUMES} times.",
        "",
        f"## Fault mix ({r['fault_rate']:.0%} of chat requests)",
        "",
        "Drawn per request by the server's seeded generator (`fault_seed=13`); which request "
        "gets a fault depends on arrival order, so the counts vary a little between runs.",
        "",
        "| kind | rate | what the client gets | faulted requests in run 2 |",
        "|---|---:|---|---:|",
    ]
    for kind, rate in r["rates"].items():
        out.append(
            f"| `{kind}` | {rate:.2%} | {WHAT_CLIENT_SEES[kind]} | "
            f"{f['server_faults'].get(kind, 0)} |"
        )
    out += [
        f"| total | {sum(r['rates'].values()):.2%} | | {f['server_faulted']} |",
        "",
        "## Runs",
        "",
        "| | run 1: fault-free | run 2: faults |",
        "|---|---:|---:|",
    ]

    def line(label: str, a: str, b: str) -> None:
        out.append(f"| {label} | {a} | {b} |")

    line("wall s (first pass)", f"{c['first_pass_wall_s']:.1f}", f"{f['first_pass_wall_s']:.1f}")
    line("items/s", f"{c['items_per_s']:.1f}", f"{f['items_per_s']:.1f}")
    line("requests the server received", _n(c["server_requests"]), _n(f["server_requests"]))
    line("calls kept (sum of rows' `calls`)", _n(c["calls"]), _n(f["calls"]))
    line(
        "retries (requests − calls)",
        _n(c["server_requests"] - c["calls"]),
        _n(f["server_requests"] - f["calls"]),
    )
    line("requests recorded in rows (`requests`)", _n(c["row_requests"]), _n(f["row_requests"]))
    line(
        "failed requests recorded in rows (`failed_requests`)",
        _n(c["row_failed_requests"]),
        _n(f["row_failed_requests"]),
    )
    line(
        "wasted tokens in rows (input / output)",
        f"{c['wasted_input']} / {c['wasted_output']}",
        f"{f['wasted_input']} / {f['wasted_output']}",
    )
    line(
        "failed items (rows with `error`), first pass",
        str(c["failed_items"]),
        str(f["failed_items"]),
    )
    line("resume passes needed", str(len(c["passes"]) - 1), str(len(f["passes"]) - 1))
    line(
        "rows in the file / unique (method, id)",
        f"{c['file_lines']} / {c['unique_keys']}",
        f"{f['file_lines']} / {f['unique_keys']}",
    )
    line(
        f"peak in-flight calls (runner's limiter) vs bound {k}",
        f"{c['peak_in_flight']} / {k}",
        f"{f['peak_in_flight']} / {k}",
    )
    line(
        "server's peak concurrent requests",
        str(c["server_peak_in_flight"]),
        str(f["server_peak_in_flight"]),
    )
    line(
        "server's peak open connections / new connections",
        f"{c['server_peak_connections']} / {c['server_connections']}",
        f"{f['server_peak_connections']} / {f['server_connections']}",
    )
    line(
        "eval process RSS at start → peak, MiB",
        f"{c['rss_start_mib']:.0f} → {c['peak_rss_mib']:.0f}",
        f"{f['rss_start_mib']:.0f} → {f['peak_rss_mib']:.0f}",
    )
    line(
        "CPU s: eval process / server process",
        f"{c['cpu_s']:.1f} / {c['server_cpu_s']:.1f}",
        f"{f['cpu_s']:.1f} / {f['server_cpu_s']:.1f}",
    )
    line(
        "item wall s: median / p99 / max",
        f"{c['item_wall_p50']:.2f} / {c['item_wall_p99']:.2f} / {c['item_wall_max']:.2f}",
        f"{f['item_wall_p50']:.2f} / {f['item_wall_p99']:.2f} / {f['item_wall_max']:.2f}",
    )
    billed = f["billed_on_faults"]
    billed_text = ", ".join(f"`{kind}` {v[0]:,} / {v[1]:,}" for kind, v in sorted(billed.items()))
    out += [
        "",
        "Usage (input / output tokens) that the server reported on faulted replies the client "
        f"could parse, run 2: {billed_text or 'none'}; the rows record "
        f"{f['wasted_input']:,} / {f['wasted_output']:,} wasted.",
    ]
    out += [
        "",
        f"ru_maxrss of the eval process at the end: {r['ru_maxrss_mib']:.0f} MiB. Peak RSS per "
        "run is the kernel's VmHWM, reset (`/proc/self/clear_refs`) before each run.",
        "",
        "### Items hit by faults (run 2)",
        "",
        f"{f['items_hit']} of {n} items had at least one faulted request (matched to items by "
        "the question in the request, from the server's request log). Mean item wall time "
        f"of the items without a fault: {f['untouched_wall_mean']:.2f} s; with one or more: "
        f"{f['hit_wall_mean']:.2f} s.",
        "",
        "| kind | items hit | their mean wall s | their max wall s |",
        "|---|---:|---:|---:|",
    ]
    for kind in r["rates"]:
        if kind in f["kind_items"]:
            out.append(
                f"| `{kind}` | {f['kind_items'][kind]} | {f['kind_wall_mean'][kind]:.2f} | "
                f"{f['kind_wall_max'][kind]:.2f} |"
            )
    out += ["", "## Rows: fault-free vs faulted", ""]
    dropped = ", ".join(f"`{x}`" for x in SPEND_FIELDS)
    verdict = (
        "**equal**"
        if not (cmp["differ"] or cmp["only_a"] or cmp["only_b"]) and cmp["same_order"]
        else "**not equal**"
    )
    out.append(
        f"With {dropped} left out, the {len(c['rows'])} rows of run 1 and the "
        f"{len(f['rows'])} rows of run 2 are {verdict}: {cmp['differ']} rows differ, "
        f"{cmp['only_a']} only in run 1, {cmp['only_b']} only in run 2, same plan order: "
        f"{'yes' if cmp['same_order'] else 'no'}; answers equal: "
        f"{'yes' if cmp['answers_equal'] else 'no'}. Rows carry no per-turn fields "
        "(`attempts` lives on the turns, which rows do not store), so nothing else is dropped."
    )
    if cmp["differ"]:
        out.append("")
        out.append(f"Differing fields: {cmp['differ_fields']}; items: {cmp['differ_ids']}.")
    out += ["", *reading(r)]
    for label, run in (("run 1", c), ("run 2", f)):
        for k_pass, ps in enumerate(run["passes"]):
            for item_id, error in ps["errors"]:
                out.append("")
                out.append(f"- {label}, pass {k_pass + 1}: `{item_id}` failed: `{error}`")
    out += ["", *fault_map_section()]
    out.append("")
    return "\n".join(out)


def fault_map_section() -> list[str]:
    """What the fault map checks and where its figures go (``--tests``)."""
    from fault_map import FAULTS

    out = [
        "## Fault map",
        "",
        "Each fault of issue 30 is held by tests, named in `bench/fault_map.py` by patterns "
        "over the suite's node ids; `python bench/faults.py --tests --out "
        "bench/RESULTS-faults-map.md` collects the suite, runs the tests each fault selects "
        "and writes their pass counts there (a fault no test selects yet is `missing`).",
        "",
        "| # | must hold |",
        "|---|---|",
    ]
    out += [f"| {fault.key} | {fault.what} |" for fault in FAULTS]
    return out


def main() -> None:
    if "--tests" in sys.argv[1:]:
        from fault_map import main as fault_map

        fault_map([a for a in sys.argv[1:] if a != "--tests"])
        return
    if "--spend" in sys.argv[1:]:
        from spend_faults import main as spend_faults

        spend_faults([a for a in sys.argv[1:] if a != "--spend"])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--fault-rate", type=float, default=0.05)
    parser.add_argument("--latency", type=float, default=0.05, help="server seconds per request")
    parser.add_argument("--timeout", type=float, default=3.0, help="client request timeout, s")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "RESULTS-faults.md")
    parser.add_argument("--json", type=Path, help="also dump the raw figures here")
    args = parser.parse_args()
    result = asyncio.run(bench(args))
    if args.json:
        dump = {k: v for k, v in result.items() if k not in ("clean", "faulted")}
        for run in ("clean", "faulted"):
            dump[run] = {k: v for k, v in result[run].items() if k != "rows"}
        args.json.write_text(json.dumps(dump, indent=1))
    cmd = ("python bench/faults.py " + " ".join(sys.argv[1:])).strip()
    text = render(result, cmd)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
