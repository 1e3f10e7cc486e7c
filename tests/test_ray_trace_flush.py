"""Ray workers send their last LangSmith traces before the driver lets them go.

The driver's side runs with a stand-in ``ray`` module on a fake clock (no cluster); the end
to end checks run ``eval`` against the loopback LangSmith stand-in
(tests/langsmith_stand_in.py) and read the runs out of the trace batches it received.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import zstandard
from langchain_core.runnables import RunnableLambda
from langsmith import run_trees
from langsmith.utils import get_env_var

from debategraph import __version__
from debategraph.eval.datasets.items import Item
from debategraph.eval.run.executors import ray as ray_executor
from debategraph.eval.run.executors.base import Job, Work
from debategraph.eval.run.executors.ray import FLUSH_S, SETTLE_S, RayExecutor
from debategraph.tracing_guard import flush_traces
from tests.langsmith_stand_in import StandIn, serving

KEY = "lsv2_pt_FlushKeyHeronOtter"


class Clock:
    """A monotonic clock that moves only when a stand-in wait says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


class Ref:
    """An object reference whose result is already in (or never comes)."""

    def __init__(self, name: str, result: Any = None, *, answers: bool = True) -> None:
        self.name = name
        self.done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        if answers:
            self.done.set_result(result)

    def future(self) -> concurrent.futures.Future[Any]:
        return self.done


class Method:
    """An actor method stand-in: ``remote()`` notes the call and hands back a reference."""

    def __init__(self, events: list[Any], name: str, make: Any) -> None:
        self.events = events
        self.name = name
        self.make = make

    def remote(self, *args: Any) -> Ref:
        self.events.append((self.name, *args))
        return self.make(*args)


class Actor:
    """A worker stand-in: says whether it traces, runs units, answers a flush (or not)."""

    def __init__(self, events: list[Any], k: int, *, traces: bool, answers: bool) -> None:
        said = {"pid": 70 + k, "node": "127.0.0.1", "version": __version__, "traces": traces}
        self.hello = Method(events, f"hello-{k}", lambda: Ref("hello", said))
        self.run = Method(events, f"run-{k}", lambda unit: Ref("unit", ([], 1, 70 + k)))
        self.flush_traces = Method(
            events, f"flush-{k}", lambda timeout: Ref(f"flushed-{k}", True, answers=answers)
        )


class FakeRay:
    """What ``RayExecutor.run`` calls of ``ray`` on a cluster it did not start."""

    class exceptions:  # the names the driver reads
        class RayActorError(Exception):
            pass

        class RayTaskError(Exception):
            pass

    def __init__(self, clock: Clock, events: list[Any], actors: list[Actor]) -> None:
        self.clock = clock
        self.events = events
        self.actors = iter(actors)

    util = SimpleNamespace(get_node_ip_address=lambda: "127.0.0.1")

    def is_initialized(self) -> bool:
        return True  # connected already: the driver kills its actors rather than disconnect

    def remote(self, cls: type) -> Any:
        def options(**_: Any) -> Any:
            return SimpleNamespace(remote=lambda share, driver, notes_at: next(self.actors))

        return SimpleNamespace(options=options)

    def wait(self, refs: list[Ref], *, num_returns: int, timeout: float) -> tuple[list, list]:
        self.events.append(("wait", [r.name for r in refs], timeout))
        done = [r for r in refs if r.done.done()]
        if len(done) < len(refs):
            self.clock.now += timeout  # one that does not answer costs the whole wait
        return done, [r for r in refs if r not in done]

    def cancel(self, ref: Ref) -> None:
        self.events.append(("cancel", ref.name))

    def kill(self, actor: Actor) -> None:
        self.events.append(("kill", actor.flush_traces.name))


def run_on(
    monkeypatch, actors: list[Actor], events: list[Any], items: int = 2, deliver: Any = None
) -> RayExecutor:
    clock = Clock()
    monkeypatch.setattr(ray_executor, "time", clock)
    fake = FakeRay(clock, events, actors)
    monkeypatch.setattr(ray_executor, "_ray", lambda: fake)
    executor = RayExecutor(workers=len(actors))
    job = Job((), "arithmetic", len(actors))
    work = iter([Work(Item(f"q{n}", "2 + 2?", "4"), ("du",)) for n in range(items)])
    asyncio.run(executor.run(job, work, deliver or (lambda row: None)))
    return executor


def let_go(events: list[Any]) -> list[Any]:
    """What happened once the units were done: the asks, the wait and the kills."""
    first = next(n for n, e in enumerate(events) if e[0].startswith(("flush", "cancel", "kill")))
    return events[first:]


def test_each_tracing_worker_is_asked_to_flush_before_it_is_let_go(monkeypatch):
    events: list[Any] = []
    actors = [Actor(events, k, traces=k != 1, answers=True) for k in range(3)]
    executor = run_on(monkeypatch, actors, events)
    assert [w["traces"] for w in executor.started] == [True, False, True]
    assert let_go(events) == [
        ("flush-0", FLUSH_S),
        ("flush-2", FLUSH_S),  # the worker that does not trace is not asked
        ("wait", ["flushed-0", "flushed-2"], FLUSH_S),
        ("kill", "flush-0"),
        ("kill", "flush-1"),
        ("kill", "flush-2"),
    ]


def test_workers_that_do_not_answer_hold_the_run_one_flush_wait_in_all(monkeypatch):
    events: list[Any] = []
    actors = [Actor(events, k, traces=True, answers=False) for k in range(2)]
    run_on(monkeypatch, actors, events)
    waits = [e for e in events if e[0] == "wait"]
    assert waits == [("wait", ["flushed-0", "flushed-1"], FLUSH_S)]  # one wait, not one each
    assert let_go(events)[-2:] == [("kill", "flush-0"), ("kill", "flush-1")]


def test_a_run_cut_short_flushes_after_its_units_settle(monkeypatch):
    """The cancelled debates end their runs too: the flush comes after, with its own wait."""
    events: list[Any] = []
    actors = [Actor(events, 0, traces=True, answers=True)]

    def unit(work: Work) -> Ref:
        first = work.item.id == "q0"
        return Ref(work.item.id, ([{"id": work.item.id}], 1, 70), answers=first)

    def deliver(row: dict[str, Any]) -> None:
        raise RuntimeError("the run stops here")

    actors[0].run = Method(events, "run-0", unit)
    with pytest.raises(RuntimeError, match="the run stops here"):
        run_on(monkeypatch, actors, events, deliver=deliver)
    assert let_go(events) == [
        ("cancel", "q1"),
        ("wait", ["q1"], SETTLE_S),  # q1 never ends: the settling takes all of its time
        ("flush-0", FLUSH_S),
        ("wait", ["flushed-0"], FLUSH_S),
        ("kill", "flush-0"),
    ]


def test_untraced_workers_are_asked_nothing(monkeypatch):
    events: list[Any] = []
    actors = [Actor(events, k, traces=False, answers=True) for k in range(2)]
    run_on(monkeypatch, actors, events)
    assert let_go(events) == [("kill", "flush-0"), ("kill", "flush-1")]


def test_flush_traces_without_tracing_does_nothing(clean_langsmith):
    assert flush_traces(1.0) is False


def test_flush_traces_sends_what_the_client_holds(loopback, clean_langsmith, monkeypatch):
    with serving(StandIn(200)) as server:
        monkeypatch.setenv("LANGSMITH_TRACING", "true")
        monkeypatch.setenv("LANGSMITH_ENDPOINT", server.url)
        monkeypatch.setenv("LANGSMITH_API_KEY", KEY)
        get_env_var.cache_clear()
        monkeypatch.setattr(run_trees, "_CLIENT", None)  # this test's own client
        RunnableLambda(lambda x: x + 1).invoke(2, {"tags": ["item:q7"]})  # LangChain traces it
        assert flush_traces(5.0) is True
        sent = traced_items(server)
    assert sent == {"q7"}


# End to end: `eval` as a process against the stand-in.


def traced_items(server: StandIn) -> set[str]:
    """The item tags of the runs in every trace batch the stand-in received."""
    items: set[str] = set()
    for path, encoding, body in server.bodies:
        if not path.startswith(("/runs/multipart", "/runs/batch")):
            continue
        if encoding == "zstd":
            body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
        items |= {m.decode() for m in re.findall(rb'"item:([^"]+)"', body)}
    return items


def ended_runs(server: StandIn) -> tuple[int, int]:
    """How many runs the batches started (``post``) and ended (``patch``), multipart only."""
    started = ended = 0
    for path, encoding, body in server.bodies:
        if encoding == "zstd":
            body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
        if path.startswith("/runs/multipart"):
            started += len(re.findall(rb'name="post\.[0-9a-f-]+"', body))
            ended += len(re.findall(rb'name="patch\.[0-9a-f-]+"', body))
    return started, ended


@pytest.mark.slow
@pytest.mark.parametrize(
    "engine",
    ["local", pytest.param("ray", marks=pytest.mark.ray)],
)
def test_a_short_traced_eval_sends_the_runs_of_every_item(tmp_path, engine):
    """Two items: a Ray worker let go at once used to take its only batch with it."""
    if engine == "ray":
        pytest.importorskip("ray")
    out = tmp_path / "run"
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "2", "--agents"]
    args += ["2", "--rounds", "1", "--quiet", "--out", str(out), "--engine", engine]
    args += ["--workers", "1"] if engine == "ray" else []
    with serving(StandIn(200)) as server:
        env = {"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": server.url}
        done = subprocess.run(
            [sys.executable, "-m", "debategraph", *args],
            env={**os.environ, **env, "LANGSMITH_API_KEY": KEY},
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in Path(out, "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    assert traced_items(server) == {row["id"] for row in rows}
    started, ended = ended_runs(server)
    assert started > 0 and ended == started  # every run sent, and sent ended


def test_the_docs_give_the_flush_wait():
    docs = Path(__file__).resolve().parents[1] / "docs" / "evaluation.md"
    flat = " ".join(docs.read_text(encoding="utf-8").split())
    assert f"what it still holds and waits up to {FLUSH_S:g} s in all" in flat
