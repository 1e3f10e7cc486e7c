"""Compute-Pareto points and fronts, read from stored rows (no model call).

Every arm gives several points of (tokens per item, accuracy), each a cheaper configuration
read off the run it already made:

- a **debating arm** one point per entry ``r`` of ``round_answers``: the accuracy of the
  majority of the agents' round-``r`` answers, against the tokens of the calls that produced
  them (:func:`debategraph.eval.analysis.dynamics.round_turns`): every call up to the round's
  last answer call (summaries and evaluations that feed the round included, a judge's verdict
  on it or a decision call after it not), and for stances taken after the answer rounds
  (SVR-MAD's votes after all its pairwise debates) every call of the debate;
- a **voting arm** (every call a lone round-0 answer: ``cot``, ``sc``, ``mav``, budget-matched
  ``sc@M``, ``sc@M~tokens``, the ``vote@r0`` screen) one point per ``k = 1..K``: the accuracy
  of the majority of its first ``k`` answers, against the tokens of those ``k`` calls;
- the arm's **decision** (its own final answers at its whole spend), where that is not
  already its last point: a decision rule other than the majority (Free-MAD, RECONCILE,
  SVR-MAD's acceptance) or calls after the last round's answers (a judge's).

An item that stopped before round ``r`` (or has fewer than ``k`` answers, as budget-matched
arms do) carries its last round (all its answers) and its whole spend. The majority is
:func:`debategraph.policies.voting.majority_vote` with the first-seen tie-break (for the first
``k`` answers, :func:`~debategraph.policies.voting.prefix_majorities`, the same rule in one
pass), graded like the final answer, as the report's per-round table and ``maj@k`` do. The
interval is the 95% Wilson interval of the accuracy.

Tokens are input + output tokens of the stored turns. A row without its turns (written
before 0.2, or by another tool) gives an estimate, and its points say so
(``tokens_exact: false``): a round before its last is priced at the whole debate's tokens (an
upper bound, as :func:`debategraph.eval.analysis.dynamics.vote_at_round` does), and the first
``k`` of ``K`` answers at ``k / K`` of the row's tokens (samples priced alike).

A point is on the **front** of its group when no other point of the group has tokens <= and
accuracy >= with at least one of them strict: so points that tie exactly are all on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate
from typing import Any, TypedDict, cast

from msgspec import UNSET

from debategraph.eval.analysis.dynamics import Reading, reading_of
from debategraph.eval.analysis.metrics import (
    Row,
    RowLike,
    distinct_items,
    group_by,
    item_wilson_interval,
)
from debategraph.eval.log.row import as_row, opt
from debategraph.policies.types import Answer
from debategraph.policies.voting import prefix_majorities


class ParetoPoint(TypedDict):
    """One configuration of one arm, read from its rows.

    Attributes:
        arm: The arm's label (the rows' ``method``).
        round: For a debating arm's point, the round its majority is taken after.
        k: For a voting arm's point, how many of its answers are voted on.
        decision: The arm's own final answers at its whole spend (``round`` and ``k`` are
            ``None``).
        n: Items (scored rows that record ``round_answers``).
        correct: Items whose answer at this point is right.
        accuracy: ``correct / n``.
        ci_low: Lower bound of the 95% Wilson interval of the accuracy.
        ci_high: Upper bound of the 95% Wilson interval of the accuracy.
        tokens_per_item: Mean input + output tokens spent up to this point.
        tokens_exact: Every item's tokens were read from its turns (not estimated).
        on_front: No other point of the group spends no more tokens for no less accuracy,
            one of the two strictly.
    """

    arm: str
    round: int | None
    k: int | None
    decision: bool
    n: int
    correct: int
    accuracy: float
    ci_low: float
    ci_high: float
    tokens_per_item: float
    tokens_exact: bool
    on_front: bool


def point_label(point: Mapping[str, Any]) -> str:
    """A point's name in tables and plots: ``du r2``, ``sc k=3``, ``svr decision``."""
    if point["round"] is not None:
        return f"{point['arm']} r{point['round']}"
    if point["k"] is not None:
        return f"{point['arm']} k={point['k']}"
    return f"{point['arm']} decision"


def _total(row: Row) -> int:
    return (row.input_tokens or 0) + (row.output_tokens or 0)


def _lone_answers(reading: Reading) -> bool:
    """Whether a row that records ``round_answers`` made lone round-0 answers only."""
    if len(reading.rounds) != 1:
        return False
    sums = reading.sums()
    if sums is None:
        return (reading.row.rounds or 0) == 0
    return sums.lone


def is_voting_arm(rows: Sequence[RowLike]) -> bool:
    """Whether every call of every row is a lone answer to the question, in round 0.

    A row with turns qualifies when each turn is a round-0 ``answer``; a row without them
    when it records one round of answers and ran no round after it (``rounds`` is 0).

    Args:
        rows: Scored rows of one arm that record ``round_answers``.
    """
    return all(_lone_answers(Reading(as_row(row))) for row in rows)


class _Tally:
    """Sums of one point over the items: right answers, tokens, whether all were exact."""

    def __init__(self, correct: int = 0, tokens: float = 0.0, exact: bool = True) -> None:
        self.correct = correct
        self.tokens = tokens
        self.exact = exact

    def add(self, right: bool, tokens: float, exact: bool) -> None:
        self.correct += right
        self.tokens += tokens
        self.exact = self.exact and exact


_Steps_ = tuple[Sequence[bool], Sequence[float], Sequence[bool]]
"""A row's steps as three columns: per step, right, tokens through it, exact."""
_Carried = tuple[bool, float, int]
"""What a row adds to every step past its own: right, tokens, the first step that is exact."""


class _Steps:
    """Per-step tallies (rounds, or ``k``) over rows of different lengths, in row order.

    A row adds its own steps, and to every later step its carried contribution (its last
    answers, its whole spend). A step opened by a longer row starts from the carried
    contributions of the rows before it, summed in the same order, so the sums are those of
    adding every row to every step one by one.
    """

    def __init__(self) -> None:
        self.correct: list[int] = []
        self.tokens: list[float] = []
        self.exact: list[bool] = []
        self.carried = _Tally()
        self.exact_from = 0

    def add(self, steps: _Steps_, carried: _Carried) -> None:
        rights, spends, exacts = steps
        right, tokens, exact_from = carried
        correct, spent, exact = self.correct, self.tokens, self.exact
        known, count = len(correct), len(rights)
        for i in range(min(known, count)):
            correct[i] += rights[i]
            spent[i] += spends[i]
            exact[i] = exact[i] and exacts[i]
        if count > known:
            base, exact_from_before = self.carried, self.exact_from
            for i in range(known, count):
                correct.append(base.correct + rights[i])
                spent.append(base.tokens + spends[i])
                exact.append(i >= exact_from_before and exacts[i])
        for i in range(count, known):
            correct[i] += right
            spent[i] += tokens
            exact[i] = exact[i] and i >= exact_from
        self.carried.add(right, tokens, True)
        self.exact_from = max(self.exact_from, exact_from)

    @property
    def steps(self) -> list[_Tally]:
        """The tallies, one per step."""
        return [_Tally(*step) for step in zip(self.correct, self.tokens, self.exact, strict=True)]


def _point(
    arm: str,
    tally: _Tally,
    n: int,
    items: int,
    *,
    at_round: int | None = None,
    k: int | None = None,
) -> ParetoPoint:
    low, high = item_wilson_interval(tally.correct, n, items)
    return ParetoPoint(
        arm=arm,
        round=at_round,
        k=k,
        decision=at_round is None and k is None,
        n=n,
        correct=tally.correct,
        accuracy=tally.correct / n,
        ci_low=low,
        ci_high=high,
        tokens_per_item=tally.tokens / n,
        tokens_exact=tally.exact,
        on_front=False,
    )


def _round_steps(reading: Reading) -> tuple[_Steps_, _Carried]:
    """A debating row's steps: per round, its majority and the tokens through that round.

    Without turns, a round is priced at the whole debate's tokens, exact once nothing is left
    to spend (from its last round and its ``rounds`` on).
    """
    row = reading.row
    majorities, sums, total = reading.majorities, reading.sums(), _total(row)
    count = len(majorities)
    if sums is not None:
        return (majorities, sums.tokens, [True] * count), (majorities[-1], total, 0)
    ran = row.rounds or 0
    last = count - 1
    exacts = [r >= last and r >= ran for r in range(count)]
    return (majorities, [total] * count, exacts), (majorities[-1], total, ran)


def _vote_steps(reading: Reading) -> tuple[_Steps_, _Carried]:
    """A voting row's steps: per ``k``, the majority of its first ``k`` answers and their tokens."""
    answers, costs = _samples(reading)
    total = _total(reading.row)
    decided = prefix_majorities(answers)
    rights = reading.grades_of(decided)
    right = rights[-1] if answers else reading.grade(None)
    count = len(answers)
    if costs is not None:
        through = list(accumulate(costs))
        return (rights, through, [True] * count), (right, through[-1] if through else 0, 0)
    # samples priced alike
    spends = [total * k / count for k in range(1, count + 1)]
    return (rights, spends, [k == count for k in range(1, count + 1)]), (right, total, 0)


def round_points(arm: str, rows: Sequence[RowLike]) -> list[ParetoPoint]:
    """A debating arm's points: per round, that round's majority against tokens through it.

    Args:
        arm: The arm's label.
        rows: Its scored rows that record ``round_answers``.

    Returns:
        One point per round, up to the longest debate.
    """
    steps = _Steps()
    for row in rows:
        steps.add(*_round_steps(Reading(as_row(row))))
    items = distinct_items(rows)
    return [_point(arm, t, len(rows), items, at_round=r) for r, t in enumerate(steps.steps)]


def _samples(reading: Reading) -> tuple[list[Answer], list[int] | None]:
    """A voting row's answers, one per agent that made a call, and each one's tokens.

    Without turns (or agent names that match the answers), every answer and no prices.
    """
    answers: list[Answer] = list(reading.rounds[0]) if reading.rounds else []
    sums, names = reading.sums(), reading.row.agent_names
    if sums is None or names is UNSET or len(names) != len(answers):
        return answers, None
    by_agent = sums.by_agent
    costs = [by_agent.get(name) for name in names]
    if None not in costs:  # every agent drew its sample
        return answers, cast("list[int]", costs)
    drawn = [i for i, name in enumerate(names) if name in by_agent]
    return [answers[i] for i in drawn], [by_agent[names[i]] for i in drawn]


def vote_points(arm: str, rows: Sequence[RowLike]) -> list[ParetoPoint]:
    """A voting arm's points: per ``k``, the majority of its first ``k`` answers.

    Args:
        arm: The arm's label.
        rows: Its scored rows that record ``round_answers`` (one round each).

    An agent that made no call (SID-ET's other agents, when its first agent is confident)
    drew no sample: it is left out of its item's answers, so an arm whose items all stopped
    after one call has one point, not one per agent.

    Returns:
        One point per ``k = 1..K``, ``K`` the most answers any item drew.
    """
    steps = _Steps()
    for row in rows:
        steps.add(*_vote_steps(Reading(as_row(row))))
    items = distinct_items(rows)
    return [_point(arm, t, len(rows), items, k=k) for k, t in enumerate(steps.steps, start=1)]


def decision_point(arm: str, rows: Sequence[RowLike]) -> ParetoPoint:
    """The arm's own final answers (``correct``) against its whole spend per item.

    Args:
        arm: The arm's label.
        rows: Its scored rows.
    """
    tally = _Tally()
    for row in map(as_row, rows):
        tally.add(bool(row.correct), _total(row), True)
    return _point(arm, tally, len(rows), distinct_items(rows))


class ArmPoints:
    """One arm's Pareto points, built one row at a time (:func:`arm_points` over a stream).

    Holds per-step sums and the arm's distinct items, not its rows: both readings of a
    traced row (per round, and per ``k`` while every row so far is a lone vote) are kept
    until the end says which one the arm is.
    """

    def __init__(self) -> None:
        self.scored, self.traced = _Tally(), _Tally()
        self.scored_n = self.traced_n = 0
        self.scored_items: set[tuple[Any, Any]] = set()
        self.traced_items: set[tuple[Any, Any]] = set()
        self.rounds, self.votes = _Steps(), _Steps()
        self.voting = True

    def add(self, row: Row) -> None:
        """Add one row of the arm (a failed row adds nothing)."""
        if row.error is not UNSET:
            return
        right, tokens = bool(row.correct), _total(row)
        item = (opt(row.dataset), row.id)
        self.scored.add(right, tokens, True)
        self.scored_n += 1
        self.scored_items.add(item)
        if not row.round_answers:
            return
        self.traced.add(right, tokens, True)
        self.traced_n += 1
        self.traced_items.add(item)
        reading = reading_of(row)
        self.rounds.add(*_round_steps(reading))
        self.voting = self.voting and _lone_answers(reading)
        if self.voting:
            self.votes.add(*_vote_steps(reading))

    def points(self, arm: str) -> list[ParetoPoint]:
        """The arm's points, as :func:`arm_points` gives them for the rows added."""
        if not self.traced_n:
            n, items = self.scored_n, len(self.scored_items)
            return [_point(arm, self.scored, n, items)] if n else []
        n, items = self.traced_n, len(self.traced_items)
        if self.voting:
            found = [_point(arm, t, n, items, k=k) for k, t in enumerate(self.votes.steps, 1)]
        else:
            found = [_point(arm, t, n, items, at_round=r) for r, t in enumerate(self.rounds.steps)]
        steps: list[ParetoPoint] = []
        for point in found:  # a round no agent answered in repeats the round before it
            if not steps or not _same(point, steps[-1]):
                steps.append(point)
        final = _point(arm, self.traced, n, items)
        if not steps:  # rows that record a round without answers
            return [final]
        return steps if _same(final, steps[-1]) else [*steps, final]


def arm_points(arm: str, rows: Iterable[RowLike]) -> list[ParetoPoint]:
    """Every point of one arm, in order of spend: rounds or ``k``, then its decision.

    Failed rows are left out; so are rows without ``round_answers``, unless no row has them
    (then the arm is its decision point alone). A point that repeats the one before it (same
    right answers, same tokens: a round in which no agent answered, as MoA's aggregator
    round or the council's ranking round) is left out, and so is the decision point where it
    is the last point already.

    Args:
        arm: The arm's label.
        rows: The arm's rows.

    Returns:
        The points, not yet marked for the front; empty without a scored row.
    """
    tally = ArmPoints()
    for row in rows:
        tally.add(as_row(row))
    return tally.points(arm)


def _same(a: ParetoPoint, b: ParetoPoint) -> bool:
    """Whether two points of one arm are the same configuration: same answers right, same spend."""
    spend = a["tokens_per_item"]
    return a["correct"] == b["correct"] and abs(spend - b["tokens_per_item"]) <= 1e-9 * max(
        1.0, spend
    )


def dominates(a: ParetoPoint, b: ParetoPoint) -> bool:
    """Whether ``a`` spends no more tokens for no less accuracy than ``b``, one strictly."""
    cheaper = a["tokens_per_item"] <= b["tokens_per_item"]
    better = a["accuracy"] >= b["accuracy"]
    strict = a["tokens_per_item"] < b["tokens_per_item"] or a["accuracy"] > b["accuracy"]
    return cheaper and better and strict


def mark_front(points: Sequence[ParetoPoint]) -> list[ParetoPoint]:
    """The points with ``on_front`` set: true where no other point dominates it.

    One sweep from the cheapest spend up: a point is dominated when a cheaper point is at
    least as accurate, or a point of the same spend is more accurate.

    Args:
        points: The points of one group.

    Returns:
        New points, in the same order.
    """
    order = sorted(range(len(points)), key=lambda i: points[i]["tokens_per_item"])
    on = [False] * len(points)
    cheaper_best = float("-inf")  # best accuracy among strictly cheaper points
    start = 0
    while start < len(order):
        spend = points[order[start]]["tokens_per_item"]
        end = start
        while end < len(order) and points[order[end]]["tokens_per_item"] == spend:
            end += 1
        same = [order[j] for j in range(start, end)]
        best = max(points[i]["accuracy"] for i in same)
        for i in same:
            accuracy = points[i]["accuracy"]
            on[i] = accuracy > cheaper_best and accuracy == best
        cheaper_best = max(cheaper_best, best)
        start = end
    marked = []
    for point, front_flag in zip(points, on, strict=True):
        copy = point.copy()
        copy["on_front"] = front_flag
        marked.append(copy)
    return marked


def pareto_points(rows: Iterable[RowLike]) -> list[ParetoPoint]:
    """Every arm's points over the rows of one group, marked for the group's front.

    Args:
        rows: Result rows of one report group (one source and dataset).

    Returns:
        Points, arms in first-seen order.
    """
    points = [p for arm, r in group_by(rows, "method").items() for p in arm_points(arm, r)]
    return mark_front(points)


def front(points: Iterable[ParetoPoint]) -> list[ParetoPoint]:
    """The points on the front, cheapest first (ties: more accurate first)."""
    on = [p for p in points if p["on_front"]]
    return sorted(on, key=lambda p: (p["tokens_per_item"], -p["accuracy"]))


def group_points(groups: Sequence[Any]) -> list[list[ParetoPoint]]:
    """The Pareto points of each report group, from the rows the group rests on.

    A group's rows carry the source they are reported under
    (:func:`debategraph.eval.analysis.results.sourced_rows`), so a group's points and its summaries
    cover the same rows.

    Args:
        groups: The report's groups (:class:`debategraph.eval.analysis.results.Group`).

    Returns:
        One list of points per group, in the groups' order.
    """
    return [pareto_points(group.rows) for group in groups]
