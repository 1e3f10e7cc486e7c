"""When the next debate may start: only when it can use a call slot and the process keeps up.

Starting every item at once costs memory and delays the first call (with ``--concurrency
1024`` each debate's setup runs before any call leaves), and past the point where the
process's CPU is the bound, more debates only wait longer. :class:`Admission` is the run's
call limiter and also decides when the next debate starts. A debate starts when

* it is the first (the run never stalls), or
* fewer than ``concurrency`` debates run (today's bound, never exceeded), and
* the last debate started has made its first model call (or ``settle_s`` passed, for a
  debate whose calls are all cached), so starts go one at a time and are counted, and
* a call slot is free: the calls in flight or waiting for a slot, and those that running
  debates between two rounds will make (as many as each had at once), are fewer than
  ``concurrency``; so about ``concurrency`` / (calls per round) debates fill every slot, and
* the event loop keeps up: a timer set ``lag_period_s`` ago fired less than ``lag_limit_s``
  late. A loop that is late has more ready work than it can run, so another debate would
  add memory and delay, not calls per second.

Waiting debates are started in the order they asked (a FIFO queue, one wake-up each).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from debategraph.nodes.call import CallLimiter

LAG_LIMIT_S = 0.02
"""How late the loop's timer may fire before no further debate starts."""

LAG_PERIOD_S = 0.01
"""How often the loop's lateness is measured."""

SETTLE_S = 0.05
"""How long a starting debate may go without a model call before the next one starts."""


@dataclass
class Turn:
    """A started debate (one item's arms) and its model calls.

    Attributes:
        at: When it started (the loop's clock).
        calls: Its calls in flight or waiting for a slot.
        width: The most it had at once (0 before its first call).
        done: Whether it has ended.
    """

    at: float
    calls: int = 0
    width: int = 0
    done: bool = False


_CURRENT: contextvars.ContextVar[Turn | None] = contextvars.ContextVar(
    "debategraph_admission_start", default=None
)


class Admission(CallLimiter):
    """The call limiter of a run's process that also starts its debates (module docs).

    Args:
        limit: Most model calls in flight at once, and most debates at once.
        lag_limit_s: See :data:`LAG_LIMIT_S`.
        settle_s: See :data:`SETTLE_S`.

    Attributes:
        debates: Debates (items) in progress.
        most_debates: The most that were in progress at once.
        lag_s: How late the loop's timer fired at its last measurement.
    """

    def __init__(
        self, limit: int, *, lag_limit_s: float = LAG_LIMIT_S, settle_s: float = SETTLE_S
    ) -> None:
        super().__init__(limit)
        self.lag_limit_s = lag_limit_s
        self.settle_s = settle_s
        self.debates = 0
        self.most_debates = 0
        self.lag_s = 0.0
        self.waiting = 0
        self._starting: Turn | None = None
        self._between = 0  # calls that running debates between two rounds will make
        self._queue: deque[asyncio.Future[Turn]] = deque()
        self._watcher: asyncio.Task[None] | None = None

    async def __aenter__(self) -> None:
        turn = _CURRENT.get()
        if turn is not None:
            self._called(turn)
        self.waiting += 1
        try:
            await super().__aenter__()
        except BaseException:
            if turn is not None:
                self._answered(turn)
            raise
        finally:
            self.waiting -= 1
        self._pump()

    async def __aexit__(self, *exc: object) -> None:
        await super().__aexit__(*exc)
        turn = _CURRENT.get()
        if turn is not None:
            self._answered(turn)
        self._pump()

    def _called(self, turn: Turn) -> None:
        if turn is self._starting:
            self._starting = None
        if turn.calls == 0 and not turn.done:
            self._between -= turn.width
        turn.calls += 1
        turn.width = max(turn.width, turn.calls)

    def _answered(self, turn: Turn) -> None:
        turn.calls -= 1
        if turn.calls == 0 and not turn.done:
            self._between += turn.width

    async def turn(self) -> Turn:
        """Wait for the next debate's turn to start (FIFO); it counts as running from now.

        Run the debate inside :meth:`running` with what this returns.
        """
        if self._watcher is None:
            self.lag_s = 0.0
            self._watcher = asyncio.create_task(self._watch())
        if not self._queue and self._may_start():
            return self._begin()
        turn: asyncio.Future[Turn] = asyncio.get_running_loop().create_future()
        self._queue.append(turn)
        try:
            return await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._finish(turn.result())  # its turn came as it was cancelled
            else:
                with contextlib.suppress(ValueError):  # unless the pump skipped it already
                    self._queue.remove(turn)
                self._idle()
            raise

    @contextlib.contextmanager
    def running(self, start: Turn) -> Iterator[None]:
        """The block of a started debate, which stops running when the block ends.

        The model calls made in the block (in this task and the tasks it starts) are the
        debate's: its first lets the next debate start.
        """
        token = _CURRENT.set(start)
        try:
            yield
        finally:
            _CURRENT.reset(token)
            self._finish(start)

    def close(self) -> None:
        """Stop measuring the loop (the run is over, or cancelled)."""
        if self._watcher is not None:
            self._watcher.cancel()
            self._watcher = None

    def _may_start(self) -> bool:
        if self.debates == 0:
            return True
        wanted = self.in_flight + self.waiting + self._between
        if self.debates >= self.limit or wanted >= self.limit:
            return False
        if self._starting is not None:
            loop = asyncio.get_running_loop()
            if loop.time() - self._starting.at < self.settle_s:
                return False
        return self.lag_s < self.lag_limit_s

    def _begin(self) -> Turn:
        self.debates += 1
        self.most_debates = max(self.most_debates, self.debates)
        self._starting = Turn(asyncio.get_running_loop().time())
        return self._starting

    def _finish(self, start: Turn) -> None:
        self.debates -= 1
        start.done = True
        if start.calls == 0:
            self._between -= start.width
        if start is self._starting:
            self._starting = None
        self._pump()
        self._idle()

    def _idle(self) -> None:
        """Stop measuring the loop when no debate runs or waits."""
        if self.debates == 0 and not self._queue:
            self.close()

    def _pump(self) -> None:
        """Start the longest-waiting debates while they may start."""
        while self._queue and self._may_start():
            turn = self._queue.popleft()
            if not turn.done():  # not cancelled while it waited
                turn.set_result(self._begin())

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(LAG_PERIOD_S)
            self.lag_s = max(0.0, loop.time() - before - LAG_PERIOD_S)
            self._pump()
