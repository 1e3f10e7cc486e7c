"""The Ray driver's side of a run cut short, with a stand-in ``ray`` module (no cluster)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from types import SimpleNamespace
from typing import Any

import pytest

from debategraph.eval.datasets.items import Item
from debategraph.eval.run.cut_short import CUT_SHORT, SPEND_NOTES, WORKER_NOTES, WorkerNotes
from debategraph.eval.run.executors import ray as ray_executor
from debategraph.eval.run.executors.base import Job, Work
from debategraph.eval.run.executors.ray import SETTLE_S, RayExecutor


def finished(item: str) -> dict[str, Any]:
    """A finished row: 120 + 7 paid input tokens (used and wasted), 12 output, 3 requests."""
    return {"method": "du", "id": item, "seed": 2, "answer": "4", "correct": True,
            "input_tokens": 120, "output_tokens": 12, "calls": 2, "round_answers": [],
            "requests": 3, "failed_requests": 1, "wasted_input_tokens": 7,
            "wasted_output_tokens": 0}  # fmt: skip


def failed(item: str, inputs: int, outputs: int) -> dict[str, Any]:
    return {"method": "du", "id": item, "error": "APIError: boom", "requests": 2,
            "failed_requests": 1, "wasted_input_tokens": inputs,
            "wasted_output_tokens": outputs}  # fmt: skip


class Clock:
    """A monotonic clock that moves only when a stand-in wait says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


class FakeRay:
    """What the driver calls of ``ray``: cancel, wait (on a fake clock) and get."""

    class exceptions:  # the name the driver reads
        class RayActorError(Exception):
            pass

        class RayTaskError(Exception):
            pass

    def __init__(self, clock: Clock, results: dict[str, Any], ready: set[str], took: float):
        self.clock = clock
        self.results = results
        self.ready = ready
        self.took = took
        self.cancelled: list[str] = []
        self.waits: list[float] = []

    def cancel(self, ref: str) -> None:
        self.cancelled.append(ref)

    def wait(self, refs: list[str], *, num_returns: int, timeout: float) -> tuple[list, list]:
        self.waits.append(timeout)
        self.clock.now += min(self.took, timeout)
        done = [ref for ref in refs if ref in self.ready]
        return done, [ref for ref in refs if ref not in self.ready]

    def get(self, ref: str, timeout: float | None = None) -> Any:
        return self.results[ref]


class Asks:
    """An actor method stand-in: ``remote()`` hands back the given reference."""

    def __init__(self, ref: str) -> None:
        self.ref = ref

    def remote(self, *args: Any) -> str:
        return self.ref


@pytest.fixture
def sink():
    noted: list[dict[str, Any]] = []
    token = CUT_SHORT.set(noted)
    yield noted
    CUT_SHORT.reset(token)


def test_settle_notes_a_unit_that_finished_unread_and_the_workers_notes(
    sink, monkeypatch, tmp_path
):
    clock = Clock()
    monkeypatch.setattr(ray_executor, "time", clock)
    noted_on_worker = {"method": "du", "id": "q9", "input_tokens": 11, "output_tokens": 1,
                       "requests": 1, "failed_requests": 0}  # fmt: skip
    untaken = {"method": "du", "id": "q3", "attempt": "a1", "n": 4, "input_tokens": 7}
    written = {"method": "du", "id": "q4", "attempt": "a2", "n": 1, "input_tokens": 9}
    results = {
        "unit-a": ([finished("q1"), failed("q2", 40, 5)], 3, 77),
        "ask-0": ([noted_on_worker], ([untaken], [written])),
    }
    ray = FakeRay(clock, results, ready={"unit-a", "ask-0"}, took=3.0)
    executor = RayExecutor()
    futures = [concurrent.futures.Future(), concurrent.futures.Future()]
    executor._in_flight = dict(zip(futures, ["unit-a", "unit-b"], strict=True))
    notes: list[dict[str, Any]] = []
    counted: list[dict[str, Any]] = []
    token = SPEND_NOTES.set(notes.append)
    place = WORKER_NOTES.set(WorkerNotes(tmp_path, seen=counted.append))
    try:
        executor._settle(ray, [SimpleNamespace(spent=Asks("ask-0"))])
    finally:
        WORKER_NOTES.reset(place)
        SPEND_NOTES.reset(token)
    assert notes == [untaken]  # the worker's notes not yet taken reach the note file
    assert counted == [written]  # one it wrote itself: counted by the guard, not written again
    assert ray.cancelled == ["unit-a", "unit-b"]
    assert all(f.cancelled() for f in futures) and executor._in_flight == {}
    assert sink == [
        {"method": "du", "id": "q1", "seed": 2, "input_tokens": 127, "output_tokens": 12,
         "requests": 3, "failed_requests": 1},
        {"method": "du", "id": "q2", "input_tokens": 40, "output_tokens": 5, "requests": 2,
         "failed_requests": 1},
        noted_on_worker,
    ]  # fmt: skip
    # One deadline for both waits: the units took 3 s of it, the notes get what is left.
    assert ray.waits == [SETTLE_S, SETTLE_S - 3.0]


def test_settle_waits_no_more_once_the_units_used_the_whole_deadline(sink, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(ray_executor, "time", clock)
    ray = FakeRay(clock, {}, ready=set(), took=SETTLE_S)
    executor = RayExecutor()
    executor._in_flight = {concurrent.futures.Future(): "unit-a"}
    executor._settle(ray, [SimpleNamespace(spent=Asks("ask-0"))])
    assert ray.waits == [SETTLE_S, 0.0] and sink == []


class Unit:
    """A unit's object reference whose result is already in."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.done: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.done.set_result((rows, 2, 77))

    def future(self) -> concurrent.futures.Future[Any]:
        return self.done


def test_a_deliver_that_stops_the_run_mid_unit_notes_the_units_unwritten_rows(sink):
    rows = [finished("q1"), failed("q2", 30, 3), failed("q3", 20, 2), finished("q4")]
    delivered: list[str] = []

    def deliver(row: dict[str, Any]) -> None:
        if row["id"] == "q2":
            raise RuntimeError("the run stops here")  # the breaker notes this row itself
        delivered.append(row["id"])

    clock = Clock()
    ray = FakeRay(clock, {}, ready=set(), took=0.0)
    actor = SimpleNamespace(run=SimpleNamespace(remote=lambda unit: Unit(rows)))
    job = Job((), "arithmetic", 1)
    work = iter([Work(Item("q1", "2 + 2?", "4"), ("du",))])
    executor = RayExecutor()
    with pytest.raises(RuntimeError, match="the run stops here"):
        asyncio.run(executor._dispatch(ray, [actor], [job], work, deliver))
    assert delivered == ["q1"]
    assert sink == [
        {"method": "du", "id": "q3", "input_tokens": 20, "output_tokens": 2, "requests": 2,
         "failed_requests": 1},
        {"method": "du", "id": "q4", "seed": 2, "input_tokens": 127, "output_tokens": 12,
         "requests": 3, "failed_requests": 1},
    ]  # fmt: skip


class Taker:
    """A worker's ``take_notes`` stand-in: each take hands over (and forgets) one note.

    The answer comes when the test resolves it (``answer``), at once, or never (``stuck``).
    """

    def __init__(self, name: str, *, stuck: bool = False, at_once: bool = False) -> None:
        self.name = name
        self.stuck = stuck
        self.at_once = at_once
        self.asked: list[concurrent.futures.Future[Any]] = []
        self.take_notes = self

    def remote(self) -> Any:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        note = ([{"attempt": self.name, "n": len(self.asked) + 1}], [])
        self.asked.append(future)
        if self.at_once:
            future.set_result(note)
        elif not self.stuck:
            self.pending = (future, note)
        return SimpleNamespace(future=lambda: future)

    def answer(self) -> None:
        future, note = self.pending
        future.set_result(note)


async def until(check, limit_s: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + limit_s
    while not check() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    assert check()


def test_stopping_the_takes_mid_take_keeps_the_notes_on_their_way():
    async def scenario() -> list[dict[str, Any]]:
        taken: list[dict[str, Any]] = []
        worker = Taker("a")
        stop = asyncio.Event()
        taking = asyncio.ensure_future(ray_executor._take_notes([worker], taken.append, None, stop))
        await until(lambda: len(worker.asked) == 1)  # the worker forgot the note it sends
        stopping = asyncio.ensure_future(ray_executor._stop_taking(taking, stop))
        await asyncio.sleep(0.05)
        worker.answer()
        await stopping
        return taken

    assert asyncio.run(scenario()) == [{"attempt": "a", "n": 1}]


def test_a_worker_that_never_answers_delays_no_other_workers_takes():
    async def scenario() -> tuple[int, int]:
        taken: list[dict[str, Any]] = []
        stuck, quick = Taker("stuck", stuck=True), Taker("quick", at_once=True)
        stop = asyncio.Event()
        taking = asyncio.ensure_future(
            ray_executor._take_notes([stuck, quick], taken.append, None, stop)
        )
        await until(lambda: len(taken) >= 3)
        taking.cancel()
        return len(stuck.asked), len(taken)

    asked, taken = asyncio.run(scenario())
    assert asked == 1 and taken >= 3


def test_a_unit_its_worker_cancelled_is_a_failed_row_not_the_end_of_the_run():
    from debategraph.eval.run.runner import Arm

    class Cancelled(Exception):
        pass

    ray = FakeRay(Clock(), {}, ready=set(), took=0.0)
    ray.exceptions = type("exceptions", (FakeRay.exceptions,), {"TaskCancelledError": Cancelled})

    def cancelled(unit: Work) -> Any:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        future.set_exception(Cancelled("task cancelled"))
        return SimpleNamespace(future=lambda: future)

    actor = SimpleNamespace(run=SimpleNamespace(remote=cancelled))
    job = Job((Arm("du", "du", {"models": "simulated"}),), "arithmetic", 1)
    work = iter([Work(Item("q1", "2 + 2?", "4"), ("du",))])
    delivered: list[dict[str, Any]] = []
    asyncio.run(RayExecutor()._dispatch(ray, [actor], [job], work, delivered.append))
    assert [(r["id"], r["error"].split(":")[0]) for r in delivered] == [("q1", "WorkerStopped")]
    assert delivered[0]["error"].endswith("run the same command again to retry it")


def test_a_worker_whose_driver_takes_again_is_no_longer_orphaned():
    worker = ray_executor._Worker(Job((), "arithmetic", 1), {"node": "elsewhere", "pid": 1})
    worker.orphaned = True  # no take for ORPHAN_S: a stalled driver, taken for gone
    worker.notes.append({"attempt": "a", "n": 1})
    assert asyncio.run(worker.take_notes()) == ([{"attempt": "a", "n": 1}], [])
    assert not worker.orphaned and worker.notes == []
