"""Answer extraction and canonicalisation.

The last valid declaration in a response wins. A response without one is an abstention
(``None``): it is never counted as correct and never replaced by a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from debategraph.policies.types import Answer, TaskKind

_NUMBER = r"[-−]?\$?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?/\s?\d+(?:\.\d+)?)?"
_NUMBER_RE = re.compile(_NUMBER)
_BOXED_RE = re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_ANSWER_LINE_RE = re.compile(
    r"(?:final answer|answer)\s*(?:is)?\s*[:=]?\s*(?:\*\*)?\s*(.+?)\s*(?:\*\*)?\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_CHOICE_PAREN_RE = re.compile(r"\(([A-J])\)")
_CHOICE_BARE_RE = re.compile(r"^\s*\(?([A-J])\)?(?:[\s.:)]|$)")
_CONFIDENCE_RE = re.compile(
    r"confidence(?:\s+(?:score|level))?\s*(?:is)?\s*[:=]?\s*\**\s*([0-9]*\.?[0-9]+)\s*(%?)",
    re.IGNORECASE,
)
AnswerSource = Literal["declared", "fallback", "none"]
"""How an answer was found."""

_ARTICLES_RE = re.compile(r"\b(a|an|the)\b")
_PUNCT_RE = re.compile(r"[^\w\s]")


def canonical_number(text: str) -> Answer:
    """Canonical string of the first number in ``text``, or ``None``.

    Handles thousands separators, currency signs, a leading minus, decimals and fractions.
    Integral values print without a decimal point (``"18.00"`` -> ``"18"``); others with up to
    ten significant digits.

    Args:
        text: A fragment that should hold one number, e.g. ``"$1,234.50."``.

    Returns:
        The canonical number, or ``None`` when ``text`` holds no number.
    """
    match = _NUMBER_RE.search(text)
    if match is None:
        return None
    raw = match.group(0).replace("−", "-").replace("$", "").replace(",", "").replace(" ", "")
    try:
        if "/" in raw:
            num, den = raw.split("/")
            value = Fraction(num) / Fraction(den)
        else:
            value = Fraction(raw)
    except (ValueError, ZeroDivisionError):
        return None
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.10g}"


def canonical_choice(text: str, num_choices: int | None = None) -> Answer:
    """The choice letter declared in ``text`` (``"(C)"``, ``"C"``, ``"C) ..."``), upper-case."""
    match = _CHOICE_PAREN_RE.search(text.upper()) or _CHOICE_BARE_RE.match(text.upper())
    if match is None:
        return None
    letter = match.group(1)
    if num_choices is not None and ord(letter) - ord("A") >= num_choices:
        return None
    return letter


def canonical_text(text: str) -> Answer:
    """Lower-case, drop punctuation and articles, collapse whitespace; empty -> ``None``."""
    cleaned = _ARTICLES_RE.sub(" ", _PUNCT_RE.sub(" ", text.lower()))
    cleaned = " ".join(cleaned.split())
    return cleaned or None


def canonicalize(text: str, task: TaskKind, num_choices: int | None = None) -> Answer:
    """Canonical form of an already isolated answer fragment for ``task``."""
    if task == "number":
        return canonical_number(text)
    if task == "choice":
        return canonical_choice(text, num_choices)
    return canonical_text(text)


def _declarations(response: str) -> list[tuple[int, str]]:
    found = [(m.start(), m.group(1)) for m in _BOXED_RE.finditer(response)]
    found += [(m.start(), m.group(1)) for m in _ANSWER_LINE_RE.finditer(response)]
    return sorted(found)


@dataclass(frozen=True)
class Extraction:
    """An extracted answer and how it was found (``declared``, ``fallback`` or ``none``)."""

    answer: Answer
    source: AnswerSource


def parse_answer(response: str, task: TaskKind, num_choices: int | None = None) -> Extraction:
    """The canonical answer of ``response`` and how it was found."""
    for _, fragment in reversed(_declarations(response)):
        answer = canonicalize(fragment, task, num_choices)
        if answer is not None:
            return Extraction(answer, "declared")
    answer = extract_answer(response, task, num_choices)
    return Extraction(answer, "none" if answer is None else "fallback")


def extract_answer(response: str, task: TaskKind, num_choices: int | None = None) -> Answer:
    r"""Extract the canonical answer of a model response.

    Declarations are ``\boxed{...}`` and ``Answer: ...`` / ``The answer is ...`` lines; the
    last valid one wins. Without a valid declaration, a ``number`` task falls back to the last
    number in the text and a ``choice`` task to the last ``(X)``; a ``text`` task abstains.

    Args:
        response: The model's whole response.
        task: The answer kind.
        num_choices: For ``choice`` tasks, how many options exist (letters beyond are invalid).

    Returns:
        The canonical answer, or ``None`` when the response declares none (an abstention).
    """
    for _, fragment in reversed(_declarations(response)):
        answer = canonicalize(fragment, task, num_choices)
        if answer is not None:
            return answer
    if task == "number":
        numbers = _NUMBER_RE.findall(response)
        return canonical_number(numbers[-1]) if numbers else None
    if task == "choice":
        letters = [m for m in _CHOICE_PAREN_RE.findall(response)]
        for letter in reversed(letters):
            if canonical_choice(f"({letter})", num_choices):
                return letter
    return None


def extract_confidence(response: str) -> float | None:
    """The last self-reported confidence in ``response``, scaled to [0, 1].

    ``"Confidence: 0.8"``, ``"Confidence Score: 80%"`` and ``"confidence level: 85"`` all
    parse; a value over 1 is read as a percentage. Values over 100 are invalid.

    Returns:
        The confidence in [0, 1], or ``None`` when none is stated or it is invalid.
    """
    matches = _CONFIDENCE_RE.findall(response)
    if not matches:
        return None
    number, percent = matches[-1]
    value = float(number)
    if percent or value > 1:
        value /= 100
    return value if 0 <= value <= 1 else None


def same_answer(a: Answer, b: Answer) -> bool:
    """Whether two canonical answers agree; abstentions never agree with anything."""
    return a is not None and a == b
