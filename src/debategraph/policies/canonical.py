r"""Canonical answers and grading: what votes compare, and when an answer is right.

Canonical forms (what votes compare)
------------------------------------
- ``number``: the value the number denotes (:mod:`debategraph.policies.numbers`);
- ``choice``: one upper-case letter within the options;
- ``math``: a key that keeps signs, operators and structure
  (:mod:`debategraph.policies.mathform`);
- ``text``: a yes/no answer (``Yes, because ...``, ``True``) reads ``"yes"``/``"no"``; other
  text is compared after normalising case, whitespace and articles only (plus enclosing
  quotes or Markdown and trailing sentence punctuation, which are not part of the answer).

Grading (:func:`answers_match`) is canonical equality, and symbolic equivalence for
``math`` (:mod:`debategraph.policies.mathgrade`, the optional ``math`` extra).
"""

from __future__ import annotations

import re

from debategraph.policies.mathform import canonical_math
from debategraph.policies.mathgrade import math_equivalent
from debategraph.policies.numbers import read_declared_number
from debategraph.policies.types import Answer, TaskKind

_CHOICE_TOKEN_RE = re.compile(
    r"\(([A-Ja-j])\)|(?<![\w'’\\])([A-J])(?![\w'’])|(?<![\w'’\\])([a-j])(?=[ \t]*+(?:[.):]|$))"
)


_ARTICLE_FOLLOWERS = frozenset(
    (
        "because", "since", "as", "is", "was", "which", "and", "or", "for", "given",
        "option", "choice", "seems", "looks", "appears", "would", "should", "must", "fits",
        "matches", "makes", "remains",
    )
)  # fmt: skip


_NEXT_WORD_RE = re.compile(r"[ \t]++([a-z]++)")


_CHOICE_ALTERNATIVE_RE = re.compile(
    r"\)?[ \t*_]*+(?:or|and|/|&|,)[ \t*_]*+(?:option[ \t]++|choice[ \t]++)?\(?([A-J])(?![\w'’])",
    re.IGNORECASE,
)


_MARKUP_RE = re.compile(
    r"\\(?:boxed|fbox|text|textbf|textrm|textnormal|mathrm|mathbf|mbox)[ \t]*+\{|\\?\$|\*\*|__|`"
)


SENTENCE_END_RE = re.compile(r"\n|[.!?;](?=\s|$)")


_TEXT_WRAPPER_RE = re.compile(r"\\(?:text|textbf|textrm|textnormal|mathrm|mbox)\{([^{}]*+)\}")


_TEXT_EDGES = " \t\r\n*_`\"'“”‘’$:="


_TEXT_TRAILING = " \t\r\n*_`\"'“”‘’$.!?,;:"


_YES_NO_RE = re.compile(
    r"(yes|no|true|false)(?:$|(?=[ \t]*+[,.;:!?—–-])|(?=[ \t]++(?:because|since|as|it|this|"
    r"that|the|they|he|she|there|i|we)\b))"
)


_ARTICLES_RE = re.compile(r"\b(?:a|an|the)\b")


_MATH_DELIMITED_RE = re.compile(
    r"\$\$?((?:[^$\\]|\\.){1,400}+)\$|\\\((.{1,400}?)\\\)|\\\[(.{1,400}?)\\\]"
)


_MATH_STOP_RE = re.compile(
    r"\n|[.!?](?=\s|$)|;|,(?=[ \t]*+[A-Za-z]{2})|\b(?:because|since|which|where|as)\b",
)


def read_choice(text: str, num_choices: int | None = None) -> tuple[Answer, bool]:
    """The choice letter a declared fragment states.

    Read: ``(C)``, ``(c)``, ``C``, ``C)``, ``Option C``, ``**C**``, ``c.``. A standalone ``A``
    or ``I`` followed by an ordinary word is English (``A bicycle``, ``I think``), not a
    letter. Two letters offered as alternatives (``B or C``) and a letter beyond
    ``num_choices`` are ambiguous.

    Args:
        text: The declared fragment.
        num_choices: How many options exist (letters beyond them are invalid).

    Returns:
        ``(letter, found)``; ``found`` is false when no letter is stated at all.
    """
    span = _MARKUP_RE.sub("", text[:300])
    stop = SENTENCE_END_RE.search(span)
    if stop:
        span = span[: stop.start()]
    for m in _CHOICE_TOKEN_RE.finditer(span):
        letter = next(g for g in m.groups() if g is not None).upper()
        if m.group(2) in ("A", "I"):
            word = _NEXT_WORD_RE.match(span, m.end())
            if word and word.group(1) not in _ARTICLE_FOLLOWERS:
                continue
        other = _CHOICE_ALTERNATIVE_RE.match(span, m.end())
        if other and other.group(1).upper() != letter:
            return None, True
        if num_choices is not None and ord(letter) - ord("A") >= num_choices:
            return None, True
        return letter, True
    return None, False


def canonical_choice(text: str, num_choices: int | None = None) -> Answer:
    """The choice letter declared in ``text`` (``"(C)"``, ``"C"``, ``"C) ..."``), upper-case.

    Args:
        text: An isolated answer fragment.
        num_choices: How many options exist.

    Returns:
        The letter, or ``None`` when none (or an ambiguous one) is stated.
    """
    return read_choice(text, num_choices)[0]


def canonical_text(text: str) -> Answer:
    r"""Canonical free-text answer: yes/no read as such, else case, whitespace and articles.

    Enclosing quotes, Markdown emphasis, ``\\text{...}`` and trailing sentence punctuation
    are not part of the answer; every other character is kept (``-3`` stays ``-3``).

    Args:
        text: An isolated answer fragment, e.g. ``"Yes, because ..."`` or ``"The Nile."``.

    Returns:
        ``"yes"``, ``"no"``, the normalised text, or ``None`` when nothing is left.
    """
    cleaned = _TEXT_WRAPPER_RE.sub(r"\1", text).strip(_TEXT_EDGES).lower()
    m = _YES_NO_RE.match(cleaned)
    if m:
        return "yes" if m.group(1) in ("yes", "true") else "no"
    cleaned = cleaned.rstrip(_TEXT_TRAILING).lstrip(_TEXT_EDGES)
    cleaned = " ".join(_ARTICLES_RE.sub(" ", cleaned).split())
    return cleaned or None


def math_span(text: str) -> str:
    """The math expression at the start of a declared fragment (delimited, or to its end)."""
    span = text[:600].lstrip(" \t:*_")
    delimited = _MATH_DELIMITED_RE.match(span)
    if delimited:
        return next(g for g in delimited.groups() if g is not None)
    stop = _MATH_STOP_RE.search(span)
    return span[: stop.start()] if stop else span


def canonicalize(fragment: str, task: TaskKind, num_choices: int | None = None) -> Answer:
    r"""Canonical form of an already isolated answer fragment (or a reference) for ``task``.

    Args:
        fragment: The fragment, e.g. ``"$1,234.50"``, ``"(b)"``, ``"\\dfrac{1}{2}"``, ``"Yes"``.
        task: The answer kind.
        num_choices: For ``choice``, how many options exist.

    Returns:
        The canonical answer, or ``None`` when the fragment holds none or is ambiguous.
    """
    if task == "number":
        return read_declared_number(fragment)[0]
    if task == "choice":
        return canonical_choice(fragment, num_choices)
    if task == "math":
        return canonical_math(math_span(fragment))
    return canonical_text(fragment)


def same_answer(a: Answer, b: Answer) -> bool:
    """Whether two canonical answers agree; abstentions never agree with anything."""
    return a is not None and a == b


def answers_match(answer: Answer, reference: Answer, task: TaskKind) -> bool:
    """Grade an answer against a reference.

    ``math`` answers are compared by symbolic equivalence (``math-verify``; identical keys
    match at once); every other kind by canonical equality. An abstention (or a missing
    reference) never matches.

    Args:
        answer: The canonical answer.
        reference: The canonical reference.
        task: The answer kind.

    Returns:
        Whether the answer is right.

    Raises:
        MathExtraMissingError: A ``math`` grade without the ``math`` extra installed.
    """
    if answer is None or reference is None:
        return False
    if task == "math":
        return math_equivalent(answer, reference)
    return answer == reference
