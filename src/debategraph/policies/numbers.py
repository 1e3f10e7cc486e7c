r"""Reading written numbers: the value a number in model text denotes, or an abstention.

What is read (each is one number token):

- integers and decimals, with a leading-dot decimal (``.5``) and a sign (``-3``, ``−3``);
- thousands separators ``1,250``, ``1{,}250``, ``1\,250`` and thin or no-break spaces
  (groups of exactly three digits);
- LaTeX fractions ``\frac{1}{2}``, ``\dfrac``, ``\tfrac`` and ``\frac12``; plain ``3/4``;
- square roots ``\sqrt{4}``, ``\sqrt9``, also as a fraction's part (``\frac{1}{\sqrt{4}}``),
  when they are rational: ``\sqrt{0.25}`` is 0.5, while an irrational root (``\sqrt{2}``)
  has no exact value to compare and reads as nothing;
- scientific notation ``1.5e3``, powers ``10^6``, ``10^{-3}``, ``2^{10}`` and
  ``2.5 \times 10^3`` (also ``x``, ``×``, ``*``, ``\cdot``);
- mixed numbers with a proper fraction: ``2 1/2``, ``2-1/2``, ``2\frac{1}{2}`` and the
  unicode fractions ``½``, ``2½``, ``2 ½`` are 2.5 (``2 3/2`` is ambiguous);
- ``thousand``, ``million``, ``billion`` and ``trillion`` after a number;
- currency signs (``$``, ``\$``, ``€``, ``£``, ``¥``), percent signs and units are dropped:
  ``$1,250.00`` is 1250, ``45%`` is 45 (the number the answer states, as GSM8K references
  give it) and ``12 cm`` is 12.

A minus is a sign only when it touches the digits and does not follow a number or a closing
bracket: in ``100 - 25`` and ``100 -25`` it is an operator. Forms that could mean more than
one value are ambiguous and read as nothing: times and ratios (``3:45``), dates
(``3/4/2020``), malformed or European separators (``1,25``, ``1.234,5``), a whole number
before an improper fraction or a root (``3 3/2``, ``2\sqrt{4}``) and a zero denominator.

Canonical strings: an integral value prints without a decimal point (``"18.00"`` -> ``"18"``),
any other with up to ten significant digits (``"0.3333333333"``).

Every pattern is linear: possessive quantifiers, no nested repetition that can backtrack.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

MAX_EXPONENT = 300
"""Largest power of ten (or power) read; larger ones are ambiguous rather than computed."""

_SEP = r"(?:,|\{,\}|\\,|[\u2009\u202f\u00a0])"
VULGAR_FRACTIONS = {
    "½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4), "⅕": (1, 5), "⅖": (2, 5),
    "⅗": (3, 5), "⅘": (4, 5), "⅙": (1, 6), "⅚": (5, 6), "⅛": (1, 8), "⅜": (3, 8), "⅝": (5, 8),
    "⅞": (7, 8),
}  # fmt: skip
"""Unicode fractions read as numbers (``½`` is 0.5, ``2½`` and ``2 ½`` are 2.5)."""
_VULGAR = "[" + "".join(VULGAR_FRACTIONS) + "]"
_NUM = r"[-−]?(?:\d++(?:\.\d++)?|\.\d++)"
_ROOT_ARG = r"(?:\d++(?:\.\d++)?|\.\d++)"


def _root(name: str) -> str:
    r"""``\sqrt{4}`` or ``\sqrt4`` with its argument in group ``name`` (or ``name1``)."""
    return rf"\\sqrt[ \t]*+(?:\{{[ \t]*+(?P<{name}>{_ROOT_ARG})[ \t]*+\}}|(?P<{name}1>\d))"


_NUMBER_RE = re.compile(
    rf"""
    (?=[-−–$€£¥\\.\d{_VULGAR[1:-1]}])    # cheap first-character filter (a large speed-up)
    (?=[-−–]?+(?:\\?\$|[€£¥])?+[ \t]?+[-−–]?+(?:\d|\.\d|\\[dt]?frac|\\sqrt|{_VULGAR}))
    (?<![A-Za-z\d.^_\\])
    (?P<neg0>[-−–](?=\\?[$€£¥\\]))?
    (?:(?P<cur>\\?\$|[€£¥])[ \t]?+)?
    (?P<neg>[-−–](?=[\d.\\]))?
    (?:
        \\[dt]?frac[ \t]*+
            (?:\{{[ \t]*+(?:(?P<fn>{_NUM})|{_root("fns")})[ \t]*+\}}|(?P<fn1>\d))[ \t]*+
            (?:\{{[ \t]*+(?:(?P<fd>{_NUM})|{_root("fds")})[ \t]*+\}}|(?P<fd1>\d))
      | {_root("sq")}
      | (?P<whole>\d{{1,3}}+)(?:[ \t]++(?:and[ \t]++)?|-)
            (?P<mn>\d{{1,4}}+)[ \t]*+/[ \t]*+(?P<md>\d{{1,4}}+)(?![\d/]|[.,:]\d)
      | (?P<lwhole>\d{{1,3}}+)[ \t]*+\\[dt]?frac[ \t]*+
            (?:\{{[ \t]*+(?P<lmn>\d++)[ \t]*+\}}|(?P<lmn1>\d))[ \t]*+
            (?:\{{[ \t]*+(?P<lmd>\d++)[ \t]*+\}}|(?P<lmd1>\d))
      | (?P<vwhole>\d{{1,3}}+)?[ \t]?+(?P<vf>{_VULGAR})
      | (?P<int>\d{{1,3}}+(?:{_SEP}\d{{3}})++(?!\d)|\d++)(?:\.(?P<dec>\d++))?
      | \.(?P<lead>\d++)
    )
    (?:[eE](?P<exp>[-+−]?\d++))?
    (?:[ \t]*+(?:\\times|\\cdot|×|·|\*|x)[ \t]*+10[ \t]*+\^[ \t]*+
        (?:\{{[ \t]*+(?P<p10>[-−]?\d++)[ \t]*+\}}|(?P<p10b>[-−]?\d++)))?
    (?:[ \t]*+\^[ \t]*+(?:\{{[ \t]*+(?P<pow>[-−]?\d++)[ \t]*+\}}|(?P<powb>\d++)))?
    (?:[ \t]*+/[ \t]*+(?P<den>\d++(?:\.\d++)?))?
    (?:[ \t]++(?P<mult>thousand|million|billion|trillion)\b)?
    (?P<pct>[ \t]*+(?:\\?%|percent\b|per[ \t]cent\b))?
    """,
    re.VERBOSE | re.IGNORECASE,
)
_MULTIPLIERS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_SEP_RE = re.compile(_SEP)
_AFTER_AMBIGUOUS_RE = re.compile(r"[:.,/]\d")
_BEFORE_AMBIGUOUS_RE = re.compile(r"\d[:.,/]$")
_MIXED_RE = re.compile(r"[ \t]++\d++[ \t]*+/[ \t]*+\d|[ \t]*+\\(?:[dt]?frac|sqrt)\b")
_WHOLE_BEFORE_RE = re.compile(r"\d[ \t]*+$")
MAX_DIGITS = 400
"""Longest digit string read as a number; longer ones are not numbers an answer states."""
TAIL_WINDOW = 4096
"""How much of a long text's end :func:`last_number` reads first."""
TAIL_MARGIN = 2 * MAX_DIGITS
"""How far into the tail window the last token must start to be trusted without a full
scan."""
_BINARY_BEFORE_RE = re.compile(r"(?:[\d)\]}][ \t]*+|[A-Za-z_])$")

_MARKUP_RE = re.compile(
    r"\\(?:boxed|fbox|text|textbf|textrm|textnormal|mathrm|mathbf|mbox)[ \t]*+\{"
    r"|\\(?:left|right|displaystyle|[()\[\]])|\\?\$|\*\*|__|`"
)
_LEAD_RE = re.compile(r"[\s:*_'\"“”‘’(\[{]++")
_STOP_RE = re.compile(
    r"\n|[.!?](?=\s|$)|;|,(?=[ \t]*+[A-Za-z]{2})|\((?=[ \t]*+[A-Za-z])"
    r"|\b(?:because|since|as|which|given|where|when|if)\b|\bi\.[ \t]?e\.",
    re.IGNORECASE,
)
_EQUALS_RE = re.compile(r"=|≈|\\approx")
_RESTATED_RE = re.compile(
    r"[ \t,;:(—–-]*+(?:i\.[ \t]?e\.|(?:that[ \t]++is(?:[ \t]++to[ \t]++say)?|namely|"
    r"which[ \t]++(?:is|equals|gives|makes|comes[ \t]++to)|in[ \t]++other[ \t]++words|"
    r"giving|making|for[ \t]++a[ \t]++total[ \t]++of)\b)[ \t,:]*+",
    re.IGNORECASE,
)
_JOIN_RE = re.compile(
    r"(?:[ \t]|[-–—+*/×÷~^,&]|\\times|\\cdot|\\div|\\pm|±"
    r"|\b(?:to|and|or|plus|minus|times|through|of|out|[a-z])\b)*+",
    re.IGNORECASE,
)
_JOIN_NOISE_RE = re.compile(r"[{}$*_]|\\[()]")
_OPERATOR_END_RE = re.compile(
    r"(?:\S[ \t]*+(?:[-−+*/×÷^]|\\times|\\cdot|\\div|\\pm|±)|\bof)[ \t]*+$", re.IGNORECASE
)

_UNITS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
]  # fmt: skip
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORDS = {word: n for n, word in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_WORD_RE = re.compile(
    rf"(?:(?P<tens>{'|'.join(_TENS)})(?:[- ](?P<unit>{'|'.join(_UNITS[1:10])}))?"
    rf"|(?P<word>{'|'.join(_UNITS)}))\b"
    r"(?![ \t]++(?:of|that|which|who|whom|whose|or|and|more|less|another|other|thing|hundred"
    r"|thousand|million|billion|dozen|half|quarter)\b|-)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class NumberToken:
    """One number found in a text.

    Attributes:
        start: Where the token starts (its sign included when it has one).
        end: Where it ends.
        value: The value it denotes, or ``None`` when it is ambiguous or invalid.
    """

    start: int
    end: int
    value: Fraction | None


def format_number(value: Fraction) -> str | None:
    """Canonical string of a value: integers without a point, else ten significant digits.

    Args:
        value: The exact value.

    Returns:
        The string, or ``None`` when the value is too large for a float.
    """
    if value.denominator == 1:
        return str(value.numerator)
    try:
        return f"{float(value):.10g}"
    except OverflowError:
        return None


def _fraction(text: str) -> Fraction:
    return Fraction(text.replace("−", "-"))


def _power(base: Fraction, exponent: int) -> Fraction | None:
    if abs(exponent) > MAX_EXPONENT or (base == 0 and exponent < 0):
        return None
    if max(base.numerator.bit_length(), base.denominator.bit_length()) * abs(exponent) > 4096:
        return None
    return base**exponent


def _mantissa(m: re.Match[str]) -> Fraction | None:
    if m.end() - m.start() > MAX_DIGITS:
        return None
    if m.group("int") is not None:
        digits = _SEP_RE.sub("", m.group("int"))
        return _fraction(f"{digits}.{m.group('dec')}") if m.group("dec") else Fraction(int(digits))
    if m.group("lead") is not None:
        return _fraction("0." + m.group("lead"))
    if m.group("whole") is not None:
        return _mixed(m.group("whole"), m.group("mn"), m.group("md"))
    if m.group("lwhole") is not None:
        top = m.group("lmn") or m.group("lmn1")
        return _mixed(m.group("lwhole"), top, m.group("lmd") or m.group("lmd1"))
    if m.group("vf") is not None:
        return int(m.group("vwhole") or 0) + Fraction(*VULGAR_FRACTIONS[m.group("vf")])
    if m.group("sq") or m.group("sq1"):
        return _exact_root(m.group("sq") or m.group("sq1"))
    numerator = _part(m, "fn")
    denominator = _part(m, "fd")
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def _mixed(whole: str, numerator: str, denominator: str) -> Fraction | None:
    """A mixed number (``2 1/2`` is 5/2); ``None`` unless the fraction is proper."""
    part = Fraction(int(numerator), int(denominator)) if int(denominator) else None
    if part is None or not 0 < part < 1:
        return None
    return int(whole) + part


def _part(m: re.Match[str], name: str) -> Fraction | None:
    """A fraction's numerator (``fn``) or denominator (``fd``): a number or an exact root."""
    plain = m.group(name) or m.group(f"{name}1")
    if plain is not None:
        return _fraction(plain)
    return _exact_root(m.group(f"{name}s") or m.group(f"{name}s1"))


def _exact_root(text: str) -> Fraction | None:
    """The square root of a decimal when it is rational (``4`` -> 2, ``0.25`` -> 1/2)."""
    value = _fraction(text)
    roots = [math.isqrt(value.numerator), math.isqrt(value.denominator)]
    if roots[0] ** 2 != value.numerator or roots[1] ** 2 != value.denominator:
        return None  # irrational: no exact value to compare
    return Fraction(roots[0], roots[1])


def _value(m: re.Match[str]) -> Fraction | None:
    value = _mantissa(m)
    for group, base_is_value in (("pow", True), ("powb", True), ("exp", False)):
        raw = m.group(group)
        if raw is None or value is None:
            continue
        factor = _power(value if base_is_value else Fraction(10), int(raw.replace("−", "-")))
        value = None if factor is None else (factor if base_is_value else value * factor)
    raw_p10 = m.group("p10") or m.group("p10b")
    if raw_p10 is not None and value is not None:
        factor = _power(Fraction(10), int(raw_p10.replace("−", "-")))
        value = None if factor is None else value * factor
    if m.group("den") is not None and value is not None:
        denominator = _fraction(m.group("den"))
        value = value / denominator if denominator else None
    if m.group("mult") and value is not None:
        value *= _MULTIPLIERS[m.group("mult").lower()]
    return value


def _token(text: str, m: re.Match[str]) -> NumberToken:
    start, end = m.start(), m.end()
    sign_start = m.start("neg0") if m.group("neg0") else m.start("neg")
    negative = sign_start >= 0
    if negative and _BINARY_BEFORE_RE.search(text, max(0, sign_start - 40), sign_start):
        negative = False
        start = sign_start + 1
    if m.group("pct"):
        end = m.start("pct")
    before = text[max(0, start - 2) : start]
    fraction = m.group("den") is not None or (
        m.group("int") is None
        and m.group("lead") is None
        and m.group("whole") is None
        and m.group("lwhole") is None
    )
    ambiguous = bool(
        _AFTER_AMBIGUOUS_RE.match(text, m.end())
        or _BEFORE_AMBIGUOUS_RE.search(before)
        or (fraction and _WHOLE_BEFORE_RE.search(before) and not negative)
        or (
            m.group("int") is not None
            and not (m.group("dec") or m.group("den") or m.group("pct"))
            and _MIXED_RE.match(text, end)
        )
    )
    value = None if ambiguous else _value(m)
    if value is not None and negative:
        value = -value
    return NumberToken(start, m.end(), value)


def iter_numbers(text: str, start: int = 0, end: int | None = None) -> Iterator[NumberToken]:
    """Every number token of ``text[start:end]``, left to right.

    Args:
        text: Any text.
        start: Where to start reading.
        end: Where to stop (``None``: the end of ``text``).

    Yields:
        The tokens; an ambiguous or invalid one has ``value`` ``None``.
    """
    stop = len(text) if end is None else end
    for m in _NUMBER_RE.finditer(text, start, stop):
        yield _token(text, m)


def canonical_number(text: str) -> str | None:
    """Canonical string of the first number in ``text``, or ``None``.

    Args:
        text: A fragment that should hold one number, e.g. ``"$1,234.50."``.

    Returns:
        The canonical number, or ``None`` when ``text`` holds no number or the first one is
        ambiguous.
    """
    for token in iter_numbers(text):
        return format_number(token.value) if token.value is not None else None
    return None


def declared_span(fragment: str) -> str:
    r"""The part of a declared fragment that states the value.

    Markup (``\boxed{``, ``\text{``, ``$``, ``**``, ...) is dropped, then the fragment is cut
    at the first sentence end, line break, ``;``, a comma or parenthesis that opens a
    remark, ``i.e.``, or a word such as ``because`` that starts a justification.

    Args:
        fragment: The text after a declaration marker.

    Returns:
        The span holding the declared value.
    """
    return _declared_parts(fragment)[0]


def _declared_parts(fragment: str) -> tuple[str, str]:
    """:func:`declared_span` and the text after it."""
    text = _MARKUP_RE.sub("", fragment[:600])
    lead = _LEAD_RE.match(text)
    if lead:
        text = text[lead.end() :]
    stop = _STOP_RE.search(text)
    return (text[: stop.start()], text[stop.start() :]) if stop else (text, "")


def _word_number(span: str) -> str | None:
    m = _WORD_RE.match(span.lstrip())
    if m is None:
        return None
    if m.group("word"):
        return str(_WORDS[m.group("word").lower()])
    unit = _WORDS[m.group("unit").lower()] if m.group("unit") else 0
    return str(_WORDS[m.group("tens").lower()] + unit)


def read_declared_number(fragment: str) -> tuple[str | None, bool]:
    """The number a declaration states, as a canonical string.

    The value is the first number of the declared span (see :func:`declared_span`); after an
    ``=`` (or ``≈``) only the right-hand side counts, so ``x = 5`` and ``2 + 3 = 5`` give 5.
    An expression, range or list (``2 + 3``, ``5-7``, ``5 to 7``, ``3, 4``, ``5 or 6``,
    ``2/3 of 9``, ``half of 12``) and an ambiguous number are abstentions, unless the
    expression is restated at once (``2/3 of 9, i.e. 6``, ``100 - 25, which is 75``, ``...,
    namely 7``): then the restated value counts. Number words from zero to ninety-nine are
    read too, unless a word such as ``of`` or ``that`` shows they are not a number (``one of
    them``).

    Args:
        fragment: The text after a declaration marker, or a boxed value.

    Returns:
        ``(canonical, found)``: ``found`` says whether the span holds a number at all, so a
        declaration without one (``the answer is below``) can be passed over while an
        ambiguous one (``the answer is 3:45``) abstains.
    """
    # A plain integer, the usual boxed answer, read as _read_span reads it.
    digits = fragment[1:] if fragment[:1] == "-" else fragment
    if digits.isascii() and digits.isdigit() and len(fragment) <= MAX_DIGITS:
        return str(int(fragment)), True
    return _read_span(fragment)


def _read_span(fragment: str, restated: bool = True) -> tuple[str | None, bool]:
    """:func:`read_declared_number` by its rules, without the plain-integer shortcut."""
    span, rest = _declared_parts(fragment)
    value, found, settled = _read_value(span)
    if not settled and restated:
        restatement = _RESTATED_RE.match(rest)
        if restatement is not None and restatement.end() > 0:
            again = _read_span(rest[restatement.end() :], restated=False)
            if again[0] is not None:
                return again
    return value, found


def _read_value(span: str) -> tuple[str | None, bool, bool]:
    """``(canonical, found, settled)`` of a declared span.

    Not settled: an expression, a range or no number, which a restatement after it (``i.e.
    6``) may settle.
    """
    equals = deque(_EQUALS_RE.finditer(span), maxlen=1)
    if equals:
        span = span[equals[0].end() :]
    tokens: list[NumberToken] = []
    for m in _NUMBER_RE.finditer(span):
        tokens.append(_token(span, m))
        if len(tokens) == 2:
            break
    if not tokens:
        word = _word_number(span)
        return word, word is not None, word is not None
    first = tokens[0]
    if first.value is None:
        return None, True, True
    if _OPERATOR_END_RE.search(span[: first.start]):
        return None, True, False
    if len(tokens) == 2:
        gap = _JOIN_NOISE_RE.sub("", span[first.end : tokens[1].start])
        if _JOIN_RE.fullmatch(gap):
            return None, True, False
    return format_number(first.value), True, True


MAX_FALLBACK_VALUES = 64
"""How many numbers, from the last, :func:`last_number` examines when it skips some."""

ValueFilter = Callable[[str, int], bool]
"""``skip(text, position)``: whether a value found at ``position`` must not be taken."""


def _last_kept(text: str, start: int, skip: ValueFilter | None) -> re.Match[str] | bool | None:
    """The last token from ``start`` that ``skip`` keeps, ``None`` when there is none.

    ``False`` when the window cannot settle it: a token may be cut by the window's start, or
    earlier ones may be kept.
    """
    tokens = deque(_NUMBER_RE.finditer(text, start), maxlen=MAX_FALLBACK_VALUES)
    for m in reversed(tokens):
        if start and m.start() - start < TAIL_MARGIN:
            return False
        if skip is None or not skip(text, m.start()):
            return m
    return False if start and len(tokens) < MAX_FALLBACK_VALUES else None


def last_number(text: str, skip: ValueFilter | None = None) -> tuple[str | None, bool]:
    """The last number of ``text`` that ``skip`` keeps: the "last number" fallback.

    Only the tail of a long text is read when it settles the question: a token found at
    least :data:`TAIL_MARGIN` characters into the tail window cannot be overlapped by a
    token starting before the window (such a token would be longer than any number read).
    With ``skip``, at most the last :data:`MAX_FALLBACK_VALUES` numbers are examined.

    Args:
        text: The text to read (the caller blanks what must not count, e.g. confidences).
        skip: Tells numbers that must not be taken (e.g. a peer's); none when ``None``.

    Returns:
        ``(canonical, found)``; an ambiguous last number gives ``(None, True)``.
    """
    window_start = max(0, len(text) - TAIL_WINDOW)
    found = _last_kept(text, window_start, skip)
    if found is False:
        found = _last_kept(text, 0, skip)
    if not isinstance(found, re.Match):
        return None, False
    value = _token(text, found).value
    return (format_number(value) if value is not None else None), True
