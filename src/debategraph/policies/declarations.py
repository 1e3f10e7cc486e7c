r"""Where a response declares its answer: the markers answer extraction reads.

A declaration is one of:

- ``boxed``: ``\boxed{...}`` or ``\fbox{...}`` with balanced braces (its content is the
  fragment);
- ``label``: a line that starts with ``Answer:``, ``Final answer:``, ``Answer is`` or a
  heading ``**Final Answer**`` (Markdown ``#``, ``*``, ``_`` and list dashes allowed; the
  word "answer" may carry up to two qualifiers, ``Corrected answer:``, ``Revised final
  answer:``, and a short parenthesised note before the colon, ``Final answer
  (corrected):``, ``Answer (in dollars):``), or
  ``Answer:`` opening a new sentence mid-line (``... so she earns $18. Answer: 18``); the
  fragment is the rest of the line, or the next non-empty line when the rest is empty;
- ``phrase``: ``the answer is``, ``my final answer is``, ``our answer would be``,
  ``the correct answer:`` ... (determiner ``the``/``my``/``our``, optional adjective such as
  ``final`` or ``correct``, then ``is``, ``would be``, ``will be``, ``should be``,
  ``must be``, ``remains``, ``:`` or ``=``), ``final answer is`` / ``final answer:``, and a
  reaffirmed earlier answer (``I confirm my earlier answer: 9``, ``I stand by my original
  answer of 9``), and a self-correction cue (``Actually no, it is``, ``no wait,``,
  ``Correction:``, ``On reflection,``) that opens a sentence and is followed at once by a
  value whose sentence has at most :data:`CORRECTION_WORDS` words and no verb or operator;
  the fragment is the rest of the line;
- for ``choice`` tasks also ``choice``: ``I choose``, ``I'll go with``, ``we select``,
  ``my final choice is``, ``the correct option is``, a line ``Choice: B``; and ``final``: a
  parenthesised letter with nothing but punctuation (or a confidence line) after it, or a
  last line that is only a letter (``C``, ``**C**``, ``C) Paris``, ``Option C``).

A ``final`` letter in the same sentence as an earlier declaration belongs to that one
(``The answer is (B), not (C).`` states B).

Words that merely contain "answer" (``answers``, ``answered``, ``answer choices``) are not
declarations, and neither are candidates that
:func:`~debategraph.policies.attribution.statement_owner` attributes to a peer (``Agent 2's
answer is 42``, ``they think the answer is 40``) unless the speaker adopts them (``..., and
I agree``), quotes and copied peer blocks, hypothetical clauses (``if the answer is 42``) or
negations (``the answer is not 42``), nor the speaker's recap of an earlier answer of its
own (:func:`is_recap`: ``Earlier I said the answer is 30``).

Finding markers is one linear scan per pattern; fragments and attributions are computed
lazily, last marker first, and read bounded windows only.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from debategraph.policies.attribution import (
    is_adopted,
    is_attributed_after,
    is_reproduced,
    statement_owner,
)

DeclarationKind = Literal["boxed", "label", "phrase", "choice", "final"]
"""How a declaration was written (see the module docstring)."""

LineFilter = Callable[[str], bool]
"""Whether a line carries a self-reported confidence (such lines after a final choice do not
make it less final)."""

FRAGMENT_LIMIT = 600
"""The longest fragment read after a marker, in characters."""

BOX_LIMIT = 600
"""The longest boxed content read; a box not closed within it holds no answer."""

MAX_DECLARATIONS = 64
"""How many declarations, from the last, are examined; earlier ones are not (a response
with more is pathological, and reading stays linear)."""

SKIP_LIMIT = 20
"""How many blank or confidence lines may follow a final choice (more: not final)."""

_ADJECTIVE = r"(?:final|corrected|correct|right|best|true|actual|overall|only|updated|revised|new)"
_QUALIFIER = r"(?:final|corrected|revised|updated|amended|fixed|new|correct|actual|true)"
_LABEL_NOTE = r"(?:\([^()\n]{1,40}+\)[ \t*_]*+(?=[:=]))?"
_COPULA = r"(?:is|would[ \t]++be|will[ \t]++be|should[ \t]++be|must[ \t]++be|remains)\b|[:=]"
_BOXED_RE = re.compile(r"\\(?:boxed|fbox)[ \t]*+\{")
_BRACE_RE = re.compile(r"\\[{}]|[{}]")
_LABEL_RE = re.compile(
    rf"^[ \t#*_-]*+(?=[aAfFcCrRuUnNtT])(?:{_QUALIFIER}[ \t]++){{0,2}}answer[ \t*_]*+"
    rf"{_LABEL_NOTE}(?:[:=]|is\b|$)"
    rf"|(?<=[.!?)][ \t])[*_]*+(?:{_QUALIFIER}[ \t]++){{0,2}}answer[ \t*_]*+{_LABEL_NOTE}[:=]",
    re.IGNORECASE | re.MULTILINE,
)
_ANSWER_WORD_RE = re.compile(r"answer", re.IGNORECASE)  # folds as the markers' "answer" does
_PHRASE_RE = re.compile(
    rf"(?=[tTmMoOfFcCkKsSrR])(?:\b(?:the|my|our)[ \t]++(?:{_ADJECTIVE}[ \t]++)?answer[ \t*_]*+"
    rf"(?:{_COPULA})|\bfinal[ \t]++answer[ \t*_]*+(?:{_COPULA})"
    r"|\b(?:confirm|keep|stand[ \t]++by|stick[ \t]++with|stay[ \t]++with|maintain|reaffirm)"
    r"[ \t]++(?:my|our)[ \t]++(?:earlier|previous|original|initial|first)[ \t]++answer"
    r"[ \t*_]*+(?:[:=,]|of\b))",
    re.IGNORECASE,
)
_CHOICE_RE = re.compile(
    r"(?=[iIwWtTmMoO])(?:\b(?:I|we)(?:['’]ll|[ \t]++(?:will|would|now|therefore|thus|still|"
    r"also|then|must|should|do))?[ \t]++(?:choose|select|pick|go[ \t]++with|opt[ \t]++for|"
    r"stick[ \t]++with)\b"
    rf"|\b(?:the|my|our)[ \t]++(?:{_ADJECTIVE}[ \t]++)?(?:choice|selection|option|pick)"
    rf"[ \t*_]*+(?:{_COPULA}))",
    re.IGNORECASE,
)
_CHOICE_LABEL_RE = re.compile(
    r"^[ \t#*_-]*+(?:final[ \t]++)?choice[ \t*_]*+[:=]", re.IGNORECASE | re.MULTILINE
)
_VALUE_AHEAD = (
    r"(?=(?:\*\*|__|\\?\$|\\\(|\\boxed\{)?[ \t]*+(?:[-−]?(?:\d|\.\d)|\\[dt]?frac|\([A-Ja-j]\)"
    r"|[A-J]\)|(?:option|choice)[ \t]++[A-J]\b|[A-J](?=[ \t*_]*+(?:[.!]|$))))"
)
_CORRECTION_RE = re.compile(
    r"(?=[aAnNwWsScCeEuUoOiImMrR])\b(?:actually(?:[ \t,]++no)?|no(?:[ \t,.!…]++wait)?"
    r"|wait(?:[ \t,.!…]++no)?"
    r"|scratch[ \t]++that|correction|edit|update|oops|sorry|I[ \t]++meant|make[ \t]++that|rather"
    r"|on[ \t]++(?:second[ \t]++thought|reflection))\b"
    r"(?:[ \t,:;.!…—–*_-]++(?:(?:it|that|this)(?:['’]s|[ \t]++(?:is|should[ \t]++be|must[ \t]++be"
    r"|would[ \t]++be|comes[ \t]++to))|I[ \t]++get|we[ \t]++get)\b)?[ \t,:;.!…—–*_-]*+"
    + _VALUE_AHEAD,
    re.IGNORECASE | re.MULTILINE,
)
_RESTATEMENT_RE = re.compile(
    r"(?=[cCrRuUaAsStT])\b(?:(?:corrected|revised|updated|amended)[ \t]*+(?::|to\b)"
    r"|(?:chang|updat|revis|switch|correct|amend)\w*+[ \t]++(?:my|our)[ \t]++(?:final[ \t]++)?"
    r"answer(?:[ \t]++from[ \t]++[^\n.;]{1,40}?)?[ \t]++to"
    r"|the[ \t]++(?:correct|right|corrected|revised|actual|true|final)[ \t]++(?:total|value|result"
    r"|number|count|amount|sum|figure|price|cost)[ \t]*+(?:is|should[ \t]++be|would[ \t]++be|[:=]))"
    r"[ \t*_:]*+" + _VALUE_AHEAD,
    re.IGNORECASE,
)
_VALUE_FIRST_RE = re.compile(
    r"(?<![\w.,/\\])(?:[-−]?\$?\d[\d,]*+(?:\.\d++)?|\([A-Ja-j]\))[ \t]++is[ \t]++"
    r"(?:indeed[ \t]++|actually[ \t]++)?(?:the[ \t]++)?(?:correct|right)(?:[ \t]++answer)?"
    r"(?=[ \t*_]*+(?:[.!]|\n|$))",
    re.IGNORECASE,
)
_OPENING_WORD_RE = re.compile(
    r"\b(?:so|thus|therefore|hence|then|now|indeed|clearly)[ \t,]*+$", re.IGNORECASE
)
_CORRECTION_END_RE = re.compile(
    r"\n|[.!?;](?=\s|$)|,(?=\s)|\(|\b(?:because|since|as|so|given|due|not|which)\b", re.IGNORECASE
)
_NOT_A_VALUE_RE = re.compile(
    r"\b(?:is|was|are|were|isn['’]t|wasn['’]t|seems|looks|would|should|can|could|might|must|has"
    r"|had|have|does|did|do|of|plus|minus|times|divided)\b|[+*×÷=]",
    re.IGNORECASE,
)
_RELATIVE_RE = re.compile(
    r"^\S*+[ \t]++(?:more|less|fewer|higher|lower|greater|smaller|larger|bigger|than|extra)\b",
    re.IGNORECASE,
)
_UNIT_LIST = """
    dollar dollars cent cents euro euros pound pounds yen rupee rupees usd bucks percent pct
    mm cm m km in inch inches ft foot feet yd yard yards mile miles meter meters metre metres
    centimeter centimeters kilometer kilometers millimeter millimeters g kg mg gram grams
    kilogram kilograms lb lbs ounce ounces oz ton tons tonne tonnes l ml liter liters litre
    litres milliliter milliliters gallon gallons cup cups quart quarts pint pints s sec secs
    second seconds min mins minute minutes h hr hrs hour hours day days week weeks month months
    year years degree degrees square sq cubic mph kph km/h m/s unit units point points total
    altogether overall exactly instead then now only each"""
UNIT_WORDS = frozenset(_UNIT_LIST.split())
"""Words that may follow a corrected value (units, and ``in total``-like words): ``Wait, 35
km.`` corrects; ``Edit: 2 typos fixed.`` does not."""
_LETTER_RE = re.compile(r"\(?[A-Ja-j]\)$")
_STATES_VALUE_RE = re.compile(
    r"\b(?:it|that|this)(?:['’]s|[ \t]++(?:is|should|must|would|comes))\b|\b(?:I|we)[ \t]++get"
    r"\b|\bmeant\b|\bmake[ \t]++that\b",
    re.IGNORECASE,
)
_CORRECTION_BEFORE = frozenset("\n.!?…,;:—–-(*_#")
CORRECTION_WORDS = 3
"""The most words a self-correction's value may span (``Actually no, it is 35 dollars.``);
a longer sentence after ``Wait,`` is reasoning, not a corrected answer."""
_CLAUSE_BOUNDARY_RE = re.compile(
    r"[.!?;\n]|\b(?:but|however|though|yet|now|instead)\b", re.IGNORECASE
)
_RECAP_RE = re.compile(
    r"\b(?:my|our)[ \t]++(?:previous|earlier|original|initial|first|last|old|prior)[ \t]++"
    r"(?:answer|response|reply|guess|attempt|solution|turn|round)"
    r"|\b(?:I|we)[ \t]++(?:had[ \t]++)?(?:said|claimed|wrote|stated|concluded|answered|argued)\b",
    re.IGNORECASE,
)
_EARLIER_RE = re.compile(
    r"\b(?:previously|earlier|originally|initially|at[ \t]++first|last[ \t]++(?:round|time)"
    r"|in[ \t]++round[ \t]++\d++)\b",
    re.IGNORECASE,
)
_SPEAKER_WORD_RE = re.compile(r"\b(?:I|we)\b", re.IGNORECASE)
_REAFFIRM_RE = re.compile(r"\b(?:as|like)[ \t]++(?:I|we|my|our)\b", re.IGNORECASE)
RECAP_WINDOW = 200
"""How far before a declaration its clause is read for a recap (``Earlier I said ...``)."""
_NEGATION_RE = re.compile(r"[ \t*_]*+(?:\w++ly[ \t]++)?(?:not|n['’]t|never)\b", re.IGNORECASE)
_PAREN_LETTER_RE = re.compile(r"\(([A-Ja-j])\)")
FINAL_LINE_LIMIT = 200
"""Longest last line read as a bare final choice (``(B)``, ``B.``, ``**C**``)."""

_LAST_LINE_RE = re.compile(
    r"[ \t#*_-]*+(?:(?:[oO]ption|[cC]hoice)[ \t]++)?\(?([A-Ja-j])\)?[ \t*_.]*+"
    r"|[ \t#*_-]*+([A-J])\)[ \t]++[^\s(][^\n(]{0,80}+",
)
_OPTION_LINE_RE = re.compile(r"[ \t#*_-]*+\(?[A-J]\)")
_SENTENCE_END_RE = re.compile(r"\n|[.!?;](?=\s)")
_TAIL_NOISE_RE = re.compile(r"[\s.!*_)\]`'\"]*+")
_MARKUP_ONLY_RE = re.compile(r"[\s*_#:=-]*+")


@dataclass(frozen=True, slots=True)
class Declaration:
    """A declaration marker found in a response.

    Attributes:
        kind: How it was written.
        start: Where the marker starts.
        end: Where its fragment starts (the end of the marker; for a box, its content).
    """

    kind: DeclarationKind
    start: int
    end: int


def box_end(text: str, declaration: Declaration) -> int:
    r"""Where a boxed declaration's content ends (its closing brace), or ``-1``.

    Braces nest; escaped braces (``\\{``) do not count. Only :data:`BOX_LIMIT` characters
    are read, so a box left open costs a bounded scan.

    Args:
        text: The whole response.
        declaration: A ``boxed`` declaration.

    Returns:
        The offset of the closing brace, or ``-1`` when the box is not closed in time.
    """
    depth = 1
    for m in _BRACE_RE.finditer(text, declaration.end, declaration.end + BOX_LIMIT):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


_NON_BLANK_LINE_RE = re.compile(r"[^\s][^\n]*+")


def _final_paren(text: str, is_confidence_line: LineFilter) -> list[Declaration]:
    tail = deque(_PAREN_LETTER_RE.finditer(text), maxlen=1)
    if not tail:
        return []
    last = tail[0]
    line_end = text.find("\n", last.end())
    first = text[last.end() : line_end if line_end >= 0 else len(text)]
    if not _TAIL_NOISE_RE.fullmatch(first):
        return []
    if line_end >= 0:
        for count, m in enumerate(_NON_BLANK_LINE_RE.finditer(text, line_end)):
            line = m.group()
            if count == SKIP_LIMIT or not (
                _TAIL_NOISE_RE.fullmatch(line) or is_confidence_line(line)
            ):
                return []
    return [Declaration("final", last.start(), last.start())]


def _last_lines(text: str, is_confidence_line: LineFilter) -> Iterator[tuple[int, str]]:
    """Non-blank lines that carry no confidence, last first (at most SKIP_LIMIT skipped)."""
    end = len(text.rstrip())
    for _ in range(SKIP_LIMIT):
        if end <= 0:
            return
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        # A final-choice line is short: a long one is yielded unread, and rejected below.
        if line.strip() and (len(line) > FINAL_LINE_LIMIT or not is_confidence_line(line)):
            yield start, line
        end = start - 1


def _last_line(text: str, is_confidence_line: LineFilter) -> list[Declaration]:
    lines = _last_lines(text, is_confidence_line)
    start, line = next(lines, (0, ""))
    if len(line) > FINAL_LINE_LIMIT:
        return []
    m = _LAST_LINE_RE.fullmatch(line.rstrip())
    if m is None:
        return []
    if m.group(2) is not None:
        _, previous = next(lines, (0, ""))
        if _OPTION_LINE_RE.match(previous):
            return []  # the response ends with the list of options, not with a choice
    position = start + m.start(1 if m.group(1) else 2)
    return [Declaration("final", position, position)]


def _last_markers(
    kind: DeclarationKind, pattern: re.Pattern[str], text: str, start: int = 0
) -> list[Declaration]:
    """The last :data:`MAX_DECLARATIONS` matches of ``pattern`` from ``start`` (at C speed)."""
    last = deque(pattern.finditer(text, start), maxlen=MAX_DECLARATIONS)
    return [Declaration(kind, m.start(), m.end()) for m in last]


def _answer_line_start(text: str) -> int:
    """Where the line of the first "answer" in ``text`` starts; -1 without one.

    Every label and phrase marker holds the word "answer" on the line where it starts, so
    none starts earlier: their (costly) scans begin here, and a long response is read from
    its declaration on instead of from its first word.
    """
    first = _ANSWER_WORD_RE.search(text)
    return -1 if first is None else text.rfind("\n", 0, first.start()) + 1


def find_declarations(
    text: str, *, choice: bool = False, confidence_line: LineFilter | None = None
) -> list[Declaration]:
    """The last :data:`MAX_DECLARATIONS` declaration markers of ``text``, by position.

    Attribution to peers is not checked here (see :func:`is_own`).

    Args:
        text: The whole response.
        choice: Also look for choice declarations (``I choose``, a final ``(X)``).
        confidence_line: Tells confidence lines, which may follow a final choice; none are
            recognised when ``None``.

    Returns:
        The markers, sorted by start.
    """
    found = _last_markers("boxed", _BOXED_RE, text)
    answer_line = _answer_line_start(text)
    if answer_line >= 0:
        found += _last_markers("label", _LABEL_RE, text, answer_line)
        found += _last_markers("phrase", _PHRASE_RE, text, answer_line)
    found += _corrections(text)
    if choice:
        line_filter = confidence_line or _never
        found += _last_markers("choice", _CHOICE_RE, text)
        found += _last_markers("choice", _CHOICE_LABEL_RE, text)
        found += _final_paren(text, line_filter)
        found += _last_line(text, line_filter)
    found.sort(key=lambda d: (d.start, d.end))
    found = found[-MAX_DECLARATIONS:]
    if choice:
        found = [d for i, d in enumerate(found) if not _inside_earlier_sentence(text, found, i)]
    return found


_CORRECTION_WORDS = (
    "actually", "no", "wait", "scratch", "correction", "edit", "update", "oops", "sorry",
    "meant", "make that", "rather", "thought", "reflection",
)  # fmt: skip
_RESTATEMENT_WORDS = ("correct", "revis", "updat", "amend", "chang", "switch", "right", "actual",
                      "true", "final")  # fmt: skip


def _corrections(text: str) -> list[Declaration]:
    """Self-corrections: ``Actually no, it is 35``, ``changing my answer to 35``, ``35 is right``.

    Each scan runs only when one of its words occurs in the text.
    """
    lowered = text.lower()
    found: list[Declaration] = []
    if any(word in lowered for word in _CORRECTION_WORDS):
        markers = _last_markers("phrase", _CORRECTION_RE, text)
        found += [d for d in markers if _is_correction(text, d)]
    if any(word in lowered for word in _RESTATEMENT_WORDS):
        markers = _last_markers("phrase", _RESTATEMENT_RE, text)
        found += [d for d in markers if _short_value(text, d.end)]
    if "correct" in lowered or "right" in lowered:
        markers = _last_markers("phrase", _VALUE_FIRST_RE, text)
        found += [
            Declaration("phrase", d.start, d.start)
            for d in markers
            if _opens_sentence(text, d.start)
        ]
    return found


def _is_correction(text: str, declaration: Declaration) -> bool:
    """Whether a self-correction cue (``Actually no, it is``, ``Wait,``) states a short value.

    The cue opens a sentence or follows punctuation, and the rest of its sentence is at most
    :data:`CORRECTION_WORDS` words (the value and perhaps a unit).
    """
    before = text[max(0, declaration.start - 3) : declaration.start].rstrip(" \t")
    if before and before[-1] not in _CORRECTION_BEFORE:
        return False
    stated = _STATES_VALUE_RE.search(text, declaration.start, declaration.end) is not None
    return _short_value(text, declaration.end, noun=stated)


def _short_value(text: str, start: int, *, noun: bool = True) -> bool:
    """Whether the sentence from ``start`` is a value and at most a unit or two.

    A value compared (``10% more``, ``5 less than``) is not one. A choice letter may carry
    its option's text; the words after a number are units (:data:`UNIT_WORDS`) or numbers
    (``1 1/2``), and with ``noun`` one other word (``it is 35 apples``); after a bare cue
    (``Edit: 2 typos fixed``) no other word.
    """
    rest = text[start : start + FRAGMENT_LIMIT].lstrip(" \t*_$")
    stop = _CORRECTION_END_RE.search(rest, 1)  # the value may open with "(": "(B) is wrong"
    if stop and stop.group() == "?":
        return False  # "Wait, (B)?" wonders; it does not correct
    sentence = rest[: stop.start()] if stop else rest
    words = sentence.split()
    if len(words) > CORRECTION_WORDS or _NOT_A_VALUE_RE.search(sentence):
        return False
    if _RELATIVE_RE.search(sentence):
        return False
    if words and (_LETTER_RE.match(words[0]) or words[0].lower() in ("option", "choice")):
        return True  # a letter and its option's text: "On reflection, (C) Paris."
    others = [
        w
        for w in (w.strip("*_`$.,:;!)").lower() for w in words[1:])
        if w and w not in UNIT_WORDS and not any(c.isdigit() for c in w)
    ]
    return len(others) <= (1 if noun else 0)


def _opens_sentence(text: str, start: int) -> bool:
    """Whether ``start`` opens a sentence or clause (``35 is correct``, ``So 35 is right``)."""
    before = text[max(0, start - 40) : start].rstrip(" \t*_")
    return not before or before[-1] in _CORRECTION_BEFORE or bool(_OPENING_WORD_RE.search(before))


def is_recap(text: str, start: int) -> bool:
    """Whether a declaration restates an earlier answer of the speaker's, not the current one.

    ``Earlier I said the answer is 30`` and ``my previous answer is 30`` are recaps; ``As I
    said earlier, the answer is 12`` reaffirms and is not.

    The clause before the marker is read, from the last sentence end or contrast word
    (``but``, ``now``, ``instead``) on: ``I previously said 30, but the answer is 35`` and
    ``Before, I thought 30; now the answer is 35`` declare 35.

    Args:
        text: The whole response.
        start: Where the declaration starts.

    Returns:
        True for a recap.
    """
    window = text[max(0, start - RECAP_WINDOW) : start]
    boundaries = deque(_CLAUSE_BOUNDARY_RE.finditer(window), maxlen=1)
    clause = window[boundaries[0].end() :] if boundaries else window
    recap = _RECAP_RE.search(clause) is not None or (
        _EARLIER_RE.search(clause) is not None and _SPEAKER_WORD_RE.search(clause) is not None
    )
    return recap and _REAFFIRM_RE.search(clause) is None


def _inside_earlier_sentence(text: str, found: list[Declaration], index: int) -> bool:
    """A final letter in the same sentence as an earlier declaration belongs to that one.

    In ``The answer is (B), not (C).`` the letter ``(C)`` is final in position but is part of
    the ``the answer is`` declaration, which states (B).
    """
    declaration = found[index]
    if declaration.kind != "final" or index == 0:
        return False
    earlier = found[index - 1]
    if earlier.kind == "boxed" or declaration.start - earlier.end > FRAGMENT_LIMIT:
        return False
    return _SENTENCE_END_RE.search(text, earlier.end, declaration.start) is None


def _never(line: str) -> bool:
    return False


def is_own(text: str, declaration: Declaration) -> bool:
    """Whether a declaration is the speaker's own, affirmative statement.

    A peer's statement that the speaker adopts (``Agent 2 says the answer is 12, and I
    agree``) is the speaker's (see :func:`debategraph.policies.attribution.is_adopted`).

    Args:
        text: The whole response.
        declaration: A marker of :func:`find_declarations`.

    Returns:
        False for peers' statements, quotes, copied peer blocks, hypotheticals and negations.
    """
    if declaration.kind in ("phrase", "choice") and _NEGATION_RE.match(text, declaration.end):
        return False
    if is_recap(text, declaration.start):
        return False
    if declaration.kind == "label":
        return not is_reproduced(text, declaration.start)
    owner = statement_owner(text, declaration.start)
    end = box_end(text, declaration) + 1 if declaration.kind == "boxed" else declaration.end
    if owner == "speaker" and end > 0 and is_attributed_after(text, end):
        owner = "peer"  # "the answer is 15 in their solution"
    if owner != "peer":
        return owner == "speaker"
    return end > 0 and is_adopted(text, end)


def fragment(text: str, declaration: Declaration) -> str:
    """The declared text of a marker.

    A boxed declaration gives its content; a ``final`` one the text from the letter on; the
    others the rest of the line after the marker, or, when that holds only Markdown, the
    next non-empty line. At most :data:`FRAGMENT_LIMIT` characters.

    Args:
        text: The whole response.
        declaration: A marker of :func:`find_declarations`.

    Returns:
        The fragment.
    """
    if declaration.kind == "boxed":
        stop = box_end(text, declaration)
        return text[declaration.end : stop] if stop >= 0 else ""
    limit = declaration.end + FRAGMENT_LIMIT
    line_end = text.find("\n", declaration.end, limit)
    rest = text[declaration.end : line_end if line_end >= 0 else limit]
    if declaration.kind == "final" or not _MARKUP_ONLY_RE.fullmatch(rest) or line_end < 0:
        return rest
    for _ in range(3):
        start = line_end + 1
        line_end = text.find("\n", start, start + FRAGMENT_LIMIT)
        rest = text[start : line_end if line_end >= 0 else start + FRAGMENT_LIMIT]
        if rest.strip() or line_end < 0:
            return rest
    return rest


def own_declarations(
    text: str, *, choice: bool = False, confidence_line: LineFilter | None = None
) -> Iterator[tuple[Declaration, str]]:
    """The speaker's own declarations with their fragments, last first.

    Only the last :data:`MAX_DECLARATIONS` markers are examined.

    Args:
        text: The whole response.
        choice: Also look for choice declarations.
        confidence_line: See :func:`find_declarations`.

    Yields:
        ``(declaration, fragment)``, from the last declaration to the first.
    """
    found = find_declarations(text, choice=choice, confidence_line=confidence_line)
    for declaration in reversed(found):
        if is_own(text, declaration):
            yield declaration, fragment(text, declaration)
