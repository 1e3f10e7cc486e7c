"""Who a statement belongs to: the speaking agent, or a peer it is quoting.

Debate responses discuss the other agents' answers all the time ("Agent 2's answer is 42",
"the others think the answer is (B)"). Answer and confidence extraction only count what the
speaker declares for itself, so each candidate declaration is checked against the clause
that precedes it. Every check looks at a bounded window of text before the candidate, so a
response with many candidates is still read in linear time.

The rules, in order (the first that applies decides):

1. The candidate is on a Markdown quote line (``> ...``): quoted, not the speaker's.
2. It directly follows a possessive (``Agent 2's``, ``their``, ``your``, ``his``, ``her``):
   a peer's.
3. The clause is hypothetical (``if``, ``whether``, ``suppose``, ``assuming``, ``unless``
   just before it): not a declaration.
4. The clause (back to the last ``.``, ``!``, ``?``, ``;`` or line break) names a peer
   (``agent``, ``other``, ``another``, ``peer``, ``they``, ``you``, ``he``, ``she``, ...).
   If the speaker speaks after the last peer word (``I``, ``we``, ``my``, ``our``) or the
   clause turns or concludes (``but``, ``however``, ``whereas``, ``so``, ``therefore``,
   ...), the statement is the speaker's. Otherwise it is a peer's when a reporting word
   follows the peer (``says``, ``thinks``, ``chose``, ``got``, ``answers``, ...) or the
   clause holds ``according to``; a clause that names a peer without either (``the other
   agents are wrong, the answer is 40``) is the speaker's.
5. A clause led by a colon whose head names a peer and not the speaker
   (``Agent 2: the answer is 42``) is a peer's.
"""

from __future__ import annotations

import re

WINDOW = 160
"""How many characters before a candidate are read to attribute it."""

_BOUNDARY = r"[!?;\n]|[.:](?=\s|$)"
_BOUNDARY_RE = re.compile(_BOUNDARY)
_LAST_BOUNDARY_RE = re.compile(rf"(?s:.*)(?:{_BOUNDARY})")  # greedy: ends at the last one
# The word lists below open with a lookahead on their words' first letters: the same
# matches, but most positions fail at once instead of trying every word (3x faster).
_PEER_RE = re.compile(
    r"(?=[aAoOpPtTyYhHsSeEdDrRmM])\b(?:agents?|others?|another|peers?|they|their|them|you|"
    r"your|he|she|his|her|someone|somebody|everyone|everybody|debaters?|assistants?|"
    r"solvers?|participants?|respondents?|opponents?|models?|solution[ \t]*+#?\d++|"
    r"response[ \t]*+#?\d++)\b",
    re.IGNORECASE,
)
_SPEAKER_RE = re.compile(
    r"(?=[Imwuoi])(?:\b(?:I|me|my|mine|we|us|our)\b|\b(?:i['’]m|i['’]ve|i['’]ll)\b)"
)
_TURN_RE = re.compile(
    r"(?=[bBhHyYwWaAtTiInNsS])\b(?:but|however|yet|whereas|although|though|while|instead|"
    r"nevertheless|nonetheless|so|therefore|thus|hence)\b",
    re.IGNORECASE,
)
_REPORT_RE = re.compile(
    r"(?=[sScCtTbBaApPiImMgGrRwWdDfFoOvV])\b(?:says?|said|claims?|claimed|thinks?|thought|"
    r"believes?|believed|argues?|argued|suggests?|suggested|states?|stated|concludes?|"
    r"concluded|proposes?|proposed|insists?|insisted|asserts?|asserted|maintains?|"
    r"maintained|gets|got|reports?|reported|writes|wrote|reasons?|reasoned|answered|"
    r"decided|chooses|chose|picks|picked|selects|selected|gives|gave|finds|found|computes|"
    r"computed|calculated|obtained|arrived|went|votes?|voted|answers|solutions?|responses|"
    r"choices|claim)\b",
    re.IGNORECASE,
)
_ACCORDING_RE = re.compile(r"\baccording[ \t]++to\b", re.IGNORECASE)
_POSSESSIVE_END_RE = re.compile(
    r"(?:\w['’]s|\b(?:their|your|his|her|its))[ \t*_]*+$", re.IGNORECASE
)
_HYPOTHETICAL_END_RE = re.compile(
    r"(?=[iIwWsSaAuU])\b(?:if|whether|suppose|supposing|assume|assuming|unless|"
    r"what[ \t]++if)[ \t]++(?:\w++[ \t]++){0,2}$",
    re.IGNORECASE,
)


def is_quoted_line(text: str, pos: int) -> bool:
    """Whether ``pos`` lies on a Markdown quote line (first non-blank character ``>``).

    Args:
        text: The whole response.
        pos: A position in ``text``.

    Returns:
        True on a quote line.
    """
    line_start = text.rfind("\n", max(0, pos - WINDOW), pos) + 1
    if line_start == 0 and pos > WINDOW:
        return False
    return text[line_start:pos].lstrip(" \t").startswith(">")


def _possessive_from(before: str) -> int:
    r"""Where a match of ``_POSSESSIVE_END_RE`` in ``before`` can start at the earliest.

    The match is a word of at most five characters ending where the trailing run of
    ``[ \t*_]`` (then an optional final newline) begins, so searching from there finds the
    same match as searching the whole window, without trying every position.
    """
    core = before[:-1] if before.endswith("\n") else before
    return max(0, len(core.rstrip(" \t*_")) - 5)


def _clause_before(text: str, pos: int) -> tuple[str, str]:
    """The clause that ends at ``pos`` and the head before its colon (``""`` if none)."""
    window = text[max(0, pos - WINDOW) : pos]
    last = _LAST_BOUNDARY_RE.match(window)
    if last is None:
        return window, ""
    clause = window[last.end() :]
    colon = last.end() - 1
    if window[colon] != ":":
        return clause, ""
    cuts = list(_BOUNDARY_RE.finditer(window))  # the colon is the last of them
    previous = cuts[-2].end() if len(cuts) > 1 else 0
    return clause, window[previous:colon]


def _speaker_owns(segment: str) -> bool | None:
    """``True``/``False`` when ``segment`` settles who speaks, ``None`` when it names no peer."""
    peers = list(_PEER_RE.finditer(segment))
    if not peers:
        return None
    after = segment[peers[-1].end() :]
    if _SPEAKER_RE.search(after) or _TURN_RE.search(after):
        return True
    return not (_REPORT_RE.search(after) or _ACCORDING_RE.search(segment))


def is_peer_statement(text: str, pos: int) -> bool:
    """Whether a candidate declaration at ``pos`` belongs to someone other than the speaker.

    See the module docstring for the rules. Hypothetical clauses ("if the answer is 42")
    count as not the speaker's too.

    Args:
        text: The whole response.
        pos: Where the candidate starts (e.g. the ``t`` of "the answer is").

    Returns:
        True when the candidate is quoted, a peer's, or hypothetical.
    """
    if is_quoted_line(text, pos):
        return True
    before = text[max(0, pos - WINDOW) : pos]
    if _POSSESSIVE_END_RE.search(before, _possessive_from(before)):
        return True
    clause, head = _clause_before(text, pos)
    tail = clause.rsplit(",", 1)[-1]
    if _HYPOTHETICAL_END_RE.search(tail):
        return True
    owns = _speaker_owns(clause)
    if owns is not None:
        return not owns
    return bool(head and _PEER_RE.search(head) and not _SPEAKER_RE.search(head))
