"""Offline token estimate, used when a model reports no usage."""

from __future__ import annotations

import re

_PIECE_RE = re.compile(r"[A-Za-z]{1,8}|\d{1,3}|[^\sA-Za-z\d]")


def estimate_tokens(text: str) -> int:
    """Approximate BPE token count: short letter runs, digit triples and symbols.

    Within about 20% of cl100k on English prose and arithmetic; no download needed.
    """
    return len(_PIECE_RE.findall(text))
