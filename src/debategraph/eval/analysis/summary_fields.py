"""What a per-method summary holds, and the interval math it uses.

The base of :mod:`debategraph.eval.analysis.metrics` (which re-exports every name here) and of
:mod:`debategraph.eval.analysis.summary_stream` (which computes the summaries), so that neither
imports the other's callers. The row format is described in
:mod:`debategraph.eval.analysis.metrics`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, TypedDict

from msgspec import UNSET

from debategraph.eval.analysis.dynamics import RoundStats, RoundZeroVote
from debategraph.eval.analysis.dynamics import Row as Row
from debategraph.eval.analysis.dynamics import RowLike as RowLike
from debategraph.eval.analysis.seeds import SeedSpread
from debategraph.eval.log.bill import Bill
from debategraph.eval.log.row import ANSWER_SOURCES as ROW_ANSWER_SOURCES
from debategraph.eval.log.row import as_row, opt

NAN = float("nan")


class MethodSummary(TypedDict):
    """Aggregates of one method's rows. Means are per scored item; NaN when ``n`` is 0.

    Attributes:
        method: The method label.
        n: Scored items (rows without ``error``).
        failed: Rows with an ``error`` key (not scored).
        correct: Items answered correctly.
        accuracy: ``correct / n``.
        ci_low: Lower bound of the 95% Wilson interval of the accuracy.
        ci_high: Upper bound of the 95% Wilson interval of the accuracy.
        abstained: Items without an answer.
        abstention_rate: ``abstained / n``.
        input_tokens: Sum of prompt tokens.
        output_tokens: Sum of completion tokens.
        total_tokens: ``input_tokens + output_tokens``.
        input_tokens_per_item: Mean prompt tokens per item.
        output_tokens_per_item: Mean completion tokens per item.
        total_tokens_per_item: Mean total tokens per item.
        calls: Sum of model calls.
        calls_per_item: Mean calls per item.
        input_tokens_per_call: ``input_tokens / calls`` (CortexDebate's input context).
        ncomm: Sum of pairwise communications.
        ncomm_per_item: Mean NComm per item.
        rounds_mean: Mean of the rows' ``rounds``.
        consensus_by_round: Per round k, the fraction of items whose agents all agree.
        accuracy_by_round: Per round k, the accuracy of the majority vote of that round.
        vote_k: How many answers the initial round's vote counts, when every row has the same
            number (the agents, or ``sc``'s samples); ``None`` otherwise.
        maj_at_k: ``maj@k`` as evaluation harnesses name it: the accuracy of the majority
            vote of the initial round's ``vote_k`` independent answers (first-seen
            tie-break). For ``sc`` and ``mav`` it is their accuracy; for a debate, the vote
            it started from. NaN when ``vote_k`` is ``None``.
        wall_s_total: Sum of wall times.
        wall_s_mean: Mean wall time per item.
        cost: Total cost of the paid calls when prices are given, else ``None``: calls
            replayed from the call cache cost nothing, the provider's cached input tokens
            take the cached-input price (:mod:`debategraph.eval.log.bill`).
        cost_per_item: Mean cost per item when prices are given, else ``None``.
        cached_calls: Calls replayed from the call cache (counted in ``calls``).
        bill: The paid calls' tokens (the provider's cached input and reasoning tokens
            among them) beside the replayed calls' (:class:`debategraph.eval.log.bill.Bill`).
        tokens_by_kind: Per call kind, summed ``input_tokens`` and ``output_tokens``.
        answer_sources: Answer turns by source (``declared``, ``fallback``, ``none``,
            ``cut_off``), summed over the rows that record them; ``None`` when no row does.
        answer_sources_rows: Scored rows that record ``answer_sources``.
        reasoning_tokens: Of the output tokens, those spent thinking, summed over the scored
            rows whose provider stated them; ``None`` when none did.
        answer_turns: Answer turns in those rows (``None`` when no row records them).
        fallback_rate: Share of those answer turns whose answer came from the fallback;
            NaN when unknown.
        requests: Model requests of every row that records them, failed items included
            (retries count); ``None`` when no row records them.
        failed_requests: Requests that failed or whose reply was rejected.
        wasted_tokens: Tokens of replies that arrived but were not used, failed items
            included.
        failed_item_tokens: Of those, the tokens spent on items that failed.
        turn_abstention_rate: Share of those answer turns without an answer (``none``, and
            ``cut_off``: the reply ended inside the model's thinking); NaN when unknown.
        round_stats: Per round: the majority's accuracy, the share of agents right and the
            flips since the previous round
            (:func:`debategraph.eval.analysis.dynamics.round_dynamics`).
        flips: The flips of every round added up, per kind.
        vote_at_round0: The majority of the same debates' round-0 answers beside their final
            answers (:func:`debategraph.eval.analysis.dynamics.round_zero_vote`).
        gate: For a gated method: its ``rule``, the scored ``items`` that record the gate,
            how many it let through (``passed``) and how many of those had debate rounds
            (``debated``: a method may still stop at round 0, as a skipping ``sid-et``
            does); ``None`` for a method without a gate.
        screen: For the arm that screened items (``--only-contested``): the scored
            ``items`` it screened, how many were ``settled`` (skipped by the other arms),
            and ``contested_accuracy``, its vote's accuracy on the contested ones (NaN when
            none); ``None`` otherwise.
        seeds: Accuracy per seed and its mean, sample sd, min and max over the seeds
            (:func:`debategraph.eval.analysis.seeds.seed_spread`; rows without ``seed`` are one
            seed).
    """

    method: str
    n: int
    failed: int
    correct: int
    accuracy: float
    ci_low: float
    ci_high: float
    abstained: int
    abstention_rate: float
    input_tokens: int
    output_tokens: int
    total_tokens: int
    input_tokens_per_item: float
    output_tokens_per_item: float
    total_tokens_per_item: float
    calls: int
    calls_per_item: float
    input_tokens_per_call: float
    ncomm: int
    ncomm_per_item: float
    rounds_mean: float
    consensus_by_round: list[float]
    accuracy_by_round: list[float]
    vote_k: int | None
    maj_at_k: float
    wall_s_total: float
    wall_s_mean: float
    cost: float | None
    cost_per_item: float | None
    cached_calls: int
    bill: Bill
    tokens_by_kind: dict[str, dict[str, int]]
    answer_sources: dict[str, int] | None
    answer_sources_rows: int
    reasoning_tokens: int | None
    answer_turns: int | None
    requests: int | None
    failed_requests: int
    wasted_tokens: int
    failed_item_tokens: int
    fallback_rate: float
    turn_abstention_rate: float
    round_stats: list[RoundStats]
    flips: dict[str, int]
    vote_at_round0: RoundZeroVote
    gate: dict[str, Any] | None
    screen: dict[str, Any] | None
    seeds: SeedSpread


ANSWER_SOURCES = ROW_ANSWER_SOURCES
"""The keys of a row's ``answer_sources`` (the row declares them)."""


def ratio(numerator: float, denominator: float) -> float:
    """``numerator / denominator``, NaN when there is nothing to divide by."""
    return numerator / denominator if denominator else NAN


def wilson_interval(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``k / n``.

    ``center = (p + z²/2n) / (1 + z²/n)`` and
    ``half = z / (1 + z²/n) · sqrt(p(1-p)/n + z²/4n²)`` with ``p = k / n``.

    Args:
        k: Successes, ``0 <= k <= n``.
        n: Trials.
        z: Normal quantile; 1.96 gives a 95% interval.

    Returns:
        ``(low, high)`` clipped to [0, 1]; ``(nan, nan)`` when ``n`` is 0 (no information).

    Raises:
        ValueError: ``k`` or ``n`` is out of range.
    """
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (NAN, NAN)
    p = k / n
    z2 = z * z
    denominator = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At k = 0 and k = n a bound is exactly 0 or 1; rounding can miss it by 1e-16, which put
    # the plots' error bars below zero.
    low = 0.0 if k == 0 else max(0.0, center - half)
    high = 1.0 if k == n else min(1.0, center + half)
    return (low, high)


def item_wilson_interval(correct: int, n: int, items: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson interval of ``correct / n`` that counts items, not rows.

    With several seeds an item has several rows, and they are not independent draws: the
    interval is taken at the same proportion with ``n = items`` (each item one observation),
    which is conservative. With one row per item it is :func:`wilson_interval` itself.

    Args:
        correct: Right rows.
        n: Scored rows.
        items: Distinct items among them.
        z: Normal quantile; 1.96 gives a 95% interval.

    Returns:
        ``(low, high)``; ``(nan, nan)`` when ``n`` is 0.
    """
    if n == 0 or items >= n:
        return wilson_interval(correct, n, z)
    return wilson_interval(correct * items / n, items, z)


def distinct_items(rows: Iterable[RowLike]) -> int:
    """How many distinct items (dataset, id) the rows cover."""
    return len({(opt(row.dataset), row.id) for row in map(as_row, rows)})


def is_failed(row: RowLike) -> bool:
    """Whether a row records a failed item (it has an ``error`` field)."""
    return as_row(row).error is not UNSET
