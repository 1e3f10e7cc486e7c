"""Who a statement belongs to: the speaking agent, or a peer it is quoting.

Debate responses discuss the other agents' answers all the time ("Agent 2's answer is 42",
"the others think the answer is (B)"). Answer and confidence extraction only count what the
speaker declares for itself, so each candidate declaration is checked against the clause
that precedes it. Every check looks at a bounded window of text around the candidate (and
peer labels are found once per response), so a response with many candidates is still read
in linear time.

The rules for a declaration (:func:`statement_owner`, :func:`is_peer_statement`), in order
(the first that applies decides):

1. The candidate is on a Markdown quote line (``> ...``), in a block the reply copied from a
   peer (``Solution from a2:`` and what follows it, see :mod:`debategraph.policies.peer_text`)
   or inside a quotation (``a2 wrote "the answer is 99"``) whose lead-in does not show the
   speaker quoting themself: not the speaker's.
2. It directly follows a possessive (``Agent 2's``, ``their``, ``your``, ``his``, ``her``,
   ``whose``): a peer's.
3. The clause is hypothetical (``if``, ``whether``, ``suppose``, ``assuming``, ``unless``
   just before it), or opens with such a word and the candidate is modal (``if a1 were
   right, the answer would be 12``): not a declaration.
4. The clause (back to the last ``.``, ``!``, ``?``, ``;`` or line break) names a peer
   (``agent``, ``a2``, ``other``, ``another``, ``peer``, ``they``, ``you``, ``he``, ``she``,
   ``the solution that``, ...). If the speaker speaks after the last peer word (``I``,
   ``we``, ``my``, ``our``), the clause turns or concludes (``but``, ``however``,
   ``whereas``, ``so``, ``therefore``, ...), or the speaker sides with the peer (``I agree
   with Agent 2 that``, ``Agent 2 is right that``, ``Agent 2 correctly says``), the statement
   is the speaker's. Otherwise it is a peer's when a reporting word (``says``, ``thinks``,
   ``chose``, ``got``, ``has``, ``is wrong to``, ...) or a possessed answer (``Agent 2's
   boxed value``) follows the peer after the clause's last comma (``After reading the other
   agents' solutions, the answer is 12`` is the speaker's), or the clause holds ``according
   to`` or ``in Agent 2's view``; a clause that names a peer without either (``the other
   agents are wrong, the answer is 40``) is the speaker's.
5. A clause led by a colon whose head names a peer and not the speaker
   (``Agent 2: the answer is 42``) is a peer's, unless the head judges the peer
   (``Agent 2 is wrong: the answer is 40``, ``Agent 2 is right: ...``): then the speaker
   speaks.
6. A line whose head describes a peer's reply (``a2's reply, in short: ...``, ``Agent 3
   wrote: ...``) is the peer's up to the candidate, across sentences, unless the speaker
   speaks in it or it opens by judging the peer (:func:`_in_described_line`).
7. A value handed to a peer right after it (``the answer is 15 in their solution``,
   ``... is 120 according to them``) is the peer's (:func:`is_attributed_after`).

In rule 4, a turn word followed by a peer's verb of saying or finding (``Agent 1 instead
charges ... and concludes the answer is 69``, ``Agent 4 used ... but dropped a sign and
concluded ...``) does not turn the clause to the speaker, and a peer reporting an argument
(``Agent 4 thinks that since ..., the answer is 30``) reports it past its commas.

**Adopting is declaring; reporting is not.** A peer's statement that the speaker adopts in
the same sentence (``Agent 2 says the answer is 12, and I agree``, ``..., which is
correct``, ``..., which matches mine``, ``..., as I found too``) or in a bare sentence right
after it (``... is 12. I agree.``) is the speaker's declaration too (:func:`is_adopted`).

Values outside declarations (the fallback's numbers and letters, :func:`is_peer_value`)
follow the same rules with a narrower idea of a peer: only debate peers (``agent``,
``a2``, ``the other agents``, ``another agent``, ``the solution that``, ...), never bare
pronouns such as ``he`` or ``they``, which word problems use for their characters
(``so she makes $18``). A value is a peer's when it is quoted or copied as above, is part
of a peer's name (the ``2`` of ``Agent 2``), follows a peer's possessive (``Agent 2's
42``), or follows a debate peer in its clause with a reporting word or a possessed answer
between them (``Other agents' answers (22 and 23)``, ``the solution that says 30``, ``the
other agents got 18, 20 and 22``: the rest of a list after a comma stays reported) and no
sign of the speaker; or its clause is led by a colon whose head names a debate peer
(``- Agent 1: 18``).
"""

from __future__ import annotations

import re
from collections import deque
from typing import Literal

from debategraph.policies.peer_text import PEER_NAME, in_peer_block, quotation_start

WINDOW = 160
"""How many characters before a candidate are read to attribute it."""

ADOPTION_WINDOW = 120
"""How many characters after a peer's statement are read for the speaker's adoption."""

_BOUNDARY = r"[!?;\n]|[.:](?=\s|$)"
_BOUNDARY_RE = re.compile(_BOUNDARY)
_LAST_BOUNDARY_RE = re.compile(rf"(?s:.*)(?:{_BOUNDARY})")  # greedy: ends at the last one
_RELATIVE_PEER = (
    r"(?:solutions?|responses?|answers?|repl(?:y|ies)|approach(?:es)?|arguments?|"
    r"calculations?|ones?)[ \t]++(?:that|which)"
)
# The word lists below open with a lookahead on their words' first letters: the same
# matches, but most positions fail at once instead of trying every word (3x faster).
_PEER_RE = re.compile(
    r"(?=[aAoOpPtTyYhHsSeEdDrRmMcC])\b(?:agents?|others?|another|peers?|they|their|them|you|"
    r"your|he|she|his|her|someone|somebody|everyone|everybody|debaters?|assistants?|"
    r"solvers?|participants?|respondents?|opponents?|models?|solution[ \t]*+#?\d++|"
    rf"response[ \t]*+#?\d++|a\d{{1,2}}+|{_RELATIVE_PEER})\b",
    re.IGNORECASE,
)
_DEBATE_PEER_RE = re.compile(
    r"(?=[aAoOpPtTdDrRsSeEcC])\b(?:agents?|peers?|debaters?|assistants?|participants?|"
    r"respondents?|opponents?|solvers?|others['’]|the[ \t]++others\b|"
    r"other[ \t]++(?:agents?|solutions?|answers?|responses?|repl(?:y|ies)|models?|debaters?)|"
    r"another[ \t]++(?:agent|solution|answer|response|reply|model|debater)|"
    rf"solution[ \t]*+#?\d++|response[ \t]*+#?\d++|a\d{{1,2}}+|everyone[ \t]++else|"
    rf"{_RELATIVE_PEER})\b",
    re.IGNORECASE,
)
_SPEAKER_RE = re.compile(
    r"(?=[Imwuoi])(?:\b(?:I|me|my|mine|we|us|our)\b|\b(?:i['’]m|i['’]ve|i['’]ll)\b)"
)
_TURN_RE = re.compile(
    r"(?=[bBhHyYwWaAtTiInNsSuUcC])\b(?:but|however|yet|whereas|although|though|while|instead|"
    r"nevertheless|nonetheless|so|therefore|thus|hence|unlike|contrary)\b",
    re.IGNORECASE,
)
_REPORT_VERB_RE = re.compile(
    r"(?=[sScCtTbBaAdDgGwWrRfFpPeEoOlLiI])\b(?:says|said|claims|claimed|thinks|thought|"
    r"believes|believed|argues|argued|concludes|concluded|decides|decided|gets|got|writes|"
    r"wrote|reasons|reasoned|arrives|arrived|ends|ended|lands|landed|settles|settled|finds|"
    r"found|computes|computed|calculates|calculated|obtains|obtained|picks|picked|chooses|"
    r"chose|gives|gave|answers|answered|estimates|estimated|states|stated|suggests|"
    r"suggested|proposes|proposed|insists|insisted|asserts|asserted|reports|reported)\b",
    re.IGNORECASE,
)
"""A peer's verb of saying or finding: after a turn word it keeps the peer the subject
(``Agent 4 used the dot product but dropped a sign and concluded the answer is ...``)."""
_FRAME_RE = re.compile(
    r"[ \t]*+(?:#?\d{1,2}+[ \t]*+)?(?:\w++[ \t]++)?(?:thinks?|believes?|argues?|claims?|"
    r"says?|said|suggests?|concludes?|concluded|reasons?|reasoned|insists?|maintains?|"
    r"states?|stated|wrote|writes|assumes?|assumed|reckons?|figures?)[ \t]++"
    r"(?:that|since|because)\b",
    re.IGNORECASE,
)
"""A peer reporting a whole argument (``Agent 4 thinks that since ..., the answer is 30``):
its commas do not end the report."""
_SIDING_RE = re.compile(
    r"(?=[cCrRiIaAwW])\b(?:(?:correctly|rightly)[ \t]++(?:\w++[ \t]++)?(?:says?|said|notes?|"
    r"noted|points?|pointed|states?|stated|argues?|argued|observes?|observed|finds?|found|"
    r"concludes?|concluded|computes?|computed|gets|got|answers?|answered|chooses|chose|"
    r"picks?|picked|selects?|selected|identifies|identified|claims?|claimed)"
    r"|(?:is|are|was|were)[ \t]++(?:right|correct))\b",
    re.IGNORECASE,
)
"""The speaker siding with a peer: ``Agent 2 correctly says``, ``Agent 2 is right``; not an
adverb of the peer's own steps (``they square 8 correctly, then ...``)."""
_SIDES_BEFORE_RE = re.compile(
    r"(?:\b(?:I|we)[ \t]++(?:\w++[ \t]++)?(?:agree|concur|side)[ \t]++with"
    r"|\b(?:unlike|contrary[ \t]++to|rather[ \t]++than|instead[ \t]++of|against|versus|vs\.?))"
    r"[ \t]++(?:the[ \t]++|what[ \t]++)?$",
    re.IGNORECASE,
)
_JUDGEMENT_RE = re.compile(
    r"(?=[rRcCwWiImMeE])\b(?:right|correct|wrong|incorrect|mistaken|mistakes?|errors?|erred|"
    r"errs)\b(?![ \t]++(?:that|to|in|when|about)\b)",
    re.IGNORECASE,
)
"""The speaker judging a peer (``Agent 2 is wrong``), not reporting (``wrong to say``)."""
_REPORT_RE = re.compile(
    r"(?=[sScCtTbBaApPiImMgGrRwWdDfFoOvVeEnNhHlLuUkKqQ])\b(?:says?|said|claims?|claimed|"
    r"thinks?|thought|believes?|believed|argues?|argued|suggests?|suggested|states?|stated|"
    r"concludes?|concluded|proposes?|proposed|insists?|insisted|asserts?|asserted|"
    r"maintains?|maintained|gets|got|reports?|reported|writes|wrote|reasons?|reasoned|"
    r"answered|decided|chooses|chose|picks|picked|selects|selected|gives|gave|finds|found|"
    r"computes|computed|calculated|obtained|arrived|went|votes?|voted|answers|solutions?|"
    r"responses|choices|claim|agrees|agreed|disagrees|disagreed|prefers|preferred|"
    r"favou?rs|favou?red|supports|supported|estimates|estimated|predicts|predicted|"
    r"guesses|guessed|mentions|mentioned|notes|noted|offers|offered|had|ends|ended|lands|"
    r"landed|settles|settled|puts|quotes|quoted|keeps|kept|sticks|stuck|has|have|"
    r"(?:wrong|mistaken|incorrect|incorrectly)[ \t]++(?:that|to|in|when)|"
    r"(?:errs|erred)[ \t]++in)\b",
    re.IGNORECASE,
)
_POSSESSED_RE = re.compile(
    r"['’]s?[ \t]++(?:[\w-]++[ \t]++){0,2}?(?:answers?|values?|results?|box(?:ed)?|"
    r"solutions?|numbers?|totals?|choices?|figures?|estimates?|picks?|claims?|conclusions?)\b",
    re.IGNORECASE,
)
_ACCORDING_RE = re.compile(
    r"\baccording[ \t]++to\b"
    r"|\bin[ \t]++(?:[^\s,.;:]++[ \t]++){1,3}(?:view|opinion|words|reading)\b",
    re.IGNORECASE,
)
_LIST_TAIL_RE = re.compile(r"(?:[\s,;()&*_$%.\d-]|\b(?:and|or)\b)*+")
_POSSESSIVE_END_RE = re.compile(
    r"(?:\w['’]s|\w['’]|\b(?:their|your|his|her|its|whose))[ \t*_]*+$", re.IGNORECASE
)
_PEER_POSSESSIVE_END_RE = re.compile(
    rf"(?:{PEER_NAME}|\b(?:agents|others|peers))['’]s?[ \t*_]*+$", re.IGNORECASE
)
_PEER_NAME_END_RE = re.compile(
    r"\b(?:agent|solution|response|debater|participant|assistant|model|player)[ \t]*+"
    r"[#_-]?[ \t]*+$",
    re.IGNORECASE,
)
_HYPOTHETICAL_END_RE = re.compile(
    r"(?=[iIwWsSaAuU])\b(?:if|whether|suppose|supposing|assume|assuming|unless|"
    r"what[ \t]++if)[ \t]++(?:\w++[ \t]++){0,2}$",
    re.IGNORECASE,
)
_CONDITIONAL_RE = re.compile(
    r"[ \t*_(]*+(?:if|suppose|supposing|assuming|unless|had|were|even[ \t]++if)\b", re.IGNORECASE
)
_MODAL_RE = re.compile(r"\b(?:would|could|might)\b", re.IGNORECASE)
_MODAL_MARKER_RE = re.compile(
    r"(?:the|my|our)[ \t]++(?:\w++[ \t]++)?answer[ \t*_]*+(?:would|could|might)\b", re.IGNORECASE
)
_ADOPTION_RE = re.compile(
    r"(?=[iIwWtTsShHaA])\b(?:(?:I|we)[ \t]++(?:(?:fully|completely|do|also|now|too)[ \t]++)?"
    r"(?:agree|concur)\b(?![ \t]++with[ \t]++(?!(?:it|this|that|them|him|her)\b))"
    r"|(?:which|that|this|s?he|they|it)[ \t]++(?:is|are|was|were)[ \t]++(?:right|correct)\b"
    r"|that['’]s[ \t]++(?:right|correct)\b"
    r"|(?:which|that|this|it)[ \t]++(?:matches|agrees[ \t]++with|is[ \t]++the[ \t]++same[ \t]++as)"
    r"[ \t]++(?:mine|my[ \t]++(?:own[ \t]++)?(?:answer|result|solution|total))\b"
    r"|as[ \t]++(?:I|we)[ \t]++(?:also[ \t]++)?(?:got|get|found|find|computed|calculated|did)\b)"
    r"(?![ \t]++(?:only|if|when|for|about)\b)",
    re.IGNORECASE,
)
_BARE_AGREEMENT_RE = re.compile(
    r"[ \t]++(?:I|we)[ \t]++(?:(?:fully|completely|do|also)[ \t]++)?(?:agree|concur)"
    r"(?:[ \t]++with[ \t]++(?:it|this|that|them|him|her))?[ \t]*+[.!]",
    re.IGNORECASE,
)
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s|$)|[;\n]")
_PEER_AFTER_RE = re.compile(
    rf"[^\s,;!?()]*+(?:"
    rf"[ \t]*+\([ \t]*+(?:(?:from|by|per|says?|said|claimed[ \t]++by)[ \t]++)?(?:the[ \t]++)?"
    rf"{PEER_NAME}"
    rf"|[ \t]++as[ \t]++(?:the[ \t]++)?{PEER_NAME}[ \t]++(?:\w++[ \t]++)?(?:says?|said|claims?|"
    rf"claimed|suggests?|suggested|argues?|argued|proposes?|proposed|states?|stated)\b"
    rf"|,?[ \t]*+according[ \t]++to[ \t]++(?:the[ \t]++)?{PEER_NAME}"
    rf"|[ \t]++(?:is|was)[ \t]++(?:the[ \t]++)?{PEER_NAME}(?:['’]s?|s)?[ \t]++(?:own[ \t]++)?"
    rf"(?:answers?|results?|values?|claims?|numbers?|totals?|figures?|picks?|choices?)\b)",
    re.IGNORECASE,
)
"""A peer named right after a value: ``30 (from a2)``, ``30 as a2 claims``, ``30, according
to Agent 2``, ``30 is a2's answer``."""


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


def is_reproduced(text: str, pos: int) -> bool:
    """Whether ``pos`` lies in text the reply reproduces: a quote line or a copied peer block.

    Args:
        text: The whole response.
        pos: A position in ``text``.

    Returns:
        True on a ``>`` line or inside a peer block
        (:func:`debategraph.policies.peer_text.in_peer_block`).
    """
    return is_quoted_line(text, pos) or in_peer_block(text, pos)


def _possessive_from(before: str) -> int:
    r"""Where a match of ``_POSSESSIVE_END_RE`` in ``before`` can start at the earliest.

    The match is a word of at most five characters ending where the trailing run of
    ``[ \t*_]`` (then an optional final newline) begins, so searching from there finds the
    same match as searching the whole window, without trying every position.
    """
    core = before[:-1] if before.endswith("\n") else before
    return max(0, len(core.rstrip(" \t*_")) - 6)


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


def _speaker_owns(
    segment: str,
    peer_re: re.Pattern[str],
    reports: tuple[re.Pattern[str], ...],
    *,
    lists: bool = False,
) -> bool | None:
    """``True``/``False`` when ``segment`` settles who speaks, ``None`` when it names no peer.

    A report counts only after the segment's last comma (``After reading the other agents'
    solutions, the answer is 12`` is the speaker's), unless ``lists`` and what follows the
    comma is the rest of a list (``The other agents got 18, 20 and 22``).
    """
    peers = list(peer_re.finditer(segment))
    if not peers:
        return None
    last = peers[-1]
    after = segment[last.end() :]
    if _SPEAKER_RE.search(after) or _SIDING_RE.search(after):
        return True
    turns = deque(_TURN_RE.finditer(after), maxlen=1)
    if turns and not _REPORT_VERB_RE.search(after, turns[0].end()):
        return True  # "Agent 2 got 42, so the answer is 40"
    for peer in (peers[0], last):
        if _SIDES_BEFORE_RE.search(segment, max(0, peer.start() - 40), peer.start()):
            return True  # "I agree with Agent 2, who says ...", "unlike the other agents' ..."
    if _JUDGEMENT_RE.search(after):
        return True  # "the other agents have it wrong, the answer is 40"
    since_first = segment[peers[0].end() :]
    comma = since_first.rfind(",")
    framed = any(_FRAME_RE.match(segment, peer.end()) for peer in (peers[0], last))
    if comma >= 0 and not framed and not (lists and _LIST_TAIL_RE.fullmatch(since_first, comma)):
        since_first = since_first[comma:]
    reported = any(r.search(since_first) for r in reports)
    return not (reported or _ACCORDING_RE.search(segment))


def _head_names_peer(head: str, clause: str, peer_re: re.Pattern[str]) -> bool:
    """Whether a colon's head makes the clause a peer's line.

    ``Agent 2: the answer is 42`` is; ``Agent 2 is wrong: ...`` and ``Agent 2: wrong, so
    ...`` (a clause that turns to the speaker) are not.
    """
    return bool(
        head
        and peer_re.search(head)
        and not _SPEAKER_RE.search(head)
        and not _JUDGEMENT_RE.search(head)
        and not _TURN_RE.search(clause)
    )


def _quoted_by_other(text: str, pos: int, peer_re: re.Pattern[str]) -> bool:
    """Inside a quotation, unless its lead-in shows the speaker quoting themself."""
    opening = quotation_start(text, pos)
    if opening < 0:
        return False
    clause, head = _clause_before(text, opening)
    lead = f"{head}: {clause}" if head else clause
    peers = deque(peer_re.finditer(lead), maxlen=1)
    return not _SPEAKER_RE.search(lead, peers[0].end() if peers else 0)


Owner = Literal["speaker", "peer", "reproduced", "hypothetical"]
"""Whose a statement is: the speaker's, a peer's (reported), reproduced text (quote lines,
copied blocks, quotations), or nobody's (hypothetical)."""


_DESCRIBED_HEAD_RE = re.compile(
    rf"(?:{PEER_NAME}|\bothers)['’]s?[ \t]++(?:[\w-]++[ \t]++){{0,2}}?(?:solutions?|responses?|"
    r"answers?|repl(?:y|ies)|reasoning|arguments?|work|summary|write-?up|steps|derivation|"
    r"calculations?|approach|working|version|account)\b",
    re.IGNORECASE,
)
_LINE_HEAD_LIMIT = 80


def _in_described_line(text: str, pos: int) -> bool:
    """Whether ``pos`` follows, on its line, a head that hands the line to a peer.

    ``a2's reply, in short: Venus is the hottest planet; the answer is Venus`` and ``For
    comparison, Agent 3 wrote: ...; the answer is 9``: a head naming a debate peer with its
    reply or a reporting verb, then a colon, makes the rest of the line the peer's, across
    sentences, unless the speaker speaks there or the line opens by judging the peer
    (``Agent 2's answer: wrong. The answer is 40``). A bare name (``Agent 1: 12.``) is a
    roster, not a description.
    """
    line_start = text.rfind("\n", max(0, pos - WINDOW), pos) + 1
    if line_start == 0 and pos > WINDOW:
        return False
    colon = text.find(":", line_start, min(pos, line_start + _LINE_HEAD_LIMIT))
    if colon < 0:
        return False
    head = text[line_start:colon]
    if not (
        _DESCRIBED_HEAD_RE.search(head)
        or (_DEBATE_PEER_RE.search(head) and _REPORT_VERB_RE.search(head))
    ):
        return False
    if _SPEAKER_RE.search(head) or _JUDGEMENT_RE.search(head):
        return False
    rest = text[colon + 1 : pos]
    opening = _BOUNDARY_RE.search(rest)
    first = rest[: opening.start()] if opening else rest
    return not (_SPEAKER_RE.search(rest) or _JUDGEMENT_RE.search(first))


def statement_owner(text: str, pos: int) -> Owner:
    """Who a candidate declaration at ``pos`` belongs to (the module docstring's rules).

    Args:
        text: The whole response.
        pos: Where the candidate starts (e.g. the ``t`` of "the answer is").

    Returns:
        ``speaker``, ``peer``, ``reproduced`` or ``hypothetical``.
    """
    if is_reproduced(text, pos) or _quoted_by_other(text, pos, _PEER_RE):
        return "reproduced"
    before = text[max(0, pos - WINDOW) : pos]
    if _POSSESSIVE_END_RE.search(before, _possessive_from(before)):
        return "peer"
    clause, head = _clause_before(text, pos)
    tail = clause.rsplit(",", 1)[-1]
    if _HYPOTHETICAL_END_RE.search(tail) or (
        _CONDITIONAL_RE.match(clause)
        and (_MODAL_RE.search(tail) or _MODAL_MARKER_RE.match(text, pos))
    ):
        return "hypothetical"
    owns = _speaker_owns(clause, _PEER_RE, (_REPORT_RE, _POSSESSED_RE))
    if owns is None:
        owns = not _head_names_peer(head, clause, _PEER_RE)
    if owns and not head and _in_described_line(text, pos):
        owns = False
    return "speaker" if owns else "peer"


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
    return statement_owner(text, pos) != "speaker"


_VALUE_OF_PEER_RE = re.compile(
    r"(?:[^,;:!?\n.]|\.(?=\S)){0,60}?"
    r"(?:\b(?:in|per|by)[ \t]++(?:their|his|her|(?:the[ \t]++)?"
    rf"(?:{PEER_NAME}|others)['’]s?)[ \t]++(?:own[ \t]++)?(?:solution|view|work|reasoning|"
    r"calculation|answer|write-up|approach|opinion|account|derivation|version|steps)s?\b"
    rf"|\baccording[ \t]++to[ \t]++(?:them|him|her|(?:the[ \t]++)?{PEER_NAME}|the[ \t]++others))",
    re.IGNORECASE,
)


def is_attributed_after(text: str, end: int) -> bool:
    r"""Whether the value of a declaration ending at ``end`` is given to a peer right after it.

    ``Therefore, the answer is 15 in their solution``, ``so the answer is 120 according to
    them``, ``\boxed{2/3} in a2's derivation``: the sentence hands the value to a peer (no
    comma, colon or sentence end between the value and the peer, and no word of the
    speaker's).

    Args:
        text: The whole response.
        end: Where the declaration's marker (or boxed value) ends.

    Returns:
        True when the value is the peer's.
    """
    found = _VALUE_OF_PEER_RE.match(text, end)
    return found is not None and not _SPEAKER_RE.search(text, end, found.end())


def is_adopted(text: str, end: int) -> bool:
    """Whether the speaker adopts a peer's statement whose marker ends at ``end``.

    ``Agent 2 says the answer is 12, and I agree``, ``..., which is correct``, ``... is 12.
    I agree.``: the rest of the sentence, or a bare agreement right after it, adopts it;
    ``I agree with <someone else>`` does not.

    Args:
        text: The whole response.
        end: Where the peer's statement's marker (or boxed value) ends.

    Returns:
        True when the speaker sides with the statement.
    """
    limit = min(len(text), end + ADOPTION_WINDOW)
    stop = _SENTENCE_END_RE.search(text, end, limit)
    sentence_end = stop.start() if stop else limit
    if _ADOPTION_RE.search(text, end, sentence_end):
        return True
    return bool(stop and stop.group() in ".!" and _BARE_AGREEMENT_RE.match(text, stop.end()))


def is_peer_value(text: str, pos: int) -> bool:
    """Whether a value outside any declaration (a number, a letter) is a peer's.

    The "last number" and "last letter" fallbacks skip such values. See the module
    docstring: only debate peers count here, not pronouns.

    Args:
        text: The whole response.
        pos: Where the value starts.

    Returns:
        True when the reply attributes the value to a peer.
    """
    if is_reproduced(text, pos) or _quoted_by_other(text, pos, _DEBATE_PEER_RE):
        return True
    before = text[max(0, pos - WINDOW) : pos]
    tail_from = max(0, len(before) - 40)
    if _PEER_NAME_END_RE.search(before, tail_from) or _PEER_POSSESSIVE_END_RE.search(
        before, tail_from
    ):
        return True
    clause, head = _clause_before(text, pos)
    owns = _speaker_owns(clause, _DEBATE_PEER_RE, (_REPORT_RE, _POSSESSED_RE), lists=True)
    if owns is not None:
        return not owns
    return (
        _head_names_peer(head, clause, _DEBATE_PEER_RE)
        or _named_after(text, pos, clause)
        or is_attributed_after(text, pos)
    )


def _named_after(text: str, pos: int, clause: str) -> bool:
    """Whether a peer is named right after the value, which the speaker did not claim.

    ``I get 24, not 30 as a2 claims``: 30 is a2's. ``I get 24 as a2 claims``: the speaker's
    own clause claims 24 (since its last comma or turn such as "while"), so it stays theirs.
    """
    turns = [m.end() for m in _TURN_RE.finditer(clause)]
    own = clause[max([clause.rfind(",") + 1, *turns]) :]
    return not _SPEAKER_RE.search(own) and _PEER_AFTER_RE.match(text, pos) is not None
