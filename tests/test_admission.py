"""When debates start: one at a time, while a call slot is free and the loop keeps up."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from debategraph.eval.run.executors.admission import Admission

NO_LAG_RULE = 1e9  # the slot rule alone: a loaded test machine's lateness cannot move it


async def debate(admission: Admission, *, width: int, rounds: int, call) -> None:
    """A stand-in debate: ``rounds`` rounds of ``width`` calls at once, each ``call()``."""
    start = await admission.turn()
    with admission.running(start):
        for _ in range(rounds):

            async def one() -> None:
                async with admission:
                    await call()

            await asyncio.gather(*(one() for _ in range(width)))


async def run_all(admission: Admission, n: int, **kwargs) -> None:
    await asyncio.gather(*(debate(admission, **kwargs) for _ in range(n)))


def test_slots_are_filled_by_about_concurrency_over_width_debates():
    admission = Admission(12, lag_limit_s=NO_LAG_RULE)
    asyncio.run(run_all(admission, 30, width=3, rounds=2, call=lambda: asyncio.sleep(0.02)))
    assert admission.peak == 12  # every slot was used
    # 12 / 3 = 4 debates fill the slots: a debate between its rounds keeps its three for
    # its next round, so at most one more starts (as one ends), never the 12 (or 30) that
    # would start without admission.
    assert 4 <= admission.most_debates <= 12 // 3 + 1
    assert admission.debates == 0 and admission.in_flight == 0


@pytest.mark.slow
def test_a_late_loop_starts_no_further_debate():
    def busy() -> asyncio.Future[None]:
        time.sleep(0.03)  # the call holds the loop: the loop is late by about that much
        return asyncio.sleep(0)

    late = Admission(12, lag_limit_s=0.02)
    asyncio.run(run_all(late, 12, width=1, rounds=3, call=busy))
    ignored = Admission(12, lag_limit_s=NO_LAG_RULE)
    asyncio.run(run_all(ignored, 12, width=1, rounds=3, call=busy))
    assert late.most_debates <= 3
    assert ignored.most_debates >= 6  # a call slot is free almost all the time


def test_the_first_debate_starts_however_late_the_loop_is():
    admission = Admission(4, lag_limit_s=0.0)  # every measurement is "late"

    async def main() -> None:
        await debate(admission, width=2, rounds=1, call=lambda: asyncio.sleep(0.02))
        await debate(admission, width=2, rounds=1, call=lambda: asyncio.sleep(0.02))

    asyncio.run(main())
    assert admission.most_debates == 1 and admission.peak == 2


def test_turns_come_in_order_and_a_cancelled_wait_leaves_nothing_behind():
    admission = Admission(1, lag_limit_s=NO_LAG_RULE)
    order: list[int] = []

    async def main() -> None:
        first = await admission.turn()
        waiting = [asyncio.create_task(admission.turn()) for _ in range(3)]
        await asyncio.sleep(0.01)
        waiting[1].cancel()
        with admission.running(first):
            pass
        for k in (0, 2):
            with admission.running(await waiting[k]):
                order.append(k)
        assert waiting[1].cancelled()

    asyncio.run(main())
    assert order == [0, 2]
    assert admission.debates == 0 and admission._watcher is None


def test_a_debate_without_calls_lets_the_next_start_after_a_while():
    admission = Admission(8, lag_limit_s=NO_LAG_RULE, settle_s=0.05)
    starts: list[float] = []

    async def cached() -> None:  # a debate whose calls all come from a cache
        start = await admission.turn()
        starts.append(time.perf_counter())
        with admission.running(start):
            await asyncio.sleep(0.5)

    async def main() -> None:
        await asyncio.gather(*(cached() for _ in range(3)))

    asyncio.run(main())
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    # Each waits the settling time, and starts long before the one before it ends (0.5 s).
    assert len(starts) == 3 and all(0.04 <= gap < 0.45 for gap in gaps)
