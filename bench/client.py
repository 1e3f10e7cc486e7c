"""Client CPU per model call against a local OpenAI-compatible server, raw vs ours.

The server (``tests/openai_server/``) runs in its own process and answers every request at
once with the same fixed solution, so this process's CPU time is the client side alone. The
same requests (the messages of ``du`` debates, 3 agents, 2 debate rounds, captured from the
engine) go through:

(a) the raw ``openai.AsyncOpenAI`` client (``chat.completions.create``);
(b) ``ChatOpenAI`` as ``debategraph.models.resolve`` builds it for ``--base-url``;
(c) the whole engine: ``du`` debates with ``model=<name>, base_url=<server>``;
(d) the engine alone: the same debates on an in-process model that returns the same text.

(c) − (d) is what the client stack costs inside the engine; against (b) it shows whether the
engine adds to it (a client or binding made per call, blocking work on the loop). Every arm
connects as a debate round does (3 calls at once), so the connection pools match. CPU time is
``time.process_time`` of this process per request, with the heap frozen out of the garbage
collector after start-up (``gc.freeze``, as the command line does); each arm runs
sequentially (one request in flight) and with 16 in flight (debates run concurrently),
interleaved, medians.

With ``--calls`` it counts instead of timing: the Python function calls (cProfile) per
request of (b), (c) and (d), one request in flight, a measure the machine's load does not
move.

Usage: PYTHONPATH=src python bench/client.py [--debates 40] [--repeats 5]
       [--out bench/RESULTS-client.md]
       PYTHONPATH=src python bench/client.py --calls [--debates 30]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import openai
from langchain_core.messages import BaseMessage, HumanMessage
from tests.openai_server import spawn
from zero_model import REPLY, FixedModel

import debategraph as dg
from debategraph.models.resolve import resolve_model

HERE = Path(__file__).resolve().parent
QUESTIONS = [
    f"What is the result of {a}+{b}*{c}+{d}-{e}*{f}?"
    for a, b, c, d, e, f in (
        (3, 4, 5, 6, 7, 2),
        (12, 7, 3, 9, 2, 8),
        (5, 5, 5, 5, 5, 5),
        (21, 3, 4, 1, 6, 2),
    )
]
MODEL = "bench-model"


class Recording(FixedModel):
    """The fixed-reply model, keeping the messages of every call."""

    seen: ClassVar[list[list[BaseMessage]]] = []

    async def _agenerate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        Recording.seen.append(list(messages))
        return await super()._agenerate(messages, *args, **kwargs)


def capture(debates: int) -> list[list[BaseMessage]]:
    Recording.seen = []
    model = Recording()
    for i in range(debates):
        dg.run(QUESTIONS[i % len(QUESTIONS)], method="du", agents=3, rounds=2, models=model)
    return Recording.seen


def as_dicts(messages: list[BaseMessage]) -> list[dict[str, str]]:
    roles = {"human": "user", "ai": "assistant", "system": "system"}
    return [{"role": roles[m.type], "content": str(m.content)} for m in messages]


async def bounded(jobs: list[Callable[[], Awaitable[Any]]], in_flight: int) -> None:
    gate = asyncio.Semaphore(in_flight)

    async def one(job: Callable[[], Awaitable[Any]]) -> None:
        async with gate:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))


async def raw_arm(url: str, requests: list[list[BaseMessage]], in_flight: int) -> float:
    client = openai.AsyncOpenAI(base_url=url, api_key="sk-bench", max_retries=0)
    payloads = [as_dicts(m) for m in requests]
    # Connect as a debate round does: its 3 agents' calls at once (3 pooled connections).
    await asyncio.gather(
        *(client.chat.completions.create(model=MODEL, messages=payloads[0]) for _ in range(3))
    )

    def job(p: list[dict[str, str]]) -> Callable[[], Awaitable[Any]]:
        async def call() -> None:
            reply = await client.chat.completions.create(model=MODEL, messages=p)
            assert reply.choices[0].message.content

        return call

    start = time.process_time()
    await bounded([job(p) for p in payloads], in_flight)
    cpu = time.process_time() - start
    await client.close()
    return cpu / len(payloads)


async def chatopenai_arm(url: str, requests: list[list[BaseMessage]], in_flight: int) -> float:
    model = resolve_model(MODEL, base_url=url)
    # Connect as a debate round does: its 3 agents' calls at once (3 pooled connections).
    await asyncio.gather(*(model.ainvoke([HumanMessage("warm up")]) for _ in range(3)))

    def job(m: list[BaseMessage]) -> Callable[[], Awaitable[Any]]:
        async def call() -> None:
            reply = await model.ainvoke(m)
            assert reply.text

        return call

    start = time.process_time()
    await bounded([job(m) for m in requests], in_flight)
    return (time.process_time() - start) / len(requests)


async def engine_arm(model: Any, url: str | None, debates: int, in_flight: int) -> float:
    settings: dict[str, Any] = {"method": "du", "agents": 3, "rounds": 2, "models": model}
    if url is not None:
        settings["base_url"] = url
    await dg.arun(QUESTIONS[0], **settings)  # warm up: graph, client, connections
    limiter = dg.CallLimiter(in_flight)
    calls = 0

    def job(i: int) -> Callable[[], Awaitable[Any]]:
        async def debate() -> None:
            nonlocal calls
            result = await dg.arun(QUESTIONS[i % len(QUESTIONS)], call_limiter=limiter, **settings)
            calls += result.usage["calls"]

        return debate

    start = time.process_time()
    await bounded([job(i) for i in range(debates)], in_flight)
    return (time.process_time() - start) / calls


def measure(debates: int, repeats: int) -> dict[tuple[str, int], list[float]]:
    requests = capture(debates)
    # As the command line does: the libraries' objects are frozen out of the collector, so a
    # full collection (tens of ms) does not land in whichever arm crosses its threshold.
    gc.collect()
    gc.freeze()
    results: dict[tuple[str, int], list[float]] = {}
    with spawn(responder=[REPLY]) as server:
        url = server.base_url
        for _ in range(repeats):
            for k in (1, 16):
                arms: dict[str, Awaitable[float]] = {
                    "raw": raw_arm(url, requests, k),
                    "chatopenai": chatopenai_arm(url, requests, k),
                    "engine+openai": engine_arm(MODEL, url, debates, k),
                    "engine+fixed": engine_arm(FixedModel(), None, debates, k),
                }
                for name, arm in arms.items():
                    results.setdefault((name, k), []).append(asyncio.run(arm))
    return results


def call_counts(debates: int) -> None:
    """Print the Python function calls per request of (b), (c) and (d) (cProfile counts)."""
    import cProfile
    import pstats

    requests = capture(debates)
    counts: dict[str, float] = {}
    with spawn(responder=[REPLY]) as server:
        url = server.base_url
        arms: dict[str, Callable[[], Awaitable[float]]] = {
            "b": lambda: chatopenai_arm(url, requests, 1),
            "c": lambda: engine_arm(MODEL, url, debates, 1),
            "d": lambda: engine_arm(FixedModel(), None, debates, 1),
        }
        for name, arm in arms.items():
            asyncio.run(arm())  # warm up
            profile = cProfile.Profile()
            profile.enable()
            asyncio.run(arm())
            profile.disable()
            stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
            counts[name] = sum(row[1] for row in stats.values()) / len(requests)
    print(f"Python function calls per request, one in flight, {len(requests)} requests:")
    print(f"  (b) ChatOpenAI: {counts['b']:,.0f}")
    print(f"  (c) engine on the server: {counts['c']:,.0f}")
    print(f"  (d) engine on a fixed model: {counts['d']:,.0f}")
    print(f"  (c) - (d) - (b): {counts['c'] - counts['d'] - counts['b']:+,.0f}")


def render(results: dict[tuple[str, int], list[float]], cmd: str, debates: int, reps: int) -> str:
    med = {k: statistics.median(v) * 1e3 for k, v in results.items()}
    lines = [
        "# Client CPU per model call",
        "",
        f"Command: `{cmd}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, 2 cores shared with other jobs · openai {openai.__version__} · "
        f"{debates} `du` debates (3 agents, 2 rounds: {debates * 9} calls) per arm, medians "
        f"of {reps} interleaved runs of this process's CPU time.",
        "",
        "Server: `tests/openai_server.spawn(responder=[fixed solution])`, its own process, no "
        "latency. (a)/(b) send the engine's own messages of those debates.",
        "",
        "| arm | CPU ms/call, 1 in flight | CPU ms/call, 16 in flight |",
        "|---|---:|---:|",
    ]
    names = {
        "raw": "(a) raw `openai.AsyncOpenAI`",
        "chatopenai": "(b) `ChatOpenAI` as resolved by debategraph",
        "engine+openai": "(c) engine, `du` on the server",
        "engine+fixed": "(d) engine, `du` on an in-process fixed model",
    }
    for key, label in names.items():
        lines.append(f"| {label} | {med[(key, 1)]:.2f} | {med[(key, 16)]:.2f} |")
    lines += ["", "| derived | 1 in flight | 16 in flight |", "|---|---:|---:|"]
    for label, f in (
        ("LangChain over raw: (b) − (a)", lambda k: med[("chatopenai", k)] - med[("raw", k)]),
        (
            "client stack inside the engine: (c) − (d)",
            lambda k: med[("engine+openai", k)] - med[("engine+fixed", k)],
        ),
        (
            "engine's addition to the client: (c) − (d) − (b)",
            lambda k: med[("engine+openai", k)] - med[("engine+fixed", k)] - med[("chatopenai", k)],
        ),
    ):
        lines.append(f"| {label} | {f(1):.2f} | {f(16):.2f} |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--debates", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS-client.md")
    parser.add_argument("--calls", action="store_true", help="count function calls instead")
    args = parser.parse_args()
    if args.calls:
        call_counts(args.debates)
        return
    results = measure(args.debates, args.repeats)
    cmd = ("PYTHONPATH=src python bench/client.py " + " ".join(sys.argv[1:])).strip()
    text = render(results, cmd, args.debates, args.repeats)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
