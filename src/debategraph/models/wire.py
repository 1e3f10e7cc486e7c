"""What a provider's HTTP reply cost when the client rejects it before LangChain sees it.

A reply without ``choices``, or whose bytes are not UTF-8, is refused inside the OpenAI
client, so its token usage never reaches a LangChain callback. An HTTP response hook reads
the usage such a reply states into the calling task's :data:`REJECTED_USAGE` list (a
context variable the call node sets around each call), so the spend meter can count it as
wasted.
"""

from __future__ import annotations

import json
import re
from contextvars import ContextVar
from typing import Any

REJECTED_USAGE: ContextVar[list[dict[str, int]] | None] = ContextVar(
    "debategraph_rejected_usage", default=None
)
"""The usage of rejected replies in the current model call (``None`` outside a call)."""

_EMPTY_CHOICES_RE = re.compile(rb'"choices"\s*+:\s*+(?:null|\[\s*+\])')


def rejected_usage(body: bytes) -> dict[str, int] | None:
    """The usage a chat reply states, if the client will reject the reply; else ``None``.

    A reply is rejected when its bytes are not UTF-8 or it has no ``choices``.
    """
    try:
        text = body.decode("utf-8")
        unreadable = False
    except UnicodeDecodeError:
        text, unreadable = body.decode("utf-8", "replace"), True
    if not unreadable and b'"choices"' in body and not _EMPTY_CHOICES_RE.search(body):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not (isinstance(prompt, int) and isinstance(completion, int)) or min(prompt, completion) < 0:
        return None
    return {"input_tokens": prompt, "output_tokens": completion}


async def audit_reply(response: Any) -> None:
    """An httpx response hook: note the usage of a chat reply the client will reject."""
    found = REJECTED_USAGE.get()
    if found is None or response.status_code != 200:
        return
    if "json" not in response.headers.get("content-type", ""):
        return
    usage = rejected_usage(await response.aread())
    if usage is not None:
        found.append(usage)
