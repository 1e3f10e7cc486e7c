"""LangSmith refusing the key or failing, said in one line: what to fix, no key, no request dump.

LangSmith's client reports a refused key (401, 403) or a server error (5xx) from its
background tracing thread through the ``langsmith`` loggers: a multi-line warning per batch
of traces, with the server's answer, the trace ids and, for a broken connection, a masked
API key. :class:`OneLine` takes those records in place of Python's default output and says
the first failure once, as :func:`trouble_line` words it; the rest are consequences of it and
are dropped. ``debategraph export --to langsmith`` words its failed request the same way.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "OneLine",
    "Trouble",
    "quiet_langsmith_logs",
    "trouble_in",
    "trouble_line",
    "trouble_of_upload",
]

LOGGER = "langsmith"
"""The parent of every logger of LangSmith's client."""

_HTTP_ERROR = re.compile(r"\b([1-5]\d\d) (?:Client|Server) Error\b[^\n]*? for url: ([^\s'\"\\]+)")
_MASKED_KEY = re.compile(r"[\w-]{0,8}\*{3,}[\w-]{0,4}")
"""How LangSmith's client shows a key: its first characters, stars, its last two."""
_NO_CONNECTION = re.compile(r"Connection error caused failure to [A-Z]+ (\S+)")


@dataclass(frozen=True)
class Trouble:
    """What went wrong with a request to LangSmith.

    Attributes:
        status: The HTTP status LangSmith answered; ``None`` when the connection failed.
        url: The address asked (scheme, host and path: no query, no credentials).
    """

    status: int | None
    url: str


def trouble_line(trouble: Trouble, consequence: str, *, key_set: bool = True) -> str:
    """One line that says what LangSmith did, what to fix and what it means for this run.

    Args:
        trouble: The failed request.
        consequence: What follows for the run, e.g. ``"runs are not traced"``.
        key_set: Whether an API key was sent (a 401 without one asks for one).

    Returns:
        The line, holding no key material and nothing of the server's answer.
    """
    status, url = trouble.status, trouble.url
    if status == 401 and not key_set:
        return f"LangSmith at {url} wants an API key (401): set LANGSMITH_API_KEY; {consequence}"
    if status in (401, 403):
        fix = "check LANGSMITH_API_KEY"
        if status == 403:
            fix += " (and LANGSMITH_WORKSPACE_ID for a key of several workspaces)"
        return f"LangSmith refused the API key at {url} ({status}): {fix}; {consequence}"
    if status == 429:
        return f"LangSmith at {url} is rate-limiting this key (429): {consequence}; try later"
    if status is None:
        return (
            f"LangSmith at {url} stopped answering (the connection failed): {consequence}; "
            "check LANGSMITH_ENDPOINT and the network"
        )
    if status >= 500:
        return (
            f"LangSmith at {url} failed with a server error ({status}): {consequence}; try "
            "again later, or check LANGSMITH_ENDPOINT"
        )
    return f"LangSmith at {url} answered {status}: {consequence}; check LANGSMITH_ENDPOINT"


def trouble_in(text: str, api_url: str | None = None) -> Trouble | None:
    """The failed request a message of LangSmith's client reports, if it reports one.

    Args:
        text: The message (a log record's, or a ``LangSmithError``'s).
        api_url: The LangSmith address, for a failed connection, whose message names only
            the path.

    Returns:
        The status and address asked, or ``None`` for a message of another kind.
    """
    found = _HTTP_ERROR.search(text)
    if found is not None:
        return Trouble(int(found.group(1)), plain_url(found.group(2)))
    lost = _NO_CONNECTION.search(text)
    if lost is not None:
        path = lost.group(1)
        url = f"{api_url.rstrip('/')}{path}" if api_url and path.startswith("/") else path
        return Trouble(None, plain_url(url))
    return None


def trouble_of_upload(message: str, api_url: str, consequence: str) -> str | None:
    """The line for a request LangSmith refused for the key, or failed; ``None`` otherwise.

    A refused key (401, 403), a rate limit (429), a server error (5xx) and a lost
    connection get :func:`trouble_line`; any other refusal (a name taken, a bad body) is the
    request's own and is for the caller to say.

    Args:
        message: The ``LangSmithError``'s message.
        api_url: The LangSmith address.
        consequence: What follows, e.g. ``"nothing was uploaded"``.
    """
    trouble = trouble_in(message, api_url)
    if trouble is None:
        return None
    status = trouble.status
    if status is None or status in (401, 403, 429) or status >= 500:
        return trouble_line(trouble, consequence)
    return None


def plain_url(url: str) -> str:
    """``url`` without its query, fragment and credentials (where secrets travel)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class OneLine(logging.Handler):
    """Says the first failed request LangSmith's client logs, once; drops every other record.

    A record that reports no failed request before the first one is said by its first
    line, once (LangSmith's messages go on with request details after it), without a masked
    key, a secret of the environment or the credentials of ``api_url``.

    Args:
        say: Prints a line (called from LangSmith's background thread, too).
        consequence: What a failure means for the run, e.g. ``"runs are not traced"``.
        api_url: The LangSmith address (named for a failed connection).
        key_set: Whether an API key is sent.
    """

    def __init__(
        self, say: Callable[[str], None], consequence: str, api_url: str, *, key_set: bool
    ) -> None:
        super().__init__(logging.WARNING)
        self._say = say
        self._consequence = consequence
        self._api_url = api_url
        self._key_set = key_set
        self._lock = threading.Lock()
        self._failed = False
        self._said: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        """Say the record's failure once, or its first line; nothing after a failure."""
        try:
            text = record.getMessage()
        except Exception:  # a malformed record is LangSmith's bug, not a reason to stop
            return
        trouble = trouble_in(text, self._api_url)
        with self._lock:
            if self._failed:
                return
            if trouble is not None:
                self._failed = True
                line = trouble_line(trouble, self._consequence, key_set=self._key_set)
            else:
                first = text.strip().splitlines()[0] if text.strip() else ""
                line = f"LangSmith: {self._redacted(first)}"
                if line in self._said:
                    return
            self._said.add(line)
        self._say(line)

    def _redacted(self, text: str) -> str:
        """``text`` without a masked key, a secret of the environment or URL credentials."""
        from debategraph.policies.secrets import Redactor

        redact = Redactor.from_environment(urls=[self._api_url])
        return redact(_MASKED_KEY.sub("[redacted]", text))


def quiet_langsmith_logs(
    say: Callable[[str], None], consequence: str, api_url: str, *, key_set: bool
) -> OneLine:
    """Route LangSmith's log records through one :class:`OneLine` (once per process).

    The ``langsmith`` logger stops passing its records on to the root logger, so they are
    said by the handler alone.

    Returns:
        The handler installed (the one already there, on a second call).
    """
    logger = logging.getLogger(LOGGER)
    for handler in logger.handlers:
        if isinstance(handler, OneLine):
            return handler
    handler = OneLine(say, consequence, api_url, key_set=key_set)
    logger.addHandler(handler)
    logger.propagate = False
    return handler
