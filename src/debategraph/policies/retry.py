"""Which model-call failures are worth retrying (pure; no LangGraph or provider import).

Retried: connection failures, timeouts, HTTP 408, 409, 429 and 5xx, and replies that arrived
unusable (malformed JSON, no choices, empty content, no finish reason). Never retried: other
4xx (a bad request, a bad key, an unknown model: retrying cannot fix them), a call that ran
out of time (:class:`debategraph.errors.CallGaveUpError`) and errors in our own code. Exceptions
are classified by their HTTP status and class names, so provider SDKs need not be imported.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

RETRY_STATUS = frozenset({408, 409, 429})
"""HTTP statuses below 500 that are retried."""

RETRY_AFTER_CAP_S = 30.0
"""The longest ``Retry-After`` wait honoured, in seconds."""

_TRANSIENT_NAMES = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "ConnectError",
        "ConnectTimeout",
        "ReadTimeout",
        "WriteTimeout",
        "PoolTimeout",
        "ReadError",
        "WriteError",
        "RemoteProtocolError",
        "LocalProtocolError",
        "TimeoutException",
        "TransportError",
        "NetworkError",
        "IncompleteRead",
        "JSONDecodeError",
        "APIResponseValidationError",
        "UnusableReplyError",
    }
)


_NEVER_RETRIED = frozenset({"CallGaveUpError"})
"""Exceptions that end a call's attempts (:class:`debategraph.errors.CallGaveUpError`)."""


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries, if any."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def is_transient(exc: BaseException) -> bool:
    """Whether a failed model call may succeed if tried again (see the module docstring)."""
    if any(cls.__name__ in _NEVER_RETRIED for cls in type(exc).__mro__):
        return False
    status = status_of(exc)
    if status is not None and status >= 400:
        return status in RETRY_STATUS or 500 <= status < 600
    for link in _chain(exc):
        if isinstance(link, ConnectionError | TimeoutError):
            return True
        if any(cls.__name__ in _TRANSIENT_NAMES for cls in type(link).__mro__):
            return True
    return False


def retry_after_s(exc: BaseException, cap: float = RETRY_AFTER_CAP_S) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (capped at ``cap``), if there is one."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    try:
        value = float(headers.get("retry-after"))
    except (TypeError, ValueError):
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return min(value, cap)
