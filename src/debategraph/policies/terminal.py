r"""Text shown on a terminal: a model's or a server's words never control it.

A reply can carry escape sequences (``\x1b[2J`` clears the screen, OSC sequences retitle
the window) and bidirectional overrides that make text read other than it is. Everything
debategraph prints from a model, a server or a results file passes through :func:`visible`;
JSON output and files keep the exact text.
"""

from __future__ import annotations

import re

_CONTROL_RE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def visible(text: str) -> str:
    r"""``text`` with control characters shown as escapes (``\x1b``); newlines and tabs kept.

    Carriage returns, C1 controls and bidirectional marks and overrides are escaped too.
    """
    return _CONTROL_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
