r"""Answer extraction, canonical forms and grading: the contract every score relies on.

Extraction contract (:func:`parse_answer`)
-------------------------------------------
1. **The last explicit declaration of the speaker wins.** Declarations are ``\boxed{...}``,
   an ``Answer:`` / ``Final answer:`` line, a phrase such as ``the answer is``, ``my final
   answer is`` or ``the correct answer:`` (whole words), and, for choice tasks, ``I choose
   (B)``, ``my final choice is (B)`` or a parenthesised letter with nothing but punctuation
   after it (see :mod:`debategraph.policies.declarations`). "answers", "answered" and
   "answer choices" are not declarations. **A correction is the last declaration**: a
   label such as ``Corrected answer:``, ``Revised answer:`` or ``Final answer
   (corrected):``, or a cue followed at once by a short value (``Actually no, it is 35``,
   ``no wait, 35``, ``Correction: 35``); struck-out text (``~~30~~ 35``) is withdrawn
   before reading. A recap of the speaker's own earlier answer (``Earlier I said the answer
   is 30``, ``my previous answer is 30``) is not a declaration.
2. **Peers' answers are not declarations, wherever they stand**: before or after the
   speaker's own declaration, in parentheses, in lists, in tables. Passed over are what the
   reply reports (``Agent 2's answer is 42``, ``they think the answer is (B)``, ``a1: the
   answer is 40``, ``whose answer is 42``), quotes (``>`` lines, ``a2 wrote "Answer: 99"``),
   blocks copied from a peer (a label line such as ``Solution from a2:``, ``Answer from
   another agent:`` or ``### Agent 3``, then its fenced block, or its lines up to a blank
   line or the next label; also a lead-in such as ``For comparison, a3 wrote:``), a peer's
   solution described after the speaker's own declaration (``Agent 1 instead charges the fee
   twice and concludes the answer is 69``, ``the answer is 15 in their solution``),
   hypotheticals (``if the answer is 42``, ``if a1 were right, the answer would be 12``) and
   negations (``the answer is not 42``). See
   :mod:`debategraph.policies.attribution` and :mod:`debategraph.policies.peer_text`.
3. **Adopting is declaring; reporting is not.** A peer's answer the speaker adopts is the
   speaker's declaration: ``I agree with agent 2 that the answer is 12``, ``Agent 2 is
   right: the answer is 12``, ``Agent 2 correctly says ...``, ``Agent 2 says the answer is
   12, and I agree`` (or ``..., which is correct``, ``..., which matches mine``, or a bare
   ``I agree.`` right after it).
   ``Agent 2 says the answer is 12`` alone, or followed by ``I disagree`` or ``I agree with
   Agent 3``, is a report.
4. **Within a declaration, the declared value is taken**: the value right after the marker
   (after an ``=``, its right-hand side), not the first digit or letter of the line. An
   unevaluated expression restated at once gives the restated value (``2/3 of 9, i.e. 6``,
   ``100 - 25, which is 75``).
5. A declaration that holds no value of the task's kind (``the answer is below``) is passed
   over; one whose value is **ambiguous** (``3:45``, ``5-7``, ``half of 12``, ``(B) or (C)``,
   a letter beyond the options, two boxed values side by side, an irrational root such as
   ``\sqrt{2}`` in a ``number`` task) is an abstention: no guess is made. A root that
   evaluates to a rational reads as that rational (``\frac{1}{\sqrt{4}}`` is 0.5).
6. Without a declaration, ``number`` and ``math`` tasks fall back to the last number and
   ``choice`` tasks to the last parenthesised letter **that the reply does not attribute to
   a peer** (``Agent 2 got 42``, ``Other agents' answers (22 and 23)``, ``the solution that
   says 30``, the ``2`` of ``Agent 2``, a copied block), read after blanking confidence
   statements; when the last :data:`~debategraph.policies.numbers.MAX_FALLBACK_VALUES` values
   are all peers', the fallback abstains. ``text`` tasks abstain. The fallback is recorded
   as such.

Every extraction says how it was found (:class:`Extraction`): ``declared``, ``fallback`` or
``none`` (an abstention, never counted correct). Extraction is linear in the response
length: every pattern uses possessive quantifiers or bounded windows, and sympy is never
imported here.

Canonical forms and grading are in :mod:`debategraph.policies.canonical`.

Custom parsers
--------------
Any callable ``(response, task, num_choices) -> Extraction`` is an :data:`AnswerParser`.
To use your own normalisation the way DSPy's ``majority(normalize=...)`` does, wrap a plain
``normalize(fragment) -> str | None`` with :func:`parser_from_normalizer`; it is called on
each declared fragment, last first, and ``None`` means "not an answer". Then pass it where a
method or task takes a parser, or resolve it with :func:`parser_for`::

    def city(fragment: str) -> str | None:
        words = fragment.strip(" .*").lower().split()
        return words[-1] if words else None

    parse = parser_for("text", normalize=city)
    parse("...\nAnswer: the city of Paris.", "text", None)  # Extraction("paris", "declared")

Normalise the references of such a task with the same callable.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from debategraph.policies.attribution import is_peer_value
from debategraph.policies.canonical import (
    SENTENCE_END_RE,
    answers_match,
    canonical_choice,
    canonical_text,
    canonicalize,
    math_span,
    read_choice,
    same_answer,
)
from debategraph.policies.confidence import (
    blank_confidences,
    carries_confidence,
    extract_confidence,
    read_confidence,
    strip_confidence,
)
from debategraph.policies.declarations import (
    MAX_DECLARATIONS,
    Declaration,
    box_end,
    find_declarations,
    fragment,
    is_own,
    own_declarations,
)
from debategraph.policies.mathform import canonical_math
from debategraph.policies.numbers import (
    MAX_FALLBACK_VALUES,
    canonical_number,
    last_number,
    read_declared_number,
)
from debategraph.policies.types import Answer, TaskKind

__all__ = [
    "AnswerParser",
    "AnswerSource",
    "Extraction",
    "Normalizer",
    "answers_match",
    "canonical_choice",
    "canonical_math",
    "canonical_number",
    "canonical_text",
    "canonicalize",
    "extract_answer",
    "extract_confidence",
    "parse_answer",
    "parse_choice",
    "parse_math",
    "parse_number",
    "parse_text",
    "parser_for",
    "parser_from_normalizer",
    "read_confidence",
    "same_answer",
    "strip_confidence",
]

AnswerSource = Literal["declared", "fallback", "none"]
"""How an answer was found: a declaration, the fallback, or nothing (an abstention)."""


@dataclass(frozen=True, slots=True)
class Extraction:
    """The answer of one response and how it was found.

    Attributes:
        answer: The canonical answer, or ``None`` (an abstention).
        source: ``declared``, ``fallback`` or ``none``; ``none`` exactly when ``answer`` is
            ``None``.
    """

    answer: Answer
    source: AnswerSource


AnswerParser = Callable[[str, TaskKind, int | None], Extraction]
"""``(response, task, num_choices) -> Extraction``: how a method or task reads answers."""


Normalizer = Callable[[str], str | None]
"""``normalize(fragment) -> canonical answer or None``, DSPy style."""


NO_ANSWER = Extraction(None, "none")
"""The extraction of a response without an answer."""


_Reader = Callable[[Declaration, str], tuple[Answer, bool]]

_MATH_SIGNAL_RE = re.compile(r"[\d\\^=+\-*/()\[\]{}<>|$]")


_BOX_JOIN_RE = re.compile(r"[\s$,;&]*+(?:and|or)?[\s$,]*+(?:[a-zA-Z][ \t]*+=[ \t]*+)?")


_BOX_JOIN_LIMIT = 40


_PAREN_LETTER_RE = re.compile(r"\(([A-Ja-j])\)")


_STRUCK_RE = re.compile(
    r"~~[^~\n]{1,200}+~~|<(del|s|strike)>[^<\n]{1,200}+</\1>|\\sout\{[^{}\n]{1,200}+\}"
)
STRUCK_MARKERS = ("~~", "<del>", "<s>", "<strike>", "\\sout{")
"""Markup of struck-out text; an answer the speaker struck out (``~~30~~ 35``) is withdrawn."""


def unstruck(response: str) -> str:
    """The response with struck-out text (``~~30~~``, ``<del>30</del>``) blanked.

    Blanks keep every offset, so positions in the result are positions in the response.

    Args:
        response: The model's whole response.

    Returns:
        The response, struck-out spans replaced by spaces.
    """
    if not any(marker in response for marker in STRUCK_MARKERS):
        return response
    return _STRUCK_RE.sub(lambda m: " " * len(m.group()), response)


def _prior_box_conflicts(
    response: str, found: list[Declaration], index: int, read: _Reader, value: str
) -> bool:
    r"""Two boxed values side by side (``\\boxed{2}`` and ``\\boxed{3}``): a list, not one."""
    box = found[index]
    for position in range(index - 1, max(-1, index - MAX_DECLARATIONS), -1):
        prior = found[position]
        stop = box_end(response, prior) if prior.kind == "boxed" else -1
        if stop < 0 or stop >= box.start:
            continue
        gap = response[stop + 1 : box.start]
        if len(gap) > _BOX_JOIN_LIMIT or "\n" in gap or not _BOX_JOIN_RE.fullmatch(gap):
            return False
        return read(prior, fragment(response, prior))[0] != value
    return False


def _declared(response: str, read: _Reader, *, choice: bool = False) -> Extraction | None:
    """The extraction decided by the last own declaration with a value, or ``None``."""
    found = find_declarations(
        response, choice=choice, confidence_line=carries_confidence if choice else None
    )
    for index in range(len(found) - 1, -1, -1):
        declaration = found[index]
        if not is_own(response, declaration):
            continue
        value, present = read(declaration, fragment(response, declaration))
        if not present:
            continue
        if value is None:
            return NO_ANSWER
        if declaration.kind == "boxed" and _prior_box_conflicts(
            response, found, index, read, value
        ):
            return NO_ANSWER
        return Extraction(value, "declared")
    return None


def _read_number(declaration: Declaration, text: str) -> tuple[Answer, bool]:
    return read_declared_number(text)


def _fallback_number(response: str) -> Extraction:
    value, _ = last_number(blank_confidences(response), skip=is_peer_value)
    return Extraction(value, "fallback") if value is not None else NO_ANSWER


def parse_number(
    response: str, task: TaskKind = "number", num_choices: int | None = None
) -> Extraction:
    """The :data:`AnswerParser` of ``number`` tasks: declared number, else the last number.

    ``task`` and ``num_choices`` are ignored.
    """
    response = unstruck(response)
    return _declared(response, _read_number) or _fallback_number(response)


def parse_choice(
    response: str, task: TaskKind = "choice", num_choices: int | None = None
) -> Extraction:
    """The :data:`AnswerParser` of ``choice`` tasks: declared letter, else the last ``(X)``.

    Letters past ``num_choices`` (how many options exist) are invalid; ``task`` is ignored.
    """
    response = unstruck(response)

    def read(declaration: Declaration, text: str) -> tuple[Answer, bool]:
        return read_choice(text, num_choices)

    declared = _declared(response, read, choice=True)
    if declared is not None:
        return declared
    text = blank_confidences(response)
    letters = deque(_PAREN_LETTER_RE.finditer(text), maxlen=MAX_FALLBACK_VALUES)
    for m in reversed(letters):
        if is_peer_value(text, m.start()):
            continue
        letter = m.group(1)
        upper = letter.upper()
        if num_choices is None or ord(upper) - ord("A") < num_choices:
            return Extraction(upper, "fallback")
    return NO_ANSWER


def _declared_text(declaration: Declaration, text: str) -> str:
    """The declared text: a phrase declaration ends at its sentence, others at the line."""
    if declaration.kind in ("phrase", "choice"):
        stop = SENTENCE_END_RE.search(text)
        return text[: stop.start()] if stop else text
    line_end = text.find("\n")
    return text if line_end < 0 else text[:line_end]


def _read_text(declaration: Declaration, text: str) -> tuple[Answer, bool]:
    value = canonical_text(_declared_text(declaration, text))
    return value, value is not None


def parse_text(
    response: str, task: TaskKind = "text", num_choices: int | None = None
) -> Extraction:
    """The :data:`AnswerParser` of ``text`` tasks: the declared text, else an abstention.

    There is no fallback; ``task`` and ``num_choices`` are ignored.
    """
    response = unstruck(response)
    return _declared(response, _read_text) or NO_ANSWER


def _read_math(declaration: Declaration, text: str) -> tuple[Answer, bool]:
    if declaration.kind == "boxed":
        return canonical_math(text), bool(text.strip())
    span = math_span(text)
    stripped = span.strip()
    if not stripped or not (
        _MATH_SIGNAL_RE.search(stripped) or (len(stripped) == 1 and stripped.isalpha())
    ):
        return None, False
    return canonical_math(span), True


def parse_math(
    response: str, task: TaskKind = "math", num_choices: int | None = None
) -> Extraction:
    """The :data:`AnswerParser` of ``math`` tasks: the declared expression, else the last number.

    The answer is a :func:`canonical_math` key; ``task`` and ``num_choices`` are ignored.
    """
    response = unstruck(response)
    declared = _declared(response, _read_math)
    if declared is not None:
        return declared
    fallback = _fallback_number(response)
    if fallback.answer is None:
        return NO_ANSWER
    return Extraction(canonical_math(fallback.answer), "fallback")


PARSERS: Mapping[str, AnswerParser] = MappingProxyType(
    {"number": parse_number, "choice": parse_choice, "text": parse_text, "math": parse_math}
)
"""The built-in parser of every task kind."""


def parser_from_normalizer(
    normalize: Normalizer, *, fallback_last_line: bool = False
) -> AnswerParser:
    """Wrap a DSPy-style ``normalize(fragment) -> str | None`` into an :data:`AnswerParser`.

    The parser finds the response's own declarations (boxed values, ``Answer:`` lines,
    ``the answer is ...`` phrases; peers' answers excluded) and calls ``normalize`` on each
    declared fragment, last first: the first non-``None`` result is the ``declared``
    answer. ``normalize`` returning ``None`` means "not an answer".

    Args:
        normalize: Maps a declared fragment to a canonical answer, or ``None``.
        fallback_last_line: Without a declaration, call ``normalize`` on the last non-empty
            line (confidence lines removed) and record a ``fallback``.

    Returns:
        The parser; it ignores ``task`` and ``num_choices``.
    """

    def parse(response: str, task: TaskKind, num_choices: int | None = None) -> Extraction:
        response = unstruck(response)
        for declaration, text in own_declarations(response):
            value = normalize(_declared_text(declaration, text).strip())
            if value is not None:
                return Extraction(value, "declared")
        if fallback_last_line:
            lines = [line for line in strip_confidence(response).splitlines() if line.strip()]
            value = normalize(lines[-1].strip()) if lines else None
            if value is not None:
                return Extraction(value, "fallback")
        return NO_ANSWER

    parse.__name__ = f"parser_from_normalizer({getattr(normalize, '__name__', 'normalize')})"
    return parse


def parser_for(
    task: TaskKind, parser: AnswerParser | None = None, normalize: Normalizer | None = None
) -> AnswerParser:
    """The parser to use for a task: a custom one, a wrapped normaliser, or the built-in.

    Args:
        task: The answer kind.
        parser: A full custom parser; wins when given.
        normalize: A DSPy-style normaliser, wrapped with :func:`parser_from_normalizer`.

    Returns:
        The parser.

    Raises:
        ValueError: Both ``parser`` and ``normalize`` given, or an unknown task kind.
    """
    if parser is not None and normalize is not None:
        raise ValueError("give either parser or normalize, not both")
    if parser is not None:
        return parser
    if normalize is not None:
        return parser_from_normalizer(normalize)
    try:
        return PARSERS[task]
    except KeyError:
        raise ValueError(f"unknown task kind {task!r}; use one of {', '.join(PARSERS)}") from None


def parse_answer(response: str, task: TaskKind, num_choices: int | None = None) -> Extraction:
    """Extract the canonical answer of a response and record how it was found.

    See the module docstring for the contract.

    Args:
        response: The model's whole response.
        task: The answer kind.
        num_choices: For ``choice`` tasks, how many options exist.

    Returns:
        The extraction (``source`` is ``declared``, ``fallback`` or ``none``).
    """
    return parser_for(task)(response, task, num_choices)


def extract_answer(response: str, task: TaskKind, num_choices: int | None = None) -> Answer:
    """The canonical answer of a response (``parse_answer(...).answer``).

    Args:
        response: The model's whole response.
        task: The answer kind.
        num_choices: For ``choice`` tasks, how many options exist.

    Returns:
        The canonical answer, or ``None`` for an abstention.
    """
    return parse_answer(response, task, num_choices).answer
