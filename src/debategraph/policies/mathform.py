r"""A canonical string for math answers: the key MATH answers are voted on.

Grading uses symbolic equivalence (:mod:`debategraph.policies.mathgrade`); votes need a
cheap, exact key instead, so that ``\dfrac{1}{2}``, ``\frac12``, ``0.5`` and ``1/2`` count
as one answer while ``-3`` and ``3``, ``x^2+1`` and ``x^2-1``, ``(3,-2)`` and ``(3,2)``
stay apart. The key keeps every sign, operator, bracket and letter; it only removes what
does not change the value:

1. the last ``\boxed{...}`` when the fragment has one; enclosing ``$``, ``\(...\)``,
   ``\[...\]``;
2. spacing (``\,``, ``\;``, ``\!``, ``~``, ``\quad``, all whitespace but one space that
   ends a command before a letter, as in ``\pi r``), ``\left``/``\right``,
   ``\displaystyle``, ``\$``, percent signs, degree marks, a trailing period;
3. trailing units in ``\text{...}``/``\mbox{...}`` after a value (``5\text{ cm}``); any other
   ``\text{...}``, ``\textbf``, ``\mathrm``, ``\mbox`` is unwrapped;
4. spelling variants: ``\dfrac``/``\tfrac`` -> ``\frac``; ``\le``/``\ge``/``\ne`` ->
   ``\leq``/``\geq``/``\neq``; unicode minus, ``×``, ``·``, ``≤``, ``≥``, ``≠``, ``π``, ``∞``
   and ``√`` -> their LaTeX commands; single-character groups ``^{2}`` -> ``^2``;
   ``\frac12`` -> ``\frac{1}{2}``, ``\sqrt2`` -> ``\sqrt{2}``;
5. solutions joined by "or"/"and" (also ``\text{ or }``) become a comma list, and a
   leading single-variable assignment ``x=`` is dropped when it is the only ``=`` or when
   every item of a bracket-free list has one (``x = -2 or x = 3`` -> ``-2,3``);
6. thousands separators in a plain number (``1{,}000``, ``1,000`` without brackets);
7. a mixed number written as one (``2 1/2``, ``2\frac{1}{2}``, ``2½``) is the rational it
   denotes (``\frac{5}{2}``); ``2-1/2`` stays a subtraction;
8. a plain rational (an integer, a decimal, ``a/b`` or ``\frac{a}{b}`` with integer parts,
   optionally signed) prints as an integer, as ``\frac{p}{q}`` in lowest terms (sign in
   front) when ``q`` is at most 1000, and as a plain decimal otherwise.

The work is a fixed number of linear passes over a fragment of bounded length; no sympy.
"""

from __future__ import annotations

import re
from fractions import Fraction

MAX_LENGTH = 400
"""The longest math fragment canonicalised; longer ones are not a final answer."""

MAX_FRACTION_DENOMINATOR = 1000
r"""Rationals with a denominator up to this print as ``\frac{p}{q}``, others as decimals."""

_BOXED_RE = re.compile(r"\\(?:boxed|fbox)[ \t]*+\{")
_DELIMITED_RE = re.compile(r"\$\$?((?:[^$\\]|\\.)*+)\$\$?|\\\((.*?)\\\)|\\\[(.*?)\\\]", re.DOTALL)
_SPACING_RE = re.compile(
    r"\\[,;:! ]|\\q?quad\b|\\displaystyle\b|\\left\b|\\right\b|\\middle\b|~|\\\$|\\?%"
    r"|\^\{?\\circ\}?|°|\s++"
)
_UNITS_RE = re.compile(r"(?<=[\d}])\\(?:text|mbox|mathrm)\{[^{}]*+\}$")
_TEXT_RE = re.compile(r"\\(?:text|textbf|textrm|textnormal|textit|mathrm|mathbf|mbox)\{([^{}]*+)\}")
_SPELLING = (
    (re.compile(r"\\[dt]frac\b"), r"\\frac"),
    (re.compile(r"\\le(?![a-zA-Z])"), r"\\leq"),
    (re.compile(r"\\ge(?![a-zA-Z])"), r"\\geq"),
    (re.compile(r"\\ne(?![a-zA-Z])"), r"\\neq"),
    (re.compile(r"\{,\}"), ","),
)
_UNICODE = str.maketrans(
    {
        "−": "-",
        "–": "-",
        "×": r"\times ",
        "·": r"\cdot ",
        "≤": r"\leq ",
        "≥": r"\geq ",
        "≠": r"\neq ",
        "π": r"\pi ",
        "∞": r"\infty ",
        "√": r"\sqrt",
    }
)
_CONNECTOR_RE = re.compile(
    r"[ \t]*+(?:\\(?:text|mbox|textrm)\{[ \t]*+(?:or|and)[ \t]*+\}|\b(?:or|and)\b)[ \t]*+"
)
_ASSIGNED_ITEM_RE = re.compile(r"[a-zA-Z](?:_\w)?=([^=,<>]++)")
_COMMAND_SPACE_RE = re.compile(r"(\\[a-zA-Z]++)\s++(?=[a-zA-Z])")
_KEPT_SPACE = "\x00"
_SINGLE_GROUP_RE = re.compile(r"([\^_])\{([^{}])\}")
_SHORT_FRAC_RE = re.compile(r"\\frac(\d)(\d)|\\frac(\d)(?=\{)|\\frac(\{[^{}]*+\})(\d)")
_SHORT_SQRT_RE = re.compile(r"\\sqrt(\d)")
_ASSIGNMENT_RE = re.compile(r"[a-zA-Z](?:_\w)?=(?=[^=<>]*+$)")
_THOUSANDS_RE = re.compile(r"-?\d{1,3}+(?:,\d{3})++(?:\.\d++)?")
_RATIONAL_RE = re.compile(
    r"(?P<sign>-?)(?:\\frac\{(?P<fn>-?\d++)\}\{(?P<fd>-?\d++)\}"
    r"|(?P<n>\d++(?:\.\d++)?|\.\d++)(?:/(?P<d>\d++))?)"
)
_VULGAR_FRACTIONS = {
    "½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5",
    "⅗": "3/5", "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8",
    "⅞": "7/8",
}  # fmt: skip
_MIXED_RE = re.compile(
    r"[ \t]*+(?P<sign>-?)[ \t]*+(?P<whole>\d{1,3}+)(?:[ \t]++(?P<n>\d++)[ \t]*+/[ \t]*+(?P<d>\d++)"
    r"|[ \t]*+\\[dt]?frac[ \t]*+(?:\{[ \t]*+(?P<fn>\d++)[ \t]*+\}|(?P<fn1>\d))"
    r"[ \t]*+(?:\{[ \t]*+(?P<fd>\d++)[ \t]*+\}|(?P<fd1>\d))"
    r"|[ \t]*+(?P<vf>[" + "".join(_VULGAR_FRACTIONS) + r"]))[ \t.]*+"
)


def _mixed_number(text: str) -> str | None:
    r"""The key of a fragment that is one mixed number (``2 1/2``, ``2\frac{1}{2}``, ``2½``).

    Written with a space or as LaTeX's juxtaposition, the whole part adds to a proper
    fraction; ``2-1/2`` and improper parts (``2\frac{3}{2}``) are left as expressions.
    """
    m = _MIXED_RE.fullmatch(text)
    if m is None:
        return None
    if m.group("vf"):
        numerator, denominator = (int(part) for part in _VULGAR_FRACTIONS[m.group("vf")].split("/"))
    else:
        numerator = int(m.group("n") or m.group("fn") or m.group("fn1"))
        denominator = int(m.group("d") or m.group("fd") or m.group("fd1"))
    if denominator == 0 or not 0 < numerator < denominator:
        return None
    value = int(m.group("whole")) + Fraction(numerator, denominator)
    return _format_rational(-value if m.group("sign") else value)


def _last_boxed(text: str) -> str | None:
    starts = [m.end() for m in _BOXED_RE.finditer(text)]
    if not starts:
        return None
    start = starts[-1]
    depth = 1
    for pos in range(start, len(text)):
        char = text[pos]
        if char == "{" and text[pos - 1] != "\\":
            depth += 1
        elif char == "}" and text[pos - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[start:pos]
    return None


def _unwrap(text: str) -> str:
    text = text.strip()
    boxed = _last_boxed(text)
    if boxed is not None:
        return boxed
    m = _DELIMITED_RE.fullmatch(text.rstrip(". "))
    if m:
        return next(g for g in m.groups() if g is not None)
    return text


def _short_frac(m: re.Match[str]) -> str:
    if m.group(1):
        return rf"\frac{{{m.group(1)}}}{{{m.group(2)}}}"
    if m.group(3):
        return rf"\frac{{{m.group(3)}}}"
    return rf"\frac{m.group(4)}{{{m.group(5)}}}"


def _format_rational(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    if value.denominator <= MAX_FRACTION_DENOMINATOR:
        return rf"{sign}\frac{{{abs(value.numerator)}}}{{{value.denominator}}}"
    return f"{float(value):.10g}"


def _rational(text: str) -> str | None:
    m = _RATIONAL_RE.fullmatch(text)
    if m is None:
        return None
    if m.group("fn") is not None:
        numerator, denominator = Fraction(m.group("fn")), Fraction(m.group("fd"))
    else:
        numerator = Fraction(m.group("n"))
        denominator = Fraction(m.group("d")) if m.group("d") else Fraction(1)
    if denominator == 0:
        return None
    value = numerator / denominator
    return _format_rational(-value if m.group("sign") else value)


def canonical_math(fragment: str) -> str | None:
    r"""The canonical voting key of a math answer (see the module docstring).

    Args:
        fragment: The declared answer, e.g. ``"$\dfrac{1}{2}$"`` or ``"x = -3"``.

    Returns:
        The key, e.g. ``"\frac{1}{2}"`` or ``"-3"``; ``None`` when nothing is left or the
        fragment is longer than :data:`MAX_LENGTH`.
    """
    if len(fragment) > MAX_LENGTH:
        return None
    mixed = _mixed_number(_unwrap(fragment).replace("−", "-"))
    if mixed is not None:
        return mixed
    text = _CONNECTOR_RE.sub(",", _unwrap(fragment).translate(_UNICODE))
    text = _COMMAND_SPACE_RE.sub(rf"\1{_KEPT_SPACE}", text)
    text = _UNITS_RE.sub("", _SPACING_RE.sub("", text))
    previous = None
    while previous != text:
        previous, text = text, _TEXT_RE.sub(r"\1", text)
    for pattern, replacement in _SPELLING:
        text = pattern.sub(replacement, text)
    text = _SPACING_RE.sub("", text).rstrip(".").replace(_KEPT_SPACE, " ")
    text = _SINGLE_GROUP_RE.sub(r"\1\2", text)
    text = _SHORT_SQRT_RE.sub(r"\\sqrt{\1}", _SHORT_FRAC_RE.sub(_short_frac, text))
    if text.count("=") == 1:
        assignment = _ASSIGNMENT_RE.match(text)
        if assignment:
            text = text[assignment.end() :]
    elif "=" in text and not any(bracket in text for bracket in "()[]{}"):
        items = [_ASSIGNED_ITEM_RE.fullmatch(item) for item in text.split(",")]
        if all(items):
            text = ",".join(m.group(1) for m in items if m)
    if _THOUSANDS_RE.fullmatch(text):
        text = text.replace(",", "")
    if text in ("-0", "+0"):
        text = "0"
    rational = _rational(text.lstrip("+"))
    return rational if rational is not None else (text or None)
