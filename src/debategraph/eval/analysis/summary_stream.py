"""The per-method summary in one pass over the rows, holding running tallies, not rows.

:class:`MethodTally` is where every figure of a method's summary is defined:
:func:`~debategraph.eval.analysis.metrics.summarize` and ``summarize_method`` go through it, and so
does the closing table of ``eval``. Grouping a long run's rows into lists first made them the
memory peak (a digest of ~4.7 KB per row, +47 MiB at 10,000 items); a tally reads each row
once and keeps counts and sums: per round, the direct tallies of the rows that reached that
round, and per debate length, the last round's tallies, which every later round carries
forward (a row that stopped early repeats its last round and flips nothing after it). What
still grows with the rows is small: one float per scored row for the wall time (summed once
at the end, in row order) and the ``(dataset, id)`` key of each distinct item (the Wilson
interval counts items; the key's strings are the row's own, a digest cost more to make).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import UNSET

from debategraph.eval.analysis.dynamics import (
    FLIPS,
    RoundStats,
    RoundZeroVote,
    flip_kind,
    reading_of,
    total_flips,
)
from debategraph.eval.analysis.seeds import accuracies_of, count_seed, spread_of
from debategraph.eval.analysis.summary_fields import (
    ANSWER_SOURCES,
    NAN,
    MethodSummary,
    Row,
    RowLike,
    item_wilson_interval,
    ratio,
)
from debategraph.eval.log.bill import BillTally, bill_cost
from debategraph.eval.log.row import as_row, opt
from debategraph.policies.types import Answer

_ROUND_KEYS = ("items", "majority", "right", "answers", "compared", "voters", "unanimous")
"""A round's tallies: rows, right majorities, right answers, answers, answers compared with
the previous round, rows of more than one agent (consensus) and those that all agree."""

_COUNTERS = ("input_tokens", "output_tokens", "calls", "ncomm", "rounds")


def _wasted(row: Row) -> int:
    return (row.wasted_input_tokens or 0) + (row.wasted_output_tokens or 0)


def _add_counts(total: dict[str, int], more: Mapping[str, int]) -> None:
    for key, count in more.items():
        total[key] += count


class MethodTally:
    """One method's summary, built one row at a time (:func:`summarize_stream`)."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.rows = self.n = self.correct = self.abstained = 0
        self.items: set[tuple[str | None, Any]] = set()
        self.sums = dict.fromkeys(_COUNTERS, 0)
        self.walls = array("d")
        self.bill = BillTally()
        self.sources = dict.fromkeys(ANSWER_SOURCES, 0)
        self.sources_rows = 0
        self.reasoning: int | None = None
        self.spending = self.requests = self.failed_requests = 0
        self.wasted = self.failed_wasted = 0
        self.kinds: dict[str, dict[str, int]] = {}
        self.direct: list[dict[str, int]] = []
        self.flips: list[dict[str, int]] = []
        self.tails: dict[int, dict[str, int]] = {}
        self.vote_sizes: set[int] = set()
        self.zero = {"final": 0, "with_turns": 0, "tokens": 0, "calls": 0}
        self.seeds: dict[int | None, list[int]] = {}
        self.gate: dict[str, Any] | None = None
        self.screen: dict[str, int] | None = None

    def add(self, row: Row) -> None:
        """Add one row of this method (a failed row adds only its count and what it paid)."""
        self.rows += 1
        self.bill.add(row)
        failed = row.error is not UNSET
        if row.requests is not UNSET:
            self.spending += 1
            self.requests += row.requests
            self.failed_requests += row.failed_requests or 0
            self.wasted += _wasted(row)
            if failed:
                self.failed_wasted += _wasted(row)
        if failed:
            return
        self.n += 1
        self.correct += bool(row.correct)
        self.abstained += bool(row.abstained)
        self.items.add((opt(row.dataset), row.id))
        sums = self.sums
        sums["input_tokens"] += row.input_tokens or 0
        sums["output_tokens"] += row.output_tokens or 0
        sums["calls"] += row.calls or 0
        sums["ncomm"] += row.ncomm or 0
        sums["rounds"] += row.rounds or 0
        self.walls.append(row.wall_s or 0)
        if row.answer_sources is not UNSET:
            self.sources_rows += 1
            counts, sources = row.answer_sources, self.sources
            for source in ANSWER_SOURCES:
                sources[source] += counts.get(source) or 0
        if row.reasoning_tokens is not UNSET:
            self.reasoning = (self.reasoning or 0) + row.reasoning_tokens
        kinds = self.kinds
        for kind, usage in (row.tokens_by_kind or {}).items():
            slot = kinds.get(kind)
            if slot is None:
                slot = kinds[kind] = {"input_tokens": 0, "output_tokens": 0}
            slot["input_tokens"] += usage.get("input_tokens") or 0
            slot["output_tokens"] += usage.get("output_tokens") or 0
        if row.round_answers:
            self._add_rounds(row)
        count_seed(self.seeds, row)
        if isinstance(row.gate, Mapping):
            self._add_gate(row, row.gate)
        if row.screen is not UNSET:
            self._add_screen(row, row.screen)

    def _add_rounds(self, row: Row) -> None:
        reading = reading_of(row)
        rounds, graded, majorities = reading.rounds, reading.graded, reading.majorities
        direct, flips_by_round = self.direct, self.flips
        self.vote_sizes.add(len(rounds[0]))
        while len(direct) < len(rounds):
            direct.append(dict.fromkeys(_ROUND_KEYS, 0))
            flips_by_round.append(dict.fromkeys(FLIPS, 0))
        before_round: list[Answer] = rounds[0]
        before_marks = graded[0]
        _count_round(direct[0], before_round, before_marks, majorities[0], compared=False)
        for k in range(1, len(rounds)):
            now, marks = rounds[k], graded[k]
            _count_round(direct[k], now, marks, majorities[k], compared=True)
            flips = flips_by_round[k]
            pairs = zip(before_round, now, before_marks, marks, strict=True)
            for before, after, right_before, right_after in pairs:
                if before != after:  # an unchanged answer is no flip
                    kind = flip_kind(before, after, right_before, right_after)
                    if kind is not None:
                        flips[kind] += 1
            before_round, before_marks = now, marks
        tail = self.tails.get(len(rounds))
        if tail is None:
            tail = self.tails[len(rounds)] = dict.fromkeys(_ROUND_KEYS, 0)
        _count_round(tail, before_round, before_marks, majorities[-1], compared=True)
        zero = self.zero  # its n and right votes are round 0's direct tally
        zero["final"] += bool(row.correct)
        spends = reading.spends()
        if spends is not None:
            zero["with_turns"] += 1
            zero["tokens"] += spends[0][0]
            zero["calls"] += spends[1][0]

    def _add_gate(self, row: Row, gate: Mapping[str, Any]) -> None:
        if self.gate is None:
            self.gate = {"rule": gate.get("rule"), "items": 0, "passed": 0, "debated": 0}
        self.gate["items"] += 1
        if gate.get("fired"):
            self.gate["passed"] += 1
            self.gate["debated"] += (row.rounds or 0) > 0

    def _add_screen(self, row: Row, screen: Mapping[str, Any]) -> None:
        if self.screen is None:
            self.screen = {"items": 0, "contested": 0, "right": 0}
        self.screen["items"] += 1
        if not screen.get("settled"):
            self.screen["contested"] += 1
            self.screen["right"] += bool(row.correct)

    def _round(self, k: int) -> dict[str, int]:
        """Round ``k``'s tallies: its rows', plus the carried last rounds of shorter rows."""
        total = dict(self.direct[k])
        for length, tail in self.tails.items():
            if length <= k:
                for key in _ROUND_KEYS:
                    total[key] += tail[key]
        return total

    def round_stats(self) -> list[RoundStats]:
        """Per round, as :func:`~debategraph.eval.analysis.dynamics.round_dynamics` gives it."""
        stats = []
        for k in range(len(self.direct)):
            t = self._round(k)
            stats.append(
                RoundStats(
                    round=k,
                    items=t["items"],
                    majority_accuracy=ratio(t["majority"], t["items"]),
                    agents_right=ratio(t["right"], t["answers"]),
                    answers=t["compared"] if k else 0,
                    flips=dict(self.flips[k]) if k else dict.fromkeys(FLIPS, 0),
                )
            )
        return stats

    @classmethod
    def pooled_rounds(cls, tallies: Iterable[MethodTally]) -> list[RoundStats]:
        """The round statistics of several methods' rows pooled (each debate counts once)."""
        pool = cls("")
        for tally in tallies:
            for k, (direct, flips) in enumerate(zip(tally.direct, tally.flips, strict=True)):
                if k == len(pool.direct):
                    pool.direct.append(dict.fromkeys(_ROUND_KEYS, 0))
                    pool.flips.append(dict.fromkeys(FLIPS, 0))
                _add_counts(pool.direct[k], direct)
                _add_counts(pool.flips[k], flips)
            for length, tail in tally.tails.items():
                _add_counts(pool.tails.setdefault(length, dict.fromkeys(_ROUND_KEYS, 0)), tail)
        return pool.round_stats()

    def round_zero(self) -> RoundZeroVote:
        """The vote at round 0, as :func:`~debategraph.eval.analysis.dynamics.round_zero_vote`."""
        z = self.zero
        n = self.direct[0]["items"] if self.direct else 0
        correct = self.direct[0]["majority"] if self.direct else 0
        timed = bool(z["with_turns"]) and z["with_turns"] == n
        return RoundZeroVote(
            n=n,
            correct=correct,
            accuracy=correct / n if n else NAN,
            final_accuracy=z["final"] / n if n else NAN,
            tokens_per_item=z["tokens"] / n if timed else None,
            calls_per_item=z["calls"] / n if timed else None,
        )

    def summary(self, prices: Mapping[str, float] | None = None) -> MethodSummary:
        """The summary of the rows added so far (``prices`` as in ``summarize``)."""
        n, correct, sums = self.n, self.correct, self.sums
        low, high = item_wilson_interval(correct, n, len(self.items))
        inputs, outputs, calls = sums["input_tokens"], sums["output_tokens"], sums["calls"]
        wall = sum(self.walls)
        bill = self.bill.bill()
        cost = bill_cost(bill, prices)
        sources = self.sources if self.sources_rows else None
        turns = sum(sources.values()) if sources is not None else None
        stats = self.round_stats()
        rounds = [self._round(k) for k in range(len(self.direct))]
        by_round = [t["majority"] / t["items"] for t in rounds]
        vote_k = next(iter(self.vote_sizes)) if len(self.vote_sizes) == 1 else None
        screen = None
        if self.screen is not None:
            s = self.screen
            screen = {
                "items": s["items"],
                "settled": s["items"] - s["contested"],
                "contested_accuracy": ratio(s["right"], s["contested"]),
            }
        return MethodSummary(
            method=self.method,
            n=n,
            failed=self.rows - n,
            correct=correct,
            accuracy=ratio(correct, n),
            ci_low=low,
            ci_high=high,
            abstained=self.abstained,
            abstention_rate=ratio(self.abstained, n),
            input_tokens=inputs,
            output_tokens=outputs,
            total_tokens=inputs + outputs,
            input_tokens_per_item=ratio(inputs, n),
            output_tokens_per_item=ratio(outputs, n),
            total_tokens_per_item=ratio(inputs + outputs, n),
            calls=calls,
            calls_per_item=ratio(calls, n),
            input_tokens_per_call=ratio(inputs, calls),
            ncomm=sums["ncomm"],
            ncomm_per_item=ratio(sums["ncomm"], n),
            rounds_mean=ratio(sums["rounds"], n),
            consensus_by_round=[ratio(t["unanimous"], t["voters"]) for t in rounds],
            accuracy_by_round=by_round,
            vote_k=vote_k,
            maj_at_k=by_round[0] if vote_k is not None else NAN,
            wall_s_total=float(wall),
            wall_s_mean=ratio(wall, n),
            cost=cost,
            cost_per_item=None if cost is None else ratio(cost, n),
            cached_calls=bill["cached_calls"],
            bill=bill,
            tokens_by_kind={kind: dict(usage) for kind, usage in self.kinds.items()},
            answer_sources=dict(sources) if sources is not None else None,
            answer_sources_rows=self.sources_rows,
            reasoning_tokens=self.reasoning,
            answer_turns=turns,
            requests=self.requests if self.spending else None,
            failed_requests=self.failed_requests,
            wasted_tokens=self.wasted,
            failed_item_tokens=self.failed_wasted,
            fallback_rate=ratio(sources["fallback"], turns) if sources and turns else NAN,
            turn_abstention_rate=(
                ratio(sources["none"] + sources["cut_off"], turns) if sources and turns else NAN
            ),
            round_stats=stats,
            flips=total_flips(stats),
            vote_at_round0=self.round_zero(),
            gate=dict(self.gate) if self.gate is not None else None,
            screen=screen,
            seeds=spread_of(accuracies_of(self.seeds)),
        )


def summarize_stream(
    rows: Iterable[RowLike], prices: Mapping[str, float] | None = None
) -> dict[str, MethodSummary]:
    """Aggregate result rows per method in one pass, holding tallies instead of the rows.

    What :func:`~debategraph.eval.analysis.metrics.summarize` returns; rows may be a stream (the
    rows of a results file as they are read) whose list would not fit comfortably.

    Args:
        rows: Result rows of any number of methods, read once.
        prices: As for :func:`~debategraph.eval.analysis.metrics.summarize`.

    Returns:
        Method -> summary, methods in first-seen order.
    """
    tallies: dict[str, MethodTally] = {}
    for row in map(as_row, rows):
        method = row.method
        tally = tallies.get(method)
        if tally is None:
            tally = tallies[method] = MethodTally(method)
        tally.add(row)
    return {method: tally.summary(prices) for method, tally in tallies.items()}


def _count_round(
    tally: dict[str, int],
    now: list[Answer],
    graded: list[bool],
    vote_right: bool,
    compared: bool,
) -> None:
    """Add one row's round to a round's tallies (:data:`_ROUND_KEYS`)."""
    agents = len(now)
    tally["items"] += 1
    tally["majority"] += vote_right
    tally["right"] += sum(graded)
    tally["answers"] += agents
    if compared:
        tally["compared"] += agents
    if agents > 1:
        tally["voters"] += 1
        first = now[0]
        tally["unanimous"] += first is not None and now.count(first) == agents
