"""One line that says what failed and what to do about it (pure; no provider import).

Model-call failures are recognised by their HTTP status and class names, so provider SDKs
need not be imported. The line names the LangGraph node the failure happened in, when the
exception carries it, and never carries a secret (pass a redactor).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import TracebackType

from debategraph.policies.retry import status_of

_TASK_NOTE_RE = re.compile(r"During task with name '([^']+)'")
_MAX_LENGTH = 300


_CUT_OFF_RE = re.compile(
    r"complete message body|incomplete chunked read|IncompleteRead|received \d+ bytes",
    re.IGNORECASE,
)

CUT_OFF_HINT = (
    "the model server answered, but its reply was cut off mid-body (the connection closed "
    "before the reply's end): check the server's log, or a proxy between"
)
"""What a reply cut off mid-body is called: the server was reached and began to answer."""


def reply_cut_off(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it wraps) is a reply cut off mid-body.

    The server answered (a status line, part of the body) and the connection closed before
    the body's end; an SDK reports that as a connection error, which it is not.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        names = {cls.__name__ for cls in type(current).__mro__}
        if names & {"RemoteProtocolError", "IncompleteRead", "ReadError"} and (
            _CUT_OFF_RE.search(f"{type(current).__name__} {current}")
            or _reading_body(current.__traceback__)
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


_BODY_READS = frozenset({"iter_raw", "aiter_raw", "iter_bytes", "aiter_bytes"})
"""The HTTP client's frames that read a response's body (its status line came already)."""


def _reading_body(trace: TracebackType | None) -> bool:
    while trace is not None:
        if trace.tb_frame.f_code.co_name in _BODY_READS:
            return True
        trace = trace.tb_next
    return False


def _hint(exc: BaseException) -> str | None:
    if reply_cut_off(exc):
        return CUT_OFF_HINT
    status = status_of(exc)
    names = {cls.__name__ for cls in type(exc).__mro__}
    if status in (401, 403):
        return (
            f"the model server refused the credentials (HTTP {status}): check the API key "
            "(e.g. OPENAI_API_KEY) and --base-url"
        )
    if status == 404:
        return (
            "the model server answered HTTP 404: check the model name and --base-url "
            "(an OpenAI-compatible URL usually ends in /v1)"
        )
    if status == 429:
        return "rate limited (HTTP 429) after retries: lower --concurrency or set --rps"
    if status is not None and 500 <= status < 600:
        return f"the model server failed (HTTP {status}) after retries"
    if names & {"APITimeoutError", "ReadTimeout", "ConnectTimeout", "TimeoutException"} or (
        isinstance(exc, TimeoutError)
    ):
        return "the model server did not answer in time (raise --timeout, or check the server)"
    if names & {"APIConnectionError", "ConnectError", "RemoteProtocolError"} or isinstance(
        exc, ConnectionError
    ):
        return "could not reach the model server: is it running, and is --base-url right?"
    if names & {"JSONDecodeError", "APIResponseValidationError", "UnusableReplyError"}:
        return "the model server's reply could not be used (not valid chat-completion JSON)"
    return None


def describe_error(exc: BaseException, redact: Callable[[str], str] = str) -> str:
    """``Type: message[, what to do] (in node round > a1)``: one line, secrets redacted.

    Args:
        exc: The exception that ended a debate or a command.
        redact: Applied to the message (e.g. a :class:`~debategraph.policies.secrets.Redactor`).

    Returns:
        One line of at most about 300 characters (plus the node path).
    """
    message = redact(" ".join(str(exc).split()))
    if len(message) > _MAX_LENGTH:
        message = message[: _MAX_LENGTH - 1] + "…"
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    hint = _hint(exc)
    if hint:
        text = f"{text} — {hint}"
    notes = " ".join(getattr(exc, "__notes__", ()))
    nodes = _TASK_NOTE_RE.findall(notes)
    return f"{text} (in node {' > '.join(reversed(nodes))})" if nodes else text
