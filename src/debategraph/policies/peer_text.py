r"""Text a reply reproduces from its peers: labelled peer blocks and quotations.

Our prompts show each peer's reply under a label (``Solution from another agent:``,
``Solution from a2:``, ``Answer from another agent:``, ``Summary of the discussion:``) in a
fenced block, and models often copy such blocks into their own reply. Whatever such a block
holds is the peer's text, not the speaker's.

A **peer label** is a line that holds only a label naming a peer: ``Solution from a2:``,
``Here is a response of another agent:``, ``Agent 2's answer:``, ``The other agents' latest
solutions:``, ``### Agent 3``, ``**a2:**``, ``Summary of the discussion:`` (Markdown ``#``,
``*``, ``_``, ``>`` and a closing colon allowed), or a lead-in that names a peer and ends
with a colon (``For comparison, a3 wrote:``, ``Agent 2's steps:``, ``What agent a2 sent:``)
unless it speaks for the speaker or judges the peer (``I checked Agent 2's steps:``,
``Agent 2 is wrong:``). A **speaker label** is a line that opens the speaker's own part:
``My answer:``, ``My solution``, ``Our final answer: 12``, ``### Mine``.

The **peer block** of a peer label starts at the first non-blank line after it and ends

- when that line opens a fence (```` ``` ````): at the closing fence;
- otherwise at the first blank line, or at the next peer or speaker label, whichever comes
  first.

A **quotation** is the text after an opening double quote (``"`` after a space, a colon or a
bracket, or ``“``) that is not closed before the position in question, on the same line; a
quoted key (``"confidence": 0.9``) is not one.

Peer labels are found by one scan per reply (cached for the reply's other candidates); every
other check reads a bounded window before the position (:data:`BLOCK_LIMIT` characters for
blocks, :data:`QUOTE_LIMIT` for quotations), so examining many candidates stays linear.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import deque
from functools import lru_cache

BLOCK_LIMIT = 4000
"""How far before a position a peer label is looked for (a copied reply longer than this is
read as the speaker's beyond it)."""

LABEL_LIMIT = 160
"""The longest line read as a peer label (labels are short: ``Solution from another agent:``)."""

QUOTE_LIMIT = 400
"""How far back on its line an opening quotation mark is looked for."""

PEER_NAME = (
    r"(?:another[ \t]++(?:agent|model|debater|assistant|participant)"
    r"|(?:the[ \t]++)?other[ \t]++(?:agents?|models?|debaters?|assistants?|participants?)"
    r"|agent[ \t]*+[#_-]?[ \t]*+\w{1,3}+|a\d{1,2}+)"
)
"""A peer's name as debate replies write it: ``another agent``, ``Agent 2``, ``a2``, ..."""

_REPLY_NOUN = (
    r"(?:solution|response|answer|reply|reasoning|argument|opinion|critique|work|summary|"
    r"output|message|write-?up|steps|derivation|calculation|approach|working)"
)
_LEAD = (
    r"(?:(?:here|below|above|this|these)[ \t]++(?:is|are|was|were)[ \t]++|here['’]s[ \t]++)?"
    r"(?:(?:the|a|an)[ \t]++)?(?:(?:latest|previous|last|full|final)[ \t]++)?"
)
_TRAIL = (
    r"(?:['’]s?)?(?:[ \t]++(?:latest|previous|last|final|full|own))?"
    rf"(?:[ \t]++{_REPLY_NOUN}s?)?"
)
_PEER_LABEL_RE = re.compile(
    r"[ \t>#*_-]*+"
    rf"(?:{_LEAD}{_REPLY_NOUN}s?[ \t]++(?:from|of|by)[ \t]++(?:the[ \t]++)?"
    rf"(?!(?:me|us|myself|mine)\b){PEER_NAME}"
    r"|summary[ \t]++of[ \t]++the[ \t]++discussion"
    rf"|{PEER_NAME}){_TRAIL}[ \t*_]*+:?[ \t*_]*+$",
    re.IGNORECASE | re.MULTILINE,
)
_LEAD_IN_RE = re.compile(
    rf"[ \t>#*_-]*+(?=[^\n]*?\b{PEER_NAME}\b)[^\n:]*+:[ \t*_]*+$",
    re.IGNORECASE | re.MULTILINE,
)
"""A line that names a peer and ends with a colon: ``For comparison, a3 wrote:``,
``Agent 3's solution, step by step:``, ``What agent a2 sent:``."""
_LEAD_IN_SPEAKER_RE = re.compile(
    r"\b(?:I|me|my|mine|we|us|our)\b|\b(?:i['’]m|i['’]ve|i['’]ll)\b"
    r"|\b(?:is|are|was|were|went|got[ \t]++it|has[ \t]++it|have[ \t]++it)[ \t]++"
    r"(?:\w++[ \t]++)?(?:right|correct|wrong|incorrect|mistaken)\b"
    r"|\b(?:mistakes?|errors?|erred|errs|agree|disagree)\b",
    re.IGNORECASE,
)
"""What keeps a lead-in line the speaker's: its own voice, or a judgement of the peer
(``Agent 2 is wrong:`` opens the speaker's correction, not the peer's text)."""
PEER_KEYWORDS = ("agent", "other", "summary")
"""Words one of which every peer label holds (in lower case), besides a name such as a2:
label lines are looked for where these are."""

_NAME_RE = re.compile(r"a\d")
_KEYWORD_RE = re.compile(r"agent|other|summary|a\d", re.IGNORECASE)

_OWN_LABEL_RE = re.compile(
    r"^[ \t>#*_-]*+(?:(?:my|our)[ \t]++(?:own[ \t]++)?(?:(?:final|updated|revised)[ \t]++)?"
    rf"(?:{_REPLY_NOUN}|view|take|assessment|analysis|evaluation|verdict)\b"
    r"|(?:mine|me|myself)[ \t*_]*+(?::|$))",
    re.IGNORECASE | re.MULTILINE,
)
_FENCE_RE = re.compile(r"[ \t>]*+```")
_CLOSING_FENCE_RE = re.compile(r"^[ \t>]*+```", re.MULTILINE)
_BLANK_LINE_RE = re.compile(r"\n[ \t]*+(?=\n)")
_NON_BLANK_RE = re.compile(r"\S")


def _keyword_positions(text: str) -> list[int]:
    """Where the words of :data:`PEER_KEYWORDS` (any case) and names like ``a2`` start."""
    lowered = text.lower()
    if len(lowered) != len(text):  # a few characters lower-case to two: offsets would shift
        return [m.start() for m in _KEYWORD_RE.finditer(text)]
    positions = [m.start() for m in _NAME_RE.finditer(lowered)]
    for word in PEER_KEYWORDS:
        found = lowered.find(word)
        while found >= 0:
            positions.append(found)
            found = lowered.find(word, found + len(word))
    positions.sort()
    return positions


@lru_cache(maxsize=8)
def peer_labels(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The peer label lines of ``text``: where each starts, and where each ends.

    One linear scan per text (cached: a reply's candidates are attributed one after
    another, each asking for the label before it). Only lines that hold a word every peer
    label holds (:data:`PEER_KEYWORDS`, a name such as ``a2``) are matched against the
    label pattern, each once.

    Args:
        text: The whole reply.

    Returns:
        ``(starts, ends)``, by position.
    """
    starts: list[int] = []
    ends: list[int] = []
    line_end = 0
    for position in _keyword_positions(text):
        if position < line_end:
            continue  # this line was matched already
        line_start = max(line_end, text.rfind("\n", line_end, position) + 1)
        found = text.find("\n", position)
        line_end = len(text) if found < 0 else found
        if line_end - line_start > LABEL_LIMIT:
            continue
        label = _PEER_LABEL_RE.match(text, line_start) or _lead_in(text, line_start)
        if label is not None:
            starts.append(line_start)
            ends.append(label.end())
    return tuple(starts), tuple(ends)


def _lead_in(text: str, line_start: int) -> re.Match[str] | None:
    """A lead-in line naming a peer, in the peer's voice (see :data:`_LEAD_IN_RE`)."""
    line = _LEAD_IN_RE.match(text, line_start)
    if line is None or _LEAD_IN_SPEAKER_RE.search(text, line_start, line.end()):
        return None
    return line


def in_peer_block(text: str, pos: int) -> bool:
    """Whether ``pos`` lies in a block the reply copied from a peer (see the module doc).

    Args:
        text: The whole reply.
        pos: A position in ``text``.

    Returns:
        True inside a peer block.
    """
    starts, ends = peer_labels(text)
    index = bisect_right(starts, pos) - 1
    if index < 0 or starts[index] < pos - BLOCK_LIMIT:
        return False
    line_end = text.find("\n", ends[index], pos)
    first = _NON_BLANK_RE.search(text, line_end + 1, pos + 1) if line_end >= 0 else None
    if first is None:
        return False  # on the label line, or in the blank lines after it
    content = text.rfind("\n", 0, first.start()) + 1
    if _FENCE_RE.match(text, content):
        fence_end = text.find("\n", content, pos)
        return fence_end >= 0 and _CLOSING_FENCE_RE.search(text, fence_end + 1, pos) is None
    # A speaker label on the line of pos or before it ends the block (labels are short).
    own_label = _OWN_LABEL_RE.search(text, content, min(len(text), pos + 80))
    return not (
        _BLANK_LINE_RE.search(text, content, pos) or (own_label and own_label.start() <= pos)
    )


_QUOTE_MARK_RE = re.compile(r"[\"“”]")
_JSON_KEY_END_RE = re.compile(r"[\"”\n](?:[ \t]*+(:))?")  # a quoted key: "confidence": ...


def quotation_start(text: str, pos: int) -> int:
    """Where the quotation holding ``pos`` opens on its line, or ``-1`` outside quotations.

    Args:
        text: The whole reply.
        pos: A position in ``text``.

    Returns:
        The offset of the opening quotation mark, or ``-1``.
    """
    window_start = max(0, pos - QUOTE_LIMIT)
    line_start = max(window_start, text.rfind("\n", window_start, pos) + 1)
    marks = deque(_QUOTE_MARK_RE.finditer(text, line_start, pos), maxlen=1)
    if not marks:
        return -1
    mark = marks[0]
    if mark.group() == "“":
        return mark.start()
    if mark.group() == "”":
        return -1
    before = text[mark.start() - 1] if mark.start() > line_start else " "
    after = text[mark.end()] if mark.end() < len(text) else " "
    opens = (before.isspace() or before in ":([{*_-—") and not after.isspace()
    if not opens:
        return -1
    closing = _JSON_KEY_END_RE.search(text, pos, min(len(text), pos + QUOTE_LIMIT))
    return -1 if closing is not None and closing.group(1) else mark.start()
