"""Span answers graded the way SQuAD's official script and LongBench's QA tasks grade them.

A prediction and each gold answer are normalised alike: lower-cased, ASCII punctuation
removed, the articles "a", "an" and "the" dropped as words, and runs of whitespace folded.
Exact match asks for equal normalised strings; F1 is the harmonic mean of token precision
and recall over the bag of normalised tokens. Both take the best value over the gold
answers, as an item may list several.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = frozenset(string.punctuation)


def normalize_span(text: str) -> str:
    """Lower-case, drop punctuation and articles, fold whitespace (SQuAD's normalisation).

    Args:
        text: An answer.

    Returns:
        The normalised answer, tokens separated by single spaces.
    """
    lowered = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def span_exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals some normalised gold answer, else 0.0.

    Args:
        prediction: The answer given.
        golds: Every accepted answer (none accepted when empty).

    Returns:
        1.0 or 0.0.
    """
    guess = normalize_span(prediction)
    return float(any(guess == normalize_span(gold) for gold in golds))


def span_f1(prediction: str, golds: Sequence[str]) -> float:
    """The best token F1 of the prediction against any gold answer (0.0 with no golds).

    Two empty token lists score 1.0 against each other; an empty one against a non-empty
    one scores 0.0.

    Args:
        prediction: The answer given.
        golds: Every accepted answer.

    Returns:
        A value in [0, 1].
    """
    guess = normalize_span(prediction).split()
    return max((_token_f1(guess, normalize_span(gold).split()) for gold in golds), default=0.0)


def _token_f1(guess: list[str], gold: list[str]) -> float:
    if not guess or not gold:
        return float(guess == gold)
    common = sum((Counter(guess) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision = common / len(guess)
    recall = common / len(gold)
    return 2 * precision * recall / (precision + recall)


def span_grade(answer: str | None, accepted: Sequence[str]) -> dict[str, float]:
    """``exact_match`` and ``f1`` of an answer against every accepted answer (0 for none).

    Args:
        answer: The answer given (``None``: an abstention).
        accepted: Every accepted answer.

    Returns:
        ``{"exact_match": 0.0 or 1.0, "f1": ...}``, F1 rounded to 6 places.
    """
    if answer is None:
        return {"exact_match": 0.0, "f1": 0.0}
    given = str(answer)
    return {
        "exact_match": span_exact_match(given, accepted),
        "f1": round(span_f1(given, accepted), 6),
    }
