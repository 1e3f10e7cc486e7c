"""SID-ET as SVR-MAD evaluates it: early termination at a dataset-level skip rate, offline.

SID-ET (Chen et al., arXiv 2510.06843, as used in SVR-MAD App. A) lets one agent answer
first and skips the debate when that agent is confident: its *min-LL*, the least token
log-likelihood of its answer, is high. SVR-MAD sets the threshold as a quantile: the debate
is skipped for the X% of questions with the highest min-LL. A run of ``sid-et`` with
``mode=record`` always debates and records the first agent's min-LL, answer and tokens, so
SID-ET at any skip rate is computed here from stored results, without new model calls:
a skipped question costs the first answer's tokens and is right when the first answer is; a
debated one costs the whole debate and is right when the debate's answer is.

:func:`tune_skip_rate` is SVR-MAD's Alg. 2: from X = 90% down in steps of 10%, the first
skip rate whose accuracy matches or beats a reference arm's, or whose tokens exceed the
reference's; 10% if none. No LangGraph import.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from debategraph.policies.canonical import answers_match
from debategraph.policies.types import Answer

PAPER_SKIP_RATES: tuple[float, ...] = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1)
"""The skip rates SVR-MAD's Alg. 2 tries, in order (the last one is its fallback)."""

ACCURACY_TOLERANCE = 1e-12
"""Slack of the accuracy comparison, so that 7/10 "matches" a reference given as 0.7."""


@dataclass(frozen=True)
class SidEtItem:
    """What SID-ET needs of one question.

    Attributes:
        id: The question's id.
        min_ll: The first agent's least token log-likelihood (its confidence signal).
        first_answer: The first agent's first answer.
        first_correct: Whether that answer is right.
        first_tokens: Tokens (input + output) of the first agent's first call.
        debate_answer: The debate's answer; ``None`` also when the debate did not run.
        debate_correct: Whether the debate's answer is right; ``None`` when it did not run
            (a ``sid-et`` run that skipped it).
        debate_tokens: Tokens of the whole debate, the first call included; ``None`` when it
            did not run.
    """

    id: str
    min_ll: float
    first_answer: Answer
    first_correct: bool
    first_tokens: int
    debate_answer: Answer = None
    debate_correct: bool | None = None
    debate_tokens: int | None = None


@dataclass(frozen=True)
class SidEtDecision:
    """SID-ET's outcome on one question at one skip rate.

    Attributes:
        id: The question's id.
        skipped: The debate was skipped (the first agent's answer stands).
        answer: The answer SID-ET gives.
        correct: Whether it is right.
        tokens: What SID-ET spends on the question.
    """

    id: str
    skipped: bool
    answer: Answer
    correct: bool
    tokens: int


@dataclass(frozen=True)
class SidEtOutcome:
    """SID-ET over a set of questions at one skip rate.

    Attributes:
        skip_rate: The share of questions asked to skip (X).
        skipped: How many were skipped: ``floor(X * n)``.
        threshold: The least min-LL among the skipped questions (``None`` if none was):
            the per-debate threshold this skip rate amounts to on these questions.
        items: Per question, in the order given.
    """

    skip_rate: float
    skipped: int
    threshold: float | None
    items: tuple[SidEtDecision, ...]

    @property
    def correct(self) -> int:
        """Questions answered right."""
        return sum(d.correct for d in self.items)

    @property
    def accuracy(self) -> float:
        """The share of questions answered right (0 for no questions)."""
        return self.correct / len(self.items) if self.items else 0.0

    @property
    def tokens(self) -> int:
        """Total tokens over the questions."""
        return sum(d.tokens for d in self.items)


@dataclass(frozen=True)
class SkipRateChoice:
    """The skip rate SVR-MAD's Alg. 2 selects, and why.

    Attributes:
        skip_rate: The selected rate.
        reason: ``"accuracy"`` (matches or beats the reference), ``"tokens"`` (spends more
            than the reference) or ``"fallback"`` (neither happened down to the last rate).
        outcome: SID-ET at the selected rate.
        tried: ``(rate, accuracy, tokens)`` of every rate tried, in order.
    """

    skip_rate: float
    reason: Literal["accuracy", "tokens", "fallback"]
    outcome: SidEtOutcome
    tried: tuple[tuple[float, float, int], ...]


def skip_count(skip_rate: float, n: int) -> int:
    """``floor(X * n)``: how many of ``n`` questions skip the debate at rate ``X``.

    Raises:
        ValueError: A rate outside [0, 1].
    """
    if not 0 <= skip_rate <= 1:
        raise ValueError(f"the skip rate must lie in [0, 1], got {skip_rate}")
    return math.floor(skip_rate * n + 1e-9)


def sid_et_at(items: Sequence[SidEtItem], skip_rate: float) -> SidEtOutcome:
    """SID-ET at skip rate ``X``: the ``floor(X * n)`` most confident questions skip.

    Questions are ranked by min-LL, highest first; equal min-LLs keep the order given, so
    the ranking (and a tie at the boundary) is deterministic.

    Args:
        items: The questions.
        skip_rate: ``X`` in [0, 1].

    Returns:
        Per question, whether it skipped, its answer, correctness and tokens.

    Raises:
        ValueError: A bad rate, or a question that must be debated but whose debate did not
            run (its ``sid-et`` run skipped it: run with ``mode=record``).
    """
    k = skip_count(skip_rate, len(items))
    ranked = sorted(range(len(items)), key=lambda i: -items[i].min_ll)
    skip = set(ranked[:k])
    decisions = []
    for i, item in enumerate(items):
        if i in skip:
            decisions.append(
                SidEtDecision(
                    item.id, True, item.first_answer, item.first_correct, item.first_tokens
                )
            )
            continue
        if item.debate_correct is None or item.debate_tokens is None:
            raise ValueError(
                f"question {item.id!r} must be debated at skip rate {skip_rate}, but its "
                "sid-et run skipped the debate; to evaluate any skip rate offline, run "
                "sid-et with --option mode=record (it always debates and records everything)"
            )
        decisions.append(
            SidEtDecision(
                item.id, False, item.debate_answer, item.debate_correct, item.debate_tokens
            )
        )
    threshold = min((items[i].min_ll for i in skip), default=None)
    return SidEtOutcome(skip_rate, k, threshold, tuple(decisions))


def tune_skip_rate(
    items: Sequence[SidEtItem],
    reference_accuracy: float,
    reference_tokens: float,
    *,
    rates: Sequence[float] = PAPER_SKIP_RATES,
) -> SkipRateChoice:
    """SVR-MAD's Alg. 2: the skip rate SID-ET is reported at, against a reference arm.

    From the first rate on, return the first rate at which SID-ET's accuracy matches or
    beats ``reference_accuracy``, or else at which its tokens exceed ``reference_tokens``;
    if neither happens, the last rate (the paper's fallback, 10%).

    Args:
        items: The questions (the reference arm's questions).
        reference_accuracy: The reference arm's accuracy on them (SVR-MAD's in the paper).
        reference_tokens: The reference arm's total tokens on them.
        rates: The rates to try, in order (default 90%, 80%, ..., 10%).

    Returns:
        The selected rate, the reason, SID-ET's outcome there and every rate tried.

    Raises:
        ValueError: No rates, or a question that cannot be evaluated (see :func:`sid_et_at`).
    """
    if not rates:
        raise ValueError("tune_skip_rate needs at least one skip rate to try")
    tried: list[tuple[float, float, int]] = []
    outcome: SidEtOutcome | None = None
    for rate in rates:
        outcome = sid_et_at(items, rate)
        tried.append((rate, outcome.accuracy, outcome.tokens))
        if outcome.accuracy >= reference_accuracy - ACCURACY_TOLERANCE:
            return SkipRateChoice(rate, "accuracy", outcome, tuple(tried))
        if outcome.tokens > reference_tokens:
            return SkipRateChoice(rate, "tokens", outcome, tuple(tried))
    assert outcome is not None
    return SkipRateChoice(rates[-1], "fallback", outcome, tuple(tried))


def sid_et_record(row: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``sid-et`` record of an evaluation row.

    It is the row's ``sid_et`` field, or else ``method_state["sid_et"]``.

    Raises:
        ValueError: A row without one (not a ``sid-et`` row, or a row format that does not
            keep the method state).
    """
    record = row.get("sid_et") or (row.get("method_state") or {}).get("sid_et")
    if not record:
        raise ValueError(
            f"row {row.get('id')!r} has no sid-et record (a 'sid_et' field or "
            "method_state['sid_et']): it is not a row of a sid-et run, or its rows do not "
            "keep the method state"
        )
    return record  # type: ignore[no-any-return]


def sid_et_items(rows: Iterable[Mapping[str, Any]]) -> list[SidEtItem]:
    """SID-ET's view of evaluation rows of ``sid-et`` runs (finished debates only).

    A row needs ``id``, ``reference``, ``task`` (default ``number``), ``correct``,
    ``answer``, ``input_tokens``, ``output_tokens`` and the ``sid-et`` record (see
    :func:`sid_et_record`). The first answer is graded against the reference as the
    evaluation grades answers.

    Raises:
        ValueError: A row without a ``sid-et`` record or without the first agent's min-LL.
    """
    return [
        sid_et_item(
            sid_et_record(row),
            item_id=row.get("id"),
            reference=row.get("reference"),
            task=row.get("task", "number"),
            answer=row.get("answer"),
            correct=bool(row.get("correct")),
            tokens=partial(_row_tokens, row),
        )
        for row in rows
    ]


def _row_tokens(row: Mapping[str, Any]) -> int:
    return int(row["input_tokens"]) + int(row["output_tokens"])


def sid_et_item(
    record: Mapping[str, Any],
    *,
    item_id: object,
    reference: Any,
    task: Any,
    answer: Answer,
    correct: bool,
    tokens: Callable[[], int],
) -> SidEtItem:
    """SID-ET's view of one evaluation row, from its fields (see :func:`sid_et_items`).

    Args:
        record: The row's ``sid-et`` record (:func:`sid_et_record`).
        item_id: The row's ``id``.
        reference: Its ``reference``.
        task: Its ``task``.
        answer: Its (the debate's) answer.
        correct: Whether that answer is right.
        tokens: Its input and output tokens (read only where the debate ran).

    Raises:
        ValueError: The record has no min-LL.
    """
    if record.get("min_ll") is None:
        raise ValueError(f"row {item_id!r}: its sid-et record has no min_ll")
    first = record.get("answer")
    debated = not record.get("skipped", False)
    return SidEtItem(
        id=str(item_id),
        min_ll=float(record["min_ll"]),
        first_answer=first,
        first_correct=answers_match(first, reference, task),
        first_tokens=int(record["input_tokens"]) + int(record["output_tokens"]),
        debate_answer=answer if debated else None,
        debate_correct=correct if debated else None,
        debate_tokens=tokens() if debated else None,
    )
