"""Which model-call failures are worth retrying (pure; no LangGraph or provider import).

Retried: connection failures, timeouts, HTTP 408, 409, 429 and 5xx, and replies that arrived
unusable (malformed JSON, no choices, empty content, no finish reason). Never retried: other
4xx (a bad request, a bad key, an unknown model: retrying cannot fix them), a call that ran
out of time (:class:`debategraph.errors.CallGaveUpError`) and errors in our own code. Exceptions
are classified by their HTTP status and class names, so provider SDKs need not be imported.

A call that never reached its server (the connection was refused, the host name did not
resolve, no route led there: :func:`never_connected`) is retried only while it has made fewer
than :data:`REFUSED_ATTEMPTS` attempts, so that a server restarting for a second or two does
not fail a run, and a server that is down is reported within seconds
(:class:`debategraph.errors.NoConnectionError`).
"""

from __future__ import annotations

import errno
import math
from collections.abc import Iterator

RETRY_STATUS = frozenset({408, 409, 429})
"""HTTP statuses below 500 that are retried."""

RETRY_AFTER_CAP_S = 30.0
"""The longest ``Retry-After`` wait honoured, in seconds."""

REFUSED_ATTEMPTS = 3
"""Attempts a call makes at most while no connection to its server can be made (the first
included): with the default backoff the retries come after 1 s and 2 s (plus up to 1 s of
jitter each), so a server that is down is reported within 5 s."""

_NO_CONNECTION_ERRNOS = frozenset(
    {errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EADDRNOTAVAIL}
)
_NO_CONNECTION_NAMES = frozenset({"ConnectError", "NewConnectionError", "NameResolutionError"})

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


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, then its cause (or context), and so on; each exception once."""
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
    for link in exception_chain(exc):
        if isinstance(link, ConnectionError | TimeoutError):
            return True
        if any(cls.__name__ in _TRANSIENT_NAMES for cls in type(link).__mro__):
            return True
    return False


def never_connected(exc: BaseException) -> str | None:
    """What a failed call met if it never reached its server, else ``None``.

    A refused connection, a host name that did not resolve, or no route to the host, seen
    anywhere in the exception's chain (``httpx.ConnectError``, urllib3's
    ``NewConnectionError``, ``ConnectionRefusedError``, ``socket.gaierror``). A timeout is
    not one (a busy server may still answer), nor is a failure with an HTTP status.

    Returns:
        The innermost failure's message (``[Errno 111] Connection refused``), or ``None``.
    """
    if status_of(exc) is not None:
        return None
    found = False
    reasons: list[tuple[bool, str]] = []  # (carries an errno, message) of each OS error
    for link in exception_chain(exc):
        names = {cls.__name__ for cls in type(link).__mro__}
        if isinstance(link, TimeoutError) or any("Timeout" in name for name in names):
            return None
        if (
            isinstance(link, ConnectionRefusedError)
            or names & _NO_CONNECTION_NAMES
            or "gaierror" in names
            or (isinstance(link, OSError) and link.errno in _NO_CONNECTION_ERRNOS)
        ):
            found = True
        if isinstance(link, OSError) and str(link):
            reasons.append((link.errno is not None, " ".join(str(link).split())))
    if not found:
        return None
    with_errno = [text for has, text in reasons if has]
    return (with_errno or [text for _, text in reasons] or ["no connection"])[-1]


def request_url(exc: BaseException) -> str | None:
    """The URL of the request a failed call made, if its exception carries one (httpx's)."""
    for link in exception_chain(exc):
        try:  # httpx's errors raise RuntimeError for a request they were not given
            url = getattr(getattr(link, "request", None), "url", None)
        except RuntimeError:
            continue
        if url is not None:
            return str(url)
    return None


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
