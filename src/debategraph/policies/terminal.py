r"""Text shown on a terminal: a model's or a server's words never control it.

A reply can carry escape sequences (``\x1b[2J`` clears the screen, OSC sequences retitle
the window) and bidirectional overrides that make text read other than it is. Everything
debategraph prints from a model, a server or a results file passes through :func:`visible`;
JSON output and files keep the exact text.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable

_CONTROL_RE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def visible(text: str) -> str:
    r"""``text`` with control characters shown as escapes (``\x1b``); newlines and tabs kept.

    Carriage returns, C1 controls and bidirectional marks and overrides are escaped too.
    """
    return _CONTROL_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


SECRET_MARGIN = 4_096
"""Characters past a cut that are still redacted, so no secret is cut in half and shown."""


def cut_text(text: str, limit: int, redact: Callable[[str], str] = str) -> str:
    """``text`` redacted and, past ``limit`` characters, cut with a note of how much was cut.

    Only the first ``limit`` characters (and a margin of :data:`SECRET_MARGIN`) are redacted,
    so a 20 MB field costs no more than a short one; a secret that straddles the cut is
    redacted before the cut is made.

    Args:
        text: A field of a reply, a question or a stored row.
        limit: The most characters kept.
        redact: Applied before the cut (e.g. a :class:`~debategraph.policies.secrets.Redactor`).

    Returns:
        The text, or its first ``limit`` characters and `` … [N more characters cut]``.
    """
    if len(text) <= limit:
        return redact(text)
    kept = redact(text[: limit + SECRET_MARGIN])[:limit]
    return f"{kept} … [{len(text) - limit:,} more characters cut]"


UNAWAITED_TASK = r"coroutine '(arun_with_retry|gated)' was never awaited"
"""LangGraph's warning for a model call it scheduled and cancelled before it began: a run
that stops (a dead server, the breaker, Ctrl-C) cancels calls still waiting for a slot."""


def quiet_unawaited_tasks() -> None:
    """Keep LangGraph's ``RuntimeWarning`` about cancelled, never-started calls off the terminal.

    A run stopped with calls still queued behind LangGraph's concurrency gate leaves their
    coroutines unawaited, and Python warns about each when it collects them: three lines of
    internals above the run's own one-line error (a Ray worker's, forwarded to the driver's
    terminal, in colour). They mean nothing to the user. The command line and each Ray
    worker call this.
    """
    warnings.filterwarnings("ignore", message=UNAWAITED_TASK, category=RuntimeWarning)
