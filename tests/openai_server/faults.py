"""The fault layer: which request goes wrong, and how."""

from __future__ import annotations

import random
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tests.openai_server.responders import ChatRequest

FAULTS = (
    "http500",
    "http429",
    "http400",
    "http401",
    "http404",
    "hang",
    "reset",
    "malformed",
    "no_choices",
    "empty",
    "huge",
    "non_utf8",
    "trickle",
    "no_finish",
)
"""Fault kinds, applied to chat-completions requests only."""


NO_FAULT = ("ok", "none")
"""Names that stand for "no fault" in a fault script (``None`` does too)."""


def _check_kind(kind: str | None) -> str | None:
    if kind is None or kind in NO_FAULT:
        return None
    if kind not in FAULTS:
        raise ValueError(f"unknown fault {kind!r}; faults: {', '.join(FAULTS)}")
    return kind


class FaultPlan:
    """Which fault, if any, the next chat request gets. Safe to use from any thread.

    A scripted queue goes first (one entry per request, ``None``/``"ok"`` for no fault); when
    it is empty, an optional ``picker(request) -> kind | None``; then the random rates, drawn
    from a generator seeded with ``seed`` (one draw per request).

    Args:
        script: Faults for the next requests, in order.
        rates: Probability of each fault kind per request (their sum at most 1).
        seed: Seed of the random draws.
        picker: A function choosing a fault from the :class:`ChatRequest`.
    """

    def __init__(
        self,
        script: Sequence[str | None] = (),
        rates: Mapping[str, float] | None = None,
        seed: int = 0,
        picker: Callable[[ChatRequest], str | None] | None = None,
    ):
        self._lock = threading.Lock()
        self._queue: deque[str | None] = deque()
        self._rates: dict[str, float] = {}
        self.seed = seed
        self.picker = picker
        self._rng = random.Random(seed)
        self.push(*script)
        self.rates = dict(rates or {})

    @property
    def pending(self) -> list[str | None]:
        """The scripted faults not yet applied."""
        with self._lock:
            return list(self._queue)

    @property
    def rates(self) -> dict[str, float]:
        """Probability of each fault kind per request."""
        with self._lock:
            return dict(self._rates)

    @rates.setter
    def rates(self, rates: Mapping[str, float]) -> None:
        checked = {_check_kind(k): float(p) for k, p in rates.items()}
        if None in checked or any(not 0 <= p <= 1 for p in checked.values()):
            raise ValueError(f"fault rates must name faults and lie in [0, 1]: {dict(rates)}")
        if sum(checked.values()) > 1 + 1e-9:
            raise ValueError(f"fault rates sum to more than 1: {dict(rates)}")
        with self._lock:
            self._rates = {k: p for k, p in checked.items() if k is not None and p > 0}

    def push(self, *kinds: str | None) -> None:
        """Queue faults for the next requests (``None`` or ``"ok"``: a request without fault)."""
        checked = [_check_kind(k) for k in kinds]
        with self._lock:
            self._queue.extend(checked)

    def clear(self) -> None:
        """Drop the queue, the rates and the picker; re-seed the random draws."""
        with self._lock:
            self._queue.clear()
            self._rates = {}
            self._rng = random.Random(self.seed)
        self.picker = None

    def next_for(self, request: ChatRequest) -> str | None:
        """The fault of this request (and consume it)."""
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.picker is not None:
            picked = _check_kind(self.picker(request))
            if picked is not None:
                return picked
        with self._lock:
            if not self._rates:
                return None
            draw, edge = self._rng.random(), 0.0
            for kind, p in self._rates.items():
                edge += p
                if draw < edge:
                    return kind
        return None

    def snapshot(self) -> dict[str, Any]:
        """The queue and rates, as JSON."""
        return {"script": self.pending, "rates": self.rates, "seed": self.seed}


@dataclass(frozen=True)
class FaultEffect:
    """What a fault does to a response.

    Attributes:
        kind: The fault.
        status: HTTP status (200 for the faults that hide inside a success).
        error: OpenAI error object, for the HTTP error faults.
        headers: Extra header fields (``Retry-After``).
        content: Content that replaces the responder's (``empty``, ``huge``).
        sabotage: ``"hang"``, ``"reset"``, ``"malformed"``, ``"no_choices"``, ``"non_utf8"``
            (the reply's bytes are not UTF-8), ``"trickle"`` (the body arrives one byte per
            ``trickle_delay`` seconds) or ``"no_finish"`` (the reply has no finish reason: a
            stream ends, usage and ``[DONE]`` included, without its finish chunk; a whole
            reply says ``"finish_reason": null``): the wire itself is broken.
    """

    kind: str
    status: int = 200
    error: dict[str, Any] | None = None
    headers: tuple[tuple[str, str], ...] = ()
    content: str | None = None
    sabotage: str | None = None


def openai_error(
    message: str, type_: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """An error body shaped like OpenAI's."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def bearer_token(headers: Mapping[str, str]) -> str:
    """The API key a request carries (``Authorization: Bearer ...`` or ``api-key``)."""
    auth = headers.get("authorization", "")
    return auth[7:] if auth[:7].lower() == "bearer " else headers.get("api-key", auth)


_HUGE_SENTENCE = "Each intermediate value follows from the previous line, and so on. "


def huge_text(size: int) -> str:
    """About ``size`` bytes of plain prose."""
    return (_HUGE_SENTENCE * (size // len(_HUGE_SENTENCE) + 1))[:size]


def fault_effect(
    kind: str,
    request: ChatRequest,
    *,
    retry_after: float = 1.0,
    echo_secrets: bool = False,
    huge_bytes: int = 1_000_000,
) -> FaultEffect:
    """Describe what fault ``kind`` does to ``request``.

    Args:
        kind: One of :data:`FAULTS`.
        request: The faulted request.
        retry_after: Seconds announced by ``http429`` in ``Retry-After``.
        echo_secrets: Put the request's API key in error messages, like a careless provider.
        huge_bytes: Size of the ``huge`` content.
    """
    key = bearer_token(request.headers)
    leak = f" (request sent Authorization: Bearer {key})" if echo_secrets and key else ""
    model = request.model
    if kind == "http500":
        error = openai_error(
            "The server had an error while processing your request. Sorry about that!" + leak,
            "server_error",
        )
        return FaultEffect(kind, 500, error)
    if kind == "http429":
        error = openai_error(
            f"Rate limit reached for {model} on requests per min (RPM): Limit 3, Used 3, "
            f"Requested 1. Please try again in {retry_after:g}s.{leak}",
            "requests",
            "rate_limit_exceeded",
        )
        return FaultEffect(kind, 429, error, (("Retry-After", f"{retry_after:g}"),))
    if kind == "http400":
        error = openai_error(
            f"Invalid value for 'messages': the request was rejected.{leak}",
            "invalid_request_error",
            param="messages",
        )
        return FaultEffect(kind, 400, error)
    if kind == "http401":
        shown = key if echo_secrets else "(hidden)"
        error = openai_error(
            f"Incorrect API key provided: {shown}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
        )
        return FaultEffect(kind, 401, error)
    if kind == "http404":
        error = openai_error(
            f"The model `{model}` does not exist or you do not have access to it.{leak}",
            "invalid_request_error",
            "model_not_found",
        )
        return FaultEffect(kind, 404, error)
    if kind == "empty":
        return FaultEffect(kind, content="")
    if kind == "huge":
        return FaultEffect(kind, content=huge_text(huge_bytes))
    if kind in ("hang", "reset", "malformed", "no_choices", "non_utf8", "trickle", "no_finish"):
        return FaultEffect(kind, sabotage=kind)
    raise ValueError(f"unknown fault {kind!r}")
