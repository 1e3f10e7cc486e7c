"""How long one model call keeps trying, and what it is waiting for while it does.

A call gives up :func:`give_up_after` seconds after its first attempt began, whatever its
retry policy still allows: its attempts' deadlines are cut to the time left, and a retry
(with its backoff, or a server's ``Retry-After``) that could not start before then is not
made; the call fails with :class:`~debategraph.errors.CallGaveUpError`, which names
the server, the attempts made and the time spent waiting on the server's throttling. So with
the defaults a server that hangs is reported after 240 s, not after six 120 s timeouts.
A call that never reaches its server (refused, unknown host, no route) stops after
:data:`~debategraph.policies.retry.REFUSED_ATTEMPTS` attempts with
:class:`~debategraph.errors.NoConnectionError`, whatever the policy still allows.

While a call waits, it is on the :data:`BOARD` (when somebody watches it: ``debategraph run``
prints what it is waiting for after a few seconds).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from langchain_core.callbacks.manager import dispatch_custom_event

from debategraph.errors import CallGaveUpError, NoConnectionError
from debategraph.models.resolve import server_url
from debategraph.nodes.unreachable import unreachable
from debategraph.policies.retry import (
    REFUSED_ATTEMPTS,
    is_transient,
    never_connected,
    request_url,
    retry_after_s,
    status_of,
)
from debategraph.policies.secrets import redact_url
from debategraph.state.context import DebateContext

GIVE_UP_S = 240.0
"""Seconds after its first attempt began that a call stops trying (with the defaults)."""

LAST_ATTEMPT_S = 1.0
"""An attempt that would have less time than this is not made."""

THROTTLED_EVENT = "debategraph_throttled"
"""Custom callback event with the seconds a call waits on a server's ``Retry-After``."""


def give_up_after(timeout: float | None) -> float:
    """Seconds a call may take in all, attempts and waits included.

    :data:`GIVE_UP_S`, or twice the per-attempt ``timeout`` when that is longer, so that a
    slow model given a long ``--timeout`` still gets a second attempt.
    """
    return GIVE_UP_S if timeout is None else max(GIVE_UP_S, 2 * timeout)


def next_wait_s(policy: Any, attempt: int) -> float | None:
    """The longest wait a retry policy makes after failed attempt ``attempt`` (1-based).

    ``None`` when the policy makes no further attempt (or is not a single ``RetryPolicy``).
    The jitter of LangGraph's policy adds up to a second.
    """
    max_attempts = getattr(policy, "max_attempts", None)
    if not isinstance(max_attempts, int) or attempt >= max_attempts:
        return None
    interval = min(
        float(policy.max_interval),
        float(policy.initial_interval) * float(policy.backoff_factor) ** (attempt - 1),
    )
    return interval + (1.0 if policy.jitter else 0.0)


@dataclass
class Waiting:
    """One call waiting on its model.

    Attributes:
        speaker: The agent or role making the call.
        what: What it waits for: ``"reply"``, or ``"retry-after"`` (the wait a server asked
            for before the next attempt).
        url: The server's URL (credentials removed), if the model has one.
        attempt: The attempt under way (1-based).
        attempts: Attempts the retry policy allows, if known.
        since: When the wait began (``time.monotonic()``).
    """

    speaker: str
    what: str
    url: str | None
    attempt: int
    attempts: int | None
    since: float

    def describe(self, now: float) -> str:
        """One line: what is awaited, from where, for how long, at which attempt."""
        of = f" of {self.attempts}" if self.attempts else ""
        if self.what == "reply":
            where = f" from {self.url}" if self.url else ""
            awaited = f"{self.speaker}'s reply{where} (attempt {self.attempt}{of})"
        else:
            where = f" at {self.url}" if self.url else ""
            awaited = (
                f"the Retry-After the server{where} asked of {self.speaker} "
                f"(after attempt {self.attempt}{of})"
            )
        return f"waiting {now - self.since:.0f} s for {awaited}"


class WaitBoard:
    """The calls of this process that are waiting, while anybody watches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[int, Waiting] = {}
        self._ids = itertools.count()
        self.watchers = 0

    @contextlib.contextmanager
    def waiting(self, entry: Waiting | None) -> Iterator[None]:
        """Put ``entry`` on the board while the block runs (``None``: nobody watches)."""
        if entry is None:
            yield
            return
        key = next(self._ids)
        with self._lock:
            self._entries[key] = entry
        try:
            yield
        finally:
            with self._lock:
                self._entries.pop(key, None)

    def snapshot(self) -> dict[int, Waiting]:
        """The calls waiting now, by entry number."""
        with self._lock:
            return dict(self._entries)


BOARD = WaitBoard()
"""The process's board."""


class Patience:
    """One attempt of one call: its deadline, and what to do when it fails.

    Args:
        runtime: The node's LangGraph runtime (attempt number, first attempt's time).
        ctx: The run's settings (``timeout``).
        model: The speaker's model (its server's URL goes into messages).
        speaker: The agent or role.
        policy: The node's retry policy, if known.
        throttled: Seconds waited on ``Retry-After`` so far, by LangGraph task id (shared by
            the attempts of one call).
    """

    def __init__(
        self,
        runtime: Any,
        ctx: DebateContext,
        model: Any,
        speaker: str,
        policy: Any,
        throttled: dict[str, float],
    ) -> None:
        info = getattr(runtime, "execution_info", None)
        self.attempt: int = info.node_attempt if info is not None else 1
        first = info.node_first_attempt_time if info is not None else None
        self.first: float = first or time.time()
        self.task = info.task_id if info is not None else ""
        self.timeout = ctx.timeout
        self.budget = give_up_after(ctx.timeout)
        self.model, self.speaker, self.policy = model, speaker, policy
        self.throttled = throttled
        self.gives_up = False
        self.last = False  # no further attempt follows this one
        self.throttles = 0  # 429s asked again within this attempt

    def deadline(self) -> float:
        """Seconds this attempt may take: the timeout, cut to the time the call has left."""
        left = max(self.budget - (time.time() - self.first), LAST_ATTEMPT_S)
        return left if self.timeout is None else min(self.timeout, left)

    def waiting(self, what: str) -> Waiting | None:
        """This attempt's entry on the board, waiting for ``what`` (``None``: nobody watches)."""
        if not BOARD.watchers:
            return None
        attempts = getattr(self.policy, "max_attempts", None)
        url = server_url(self.model)
        return Waiting(self.speaker, what, url, self.attempt, attempts, time.monotonic())

    def rate_limited(self, exc: BaseException) -> float | None:
        """Seconds to wait before asking again after an HTTP 429, or ``None``.

        A rate-limited request is asked again within the same attempt, after the server's
        ``Retry-After`` (or the policy's backoff, doubling), for as long as the call's time
        allows: throttling says the server is there and busy, so it uses up none of the
        policy's attempts (six 429s in a row do not fail a call). ``None`` for any other
        failure, or when the wait would run past the call's time (the policy decides then).
        """
        if status_of(exc) != 429:
            return None
        backoff = float(getattr(self.policy, "initial_interval", 1.0)) * 2.0**self.throttles
        ceiling = float(getattr(self.policy, "max_interval", backoff))
        wait = retry_after_s(exc) or min(backoff, ceiling)
        if time.time() - self.first + wait + LAST_ATTEMPT_S >= self.budget:
            return None
        self.throttles += 1
        self.throttled[self.task] = self.throttled.get(self.task, 0.0) + wait
        with contextlib.suppress(RuntimeError):  # outside a runnable nobody listens
            dispatch_custom_event(THROTTLED_EVENT, {"seconds": wait})
        return wait

    def counted(self, update: dict[str, Any]) -> dict[str, Any]:
        """A finished call's update, its turn's ``attempts`` counting the 429s asked again."""
        for turn in update.get("turns", ()):
            turn["attempts"] = turn.get("attempts", 1) + self.throttles
        return update

    def failed(self, exc: BaseException) -> float:
        """Note a failed attempt; returns the seconds of ``Retry-After`` to wait now (or 0).

        Decides whether the call gives up: when the next attempt, after its waits, could not
        start (with :data:`LAST_ATTEMPT_S` to run) before the call's time is up, or when it
        never reached its server in :data:`~debategraph.policies.retry.REFUSED_ATTEMPTS`
        attempts.
        """
        pause = next_wait_s(self.policy, self.attempt) if is_transient(exc) else None
        if self.attempt >= REFUSED_ATTEMPTS and never_connected(exc) is not None:
            pause = None  # a server that is down for this long is not restarting
        if pause is None:
            self.last = True
            self.done()  # no further attempt: the failure stands as it is
            return 0.0
        wait = retry_after_s(exc) or 0.0
        if time.time() - self.first + wait + pause + LAST_ATTEMPT_S >= self.budget:
            self.gives_up = True
            return 0.0
        if wait:
            self.throttled[self.task] = self.throttled.get(self.task, 0.0) + wait
            with contextlib.suppress(RuntimeError):  # outside a runnable nobody listens
                dispatch_custom_event(THROTTLED_EVENT, {"seconds": wait})
        return wait

    def verdict(self, exc: Exception) -> Exception:
        """The error to raise for a failed attempt (after :meth:`failed`).

        :class:`NoConnectionError` when the call's last attempt could not reach its server;
        :class:`CallGaveUpError` when the call gives up; a failed connection that is retried as
        a ``ModelUnreachableError`` naming the server; otherwise ``exc`` itself.
        """
        reason = never_connected(exc)
        if reason is not None and (self.last or self.gives_up):
            return self.no_connection(reason, exc)
        down = unreachable(exc, self.model)
        if not self.gives_up:
            return down or exc
        spent = time.time() - self.first
        waited = self.throttled.get(self.task, 0.0)
        self.done()
        throttled = f", {waited:.0f} s of it on the server's Retry-After" if waited else ""
        last = str(down) if down is not None else f"{type(exc).__name__}: {exc}"
        url = server_url(self.model)
        return CallGaveUpError(
            f"gave up on {self.speaker}'s model call{f' to {url}' if url else ''} after "
            f"{self.attempt} attempt(s) and "
            f"{spent:.0f} s (a call may take {self.budget:g} s in all{throttled}); "
            f"last failure: {' '.join(last.split())}"
        )

    def no_connection(self, reason: str, exc: BaseException) -> NoConnectionError:
        """The error of a call that never reached its server, naming the server and the fix."""
        self.done()
        url = server_url(self.model) or _request_origin(exc)
        spent = time.time() - self.first
        return NoConnectionError(
            f"{self.speaker}'s model call could not connect to "
            f"{url or 'the model server'} ({reason}; {self.attempt} attempt(s) in {spent:.0f} s): "
            "start the server, or fix the URL (--base-url; base_url in Python and in a Studio "
            "context)",
            url=url,
            reason=reason,
        )

    def done(self) -> None:
        """Forget the call's throttling (it succeeded, or will not be tried again)."""
        self.throttled.pop(self.task, None)


def _request_origin(exc: BaseException) -> str | None:
    """The URL a failed request went to, without credentials, query or fragment."""
    url = request_url(exc)
    if url is None:
        return None
    return redact_url(url).split("?", 1)[0].split("#", 1)[0]


@contextlib.contextmanager
def watch_waits(
    write: Callable[[str], None], *, after: float = 5.0, every: float = 30.0
) -> Iterator[None]:
    """Report calls that wait longer than ``after`` seconds (again every ``every`` seconds).

    A daemon thread looks at the board twice a second and writes one line per report.
    """
    stop = threading.Event()
    told: dict[int, float] = {}

    def watch() -> None:
        while not stop.wait(0.5):
            now = time.monotonic()
            entries = BOARD.snapshot()
            for key in [k for k in told if k not in entries]:
                del told[key]
            for key, entry in entries.items():
                due = entry.since + after if key not in told else told[key] + every
                if now >= due:
                    told[key] = now
                    write(entry.describe(now))

    BOARD.watchers += 1
    thread = threading.Thread(target=watch, name="debategraph-waits", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        BOARD.watchers -= 1
        thread.join(timeout=1.0)


P = ParamSpec("P")
T = TypeVar("T")


def watched(
    fn: Callable[P, T], write: Callable[[str], None], *, after: float = 5.0
) -> Callable[P, T]:
    """``fn``, reporting through ``write`` the calls that wait long while it runs."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with watch_waits(write, after=after):
            return fn(*args, **kwargs)

    return run
