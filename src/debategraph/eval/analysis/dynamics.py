"""How answers move from round to round, read from stored rows (no model call).

For every round: the accuracy of that round's majority, the share of the agents' answers
that are right, and the flips since the previous round, one agent at a time: right to wrong,
wrong to right, wrong to another wrong answer, and the changes to and from abstaining. And the
vote at round 0: the majority of the debate's own initial answers, which every debate pays for
anyway, beside its final answer; it answers "did debating help here?" at no extra cost.

Rows that stopped early carry their last round forward (no flips after they stop); agents
that sat a round out carry their answer (SVR-MAD, S²-MAD, gates). Answers are graded like
final answers (:func:`debategraph.policies.answers.answers_match`, with the row's ``task``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, cast

import msgspec.structs
from msgspec import UNSET, UnsetType

from debategraph.eval.log.row import ANSWER_SOURCES, Turn, TurnFigures, as_row, opt
from debategraph.eval.log.row import Row as RowStruct
from debategraph.policies.answers import answers_match
from debategraph.policies.types import Answer, TaskKind

Row = RowStruct[Any]
"""One result row, its turns :class:`~debategraph.eval.log.row.Turn` or
:class:`~debategraph.eval.log.row.TurnFigures` (see :mod:`debategraph.eval.log.row`)."""

RowLike = RowStruct[Any] | Mapping[str, Any]
"""What a public reader takes: a :class:`Row`, or its JSON object (checked into one)."""

AnyTurn = Turn | TurnFigures
"""A stored turn, with its texts or without."""

FLIPS = (
    "right_to_wrong",
    "wrong_to_right",
    "wrong_to_other_wrong",
    "right_to_abstain",
    "wrong_to_abstain",
    "abstain_to_right",
    "abstain_to_wrong",
)
"""The kinds of answer change between two rounds, in report order."""


class RoundStats(TypedDict):
    """One round of one method's rows.

    Attributes:
        round: The round (0 = the initial answers).
        items: Rows that record answers for this round (stopped rows carried forward).
        majority_accuracy: Accuracy of the round's majority (first-seen tie-break).
        agents_right: Share of the agents' answers that are right (abstentions are not).
        answers: Agent answers compared with the previous round (0 in round 0).
        flips: Per kind (:data:`FLIPS`), how many agents changed that way since the previous
            round; all zero in round 0.
    """

    round: int
    items: int
    majority_accuracy: float
    agents_right: float
    answers: int
    flips: dict[str, int]


class RoundZeroVote(TypedDict):
    """The majority of a debate's own round-0 answers, beside its final answer.

    Attributes:
        n: Rows that record round-0 answers.
        correct: Of those, rows whose round-0 majority is right.
        accuracy: ``correct / n``.
        final_accuracy: The debate's own accuracy on the same rows.
        tokens_per_item: Tokens per item of the calls that produced the round-0 answers
            (:func:`round_turns`), when the rows keep their turns; ``None`` otherwise.
        calls_per_item: Those calls per item, when the rows keep their turns.
    """

    n: int
    correct: int
    accuracy: float
    final_accuracy: float
    tokens_per_item: float | None
    calls_per_item: float | None


def _share(part: float, whole: float) -> float:
    """``part / whole``; NaN when ``whole`` is 0 (nothing to share)."""
    return part / whole if whole else float("nan")


def grade(answer: Answer, row: RowLike) -> bool:
    """Whether ``answer`` is right for ``row``: graded as its final answer is (its ``task``)."""
    checked = as_row(row)
    if checked is _REMEMBERED.row:
        return _REMEMBERED.grade(answer)
    return _graded(answer, checked)


def _graded(answer: Answer, row: Row) -> bool:
    accepted = row.accepted  # a span answer (SQuAD, LongBench): its exact match
    if accepted:
        from debategraph.policies.spans import span_grade

        return span_grade(answer, accepted)["exact_match"] == 1.0
    task = cast("TaskKind", row.task or "number")
    return answers_match(answer, opt(row.reference), task)


def answer_counts(answers: Sequence[Answer]) -> dict[str, int]:
    """How often each non-abstaining answer occurs, in first-seen order."""
    counts: dict[str, int] = {}
    for answer in answers:
        if answer is not None:
            counts[answer] = counts.get(answer, 0) + 1
    return counts


def first_majority(answers: Sequence[Answer]) -> Answer:
    """The most common non-abstaining answer, the first seen among ties; ``None`` for none.

    :func:`~debategraph.policies.voting.majority_vote`'s answer with ``tie_policy="first"``.
    """
    counts = answer_counts(answers)
    if not counts:
        return None
    return max(counts, key=counts.__getitem__)


def majority_right(answers: Sequence[Answer], row: RowLike) -> bool:
    """Whether the majority of ``answers`` (first-seen tie-break) is right for ``row``."""
    return grade(first_majority(answers), row)


class TurnSums:
    """What the tallies read of a row's turns, summed in one pass over them.

    Attributes:
        tokens: Per entry of ``round_answers``, the tokens of :func:`produced_turns`.
        calls: Per entry, the calls of :func:`produced_turns`.
        by_agent: Tokens per agent (``None`` for turns without one), in first-call order.
        lone: Every turn is an answer in round 0 (a lone vote's sample).
    """

    __slots__ = ("by_agent", "calls", "lone", "tokens")

    def __init__(self, row: Row, turns: Sequence[AnyTurn]) -> None:
        names = row.agent_names
        agents = None if names is UNSET else set(names)
        spent = undecided = undecided_calls = answer_rounds = end = 0
        ends: dict[int, tuple[int, int]] = {}  # per round, its last answer call's end and spend
        by_agent: dict[Any, int] = {}
        lone = True
        unset = UNSET
        for turn in turns:
            end += 1
            cost = (turn.input_tokens or 0) + (turn.output_tokens or 0)
            spent += cost
            agent: str | UnsetType | None = turn.agent
            if agent is unset:
                agent = None
            by_agent[agent] = by_agent.get(agent, 0) + cost
            kind = turn.kind
            if kind != "decision":
                undecided += cost
                undecided_calls += 1
            if kind and kind != "answer":
                lone = False
                continue
            r = turn.round or 0
            if r:
                lone = False
                if r > answer_rounds:
                    answer_rounds = r
            if agents is None or agent in agents:
                ends[r] = (end, spent)
        tokens: list[int] = []
        calls: list[int] = []
        cut = cut_spent = 0
        for r in range(len(row.round_answers or ())):
            if r > answer_rounds:  # stances after the answer rounds: every call but a decision
                tokens.append(undecided)
                calls.append(undecided_calls)
                continue
            at = ends.get(r)
            if at is not None and at[0] > cut:
                cut, cut_spent = at
            tokens.append(cut_spent)
            calls.append(cut)
        self.tokens = tokens
        self.calls = calls
        self.lone = lone
        self.by_agent = by_agent


class Reading:
    """What the report's tallies read of one row, each part computed once, when first read.

    Args:
        row: A result row.
    """

    __slots__ = (
        "_graded",
        "_grades",
        "_majorities",
        "_pool_right",
        "_summed",
        "_sums",
        "rounds",
        "row",
    )

    def __init__(self, row: Row) -> None:
        self.row = row
        self.rounds: list[list[Answer]] = row.round_answers or []
        self._grades: dict[Answer, bool] = {}
        self._graded: list[list[bool]] | None = None
        self._majorities: list[bool] | None = None
        self._pool_right = False
        self._sums: TurnSums | None = None
        self._summed = False

    def grade(self, answer: Answer) -> bool:
        """:func:`grade` of ``answer`` for the row."""
        known = self._grades.get(answer)
        if known is None:
            known = self._grades[answer] = _graded(answer, self.row)
        return known

    def grades_of(self, answers: Sequence[Answer]) -> list[bool]:
        """:meth:`grade` of each of ``answers``."""
        grades = self._grades
        try:
            return [grades[answer] for answer in answers]
        except KeyError:
            return [self.grade(answer) for answer in answers]

    @property
    def graded(self) -> list[list[bool]]:
        """Per round of ``round_answers``, whether each agent's answer is right."""
        if self._graded is None:
            self._graded, self._majorities, self._pool_right = self._grade_rounds()
        return self._graded

    @property
    def majorities(self) -> list[bool]:
        """Per round, whether its majority (first-seen tie-break) is right."""
        if self._majorities is None:
            self._graded, self._majorities, self._pool_right = self._grade_rounds()
        return self._majorities

    @property
    def pool_right(self) -> bool:
        """Whether any agent gave the right answer in any round (abstentions are not)."""
        if self._majorities is None:
            self._graded, self._majorities, self._pool_right = self._grade_rounds()
        return self._pool_right

    def _grade_rounds(self) -> tuple[list[list[bool]], list[bool], bool]:
        """The rounds graded, their majorities and the pool, each distinct answer graded once."""
        grades, row = self._grades, self.row
        graded: list[list[bool]] = []
        majorities: list[bool] = []
        pool = False
        for now in self.rounds:
            distinct = dict.fromkeys(now)
            for answer in distinct:
                if answer not in grades:
                    grades[answer] = _graded(answer, row)
            graded.append([grades[answer] for answer in now])
            distinct.pop(None, None)
            pool = pool or any(map(grades.__getitem__, distinct))
            # the most common answer, the first seen among ties (max keeps the first)
            top = max(distinct, key=now.count) if len(distinct) > 1 else next(iter(distinct), None)
            right = grades.get(top)
            if right is None:
                right = grades[top] = _graded(top, row)
            majorities.append(right)
        return graded, majorities, pool

    def sums(self) -> TurnSums | None:
        """The row's :class:`TurnSums`; ``None`` without stored turns."""
        if not self._summed:
            turns: list[AnyTurn] | msgspec.UnsetType = self.row.turns
            self._sums = None if turns is UNSET else TurnSums(self.row, turns)
            self._summed = True
        return self._sums

    def spends(self) -> tuple[list[int], list[int]] | None:
        """Per entry of ``round_answers``, the tokens and the calls of :func:`produced_turns`.

        ``None`` without stored turns.
        """
        sums = self.sums()
        return None if sums is None else (sums.tokens, sums.calls)


_FORGOTTEN = Reading(RowStruct(method="", id=""))
"""What is remembered when no row is (a row no reader is handed)."""

_REMEMBERED = _FORGOTTEN


def remember_round_turns(row: Row | None) -> None:
    """Keep what is read of ``row`` once computed (its :class:`Reading`), until called again.

    For one pass that feeds each row to several tallies. ``None`` forgets.
    """
    global _REMEMBERED
    _REMEMBERED = Reading(row) if row is not None else _FORGOTTEN


def reading_of(row: Row) -> Reading:
    """The row's :class:`Reading`: the one remembered (:func:`remember_round_turns`) or new."""
    return _REMEMBERED if row is _REMEMBERED.row else Reading(row)


def round_turns(row: RowLike) -> list[list[AnyTurn]] | None:
    """:func:`produced_turns` of ``row`` (see :func:`remember_round_turns`)."""
    return produced_turns(row)


def produced_turns(row: RowLike) -> list[list[AnyTurn]] | None:
    """Per entry of ``round_answers``, the calls that produced its answers, in call order.

    A round of answers (round ``r`` of the answer turns) is produced by every call made up to
    its last answer call: the calls of the rounds before it (they decided what round ``r``
    does and what its speakers read) and those of round ``r`` made before its answers
    (summaries, evaluations that feed it), never a call made after them (a judge's per-round
    verdict, a decision call, a summary for the next round). A round in which no agent
    answered (its answers carried) costs what the round before it did. Stances recorded after
    the answer rounds (SVR-MAD's votes after its pairwise debates, ``method_state["stances"]``)
    are produced by every call but a ``decision`` call. Calls are read in the order the row
    keeps them, which is the order of the debate's phases.

    Args:
        row: A scored row with ``round_answers``.

    Returns:
        One list of turns per entry of ``round_answers``; ``None`` without stored turns.
    """
    checked = as_row(row)
    turns: list[AnyTurn] | msgspec.UnsetType = checked.turns
    if turns is UNSET:
        return None
    ends, answer_rounds = _answer_ends(checked, turns)
    out: list[list[AnyTurn]] = []
    cut = 0
    for r in range(len(checked.round_answers or ())):
        if r > answer_rounds:
            out.append([t for t in turns if t.kind != "decision"])
            continue
        cut = max(cut, ends.get(r, 0))
        out.append(turns[:cut])
    return out


def _answer_ends(row: Row, turns: Sequence[AnyTurn]) -> tuple[dict[int, int], int]:
    """Per round, the end of its last answer call (of the row's agents); the last answer round."""
    names = row.agent_names
    agents = None if names is UNSET else set(names)
    answer_rounds = 0
    ends: dict[int, int] = {}
    for i, turn in enumerate(turns):
        if (turn.kind or "answer") != "answer":
            continue
        r = turn.round or 0
        answer_rounds = max(answer_rounds, r)
        if agents is None or (None if turn.agent is UNSET else turn.agent) in agents:
            ends[r] = i + 1
    return ends, answer_rounds


def turn_tokens(turns: Sequence[AnyTurn]) -> int:
    """Input + output tokens of some stored turns."""
    return sum((t.input_tokens or 0) + (t.output_tokens or 0) for t in turns)


def _rounds(row: Row) -> list[list[Answer]]:
    return [list(r) for r in row.round_answers or []]


def _at(rounds: list[list[Answer]], k: int) -> list[Answer]:
    return rounds[min(k, len(rounds) - 1)]


def settled_at_round0(row: RowLike) -> bool:
    """Whether a row's round-0 answers all agree, none abstaining: no debate is needed.

    An item whose agents disagree, or where any abstains, is contested (even if they are
    all wrong). What ``--only-contested`` screens items by.
    """
    rounds = as_row(row).round_answers or []
    first = rounds[0] if rounds else []
    return len(first) > 1 and None not in first and len(set(first)) == 1


def flip_kind(before: Answer, after: Answer, right_before: bool, right_after: bool) -> str | None:
    """The kind of change from ``before`` to ``after`` (:data:`FLIPS`), or ``None`` for none.

    Args:
        before: The agent's answer in the earlier round (``None``: it abstained).
        after: Its answer in the later round.
        right_before: ``before`` is right.
        right_after: ``after`` is right.
    """
    if before is None:
        if after is None:
            return None
        return "abstain_to_right" if right_after else "abstain_to_wrong"
    if after is None:
        return "right_to_abstain" if right_before else "wrong_to_abstain"
    if right_before:
        return None if right_after else "right_to_wrong"
    if right_after:
        return "wrong_to_right"
    return "wrong_to_other_wrong" if after != before else None


def round_dynamics(rows: Sequence[RowLike]) -> list[RoundStats]:
    """Per round, the majority's accuracy, the share of agents right, and the flips.

    Args:
        rows: Scored rows of one method (failed rows and rows without ``round_answers`` are
            left out).

    Returns:
        One entry per round, up to the longest debate.
    """
    kept = [r for r in map(as_row, rows) if r.error is UNSET and r.round_answers]
    readings = [Reading(r) for r in kept]
    longest = max((len(t.rounds) for t in readings), default=0)
    stats: list[RoundStats] = []
    for k in range(longest):
        flips = dict.fromkeys(FLIPS, 0)
        majorities_right = right = answers = compared = 0
        for reading in readings:
            rounds = reading.rounds
            now = _at(rounds, k)
            graded = [reading.grade(a) for a in now]
            majorities_right += reading.grade(first_majority(now))
            right += sum(graded)
            answers += len(now)
            if k == 0:
                continue
            before = _at(rounds, k - 1)
            compared += len(now)
            for a, b, right_after in zip(before, now, graded, strict=True):
                kind = flip_kind(a, b, reading.grade(a), right_after)
                if kind is not None:
                    flips[kind] += 1
        n = len(readings)
        stats.append(
            RoundStats(
                round=k,
                items=n,
                majority_accuracy=_share(majorities_right, n),
                agents_right=_share(right, answers),
                answers=compared,
                flips=flips,
            )
        )
    return stats


def total_flips(stats: Sequence[RoundStats]) -> dict[str, int]:
    """The flips of every round added up, per kind."""
    return {kind: sum(s["flips"][kind] for s in stats) for kind in FLIPS}


def round_zero_vote(rows: Sequence[RowLike]) -> RoundZeroVote:
    """The vote at round 0 of one method's rows, beside their final answers.

    Args:
        rows: Rows of one method; failed rows and rows without ``round_answers`` are left out.
    """
    kept = [Reading(r) for r in map(as_row, rows) if r.error is UNSET and r.round_answers]
    n = len(kept)
    correct = sum(r.majorities[0] for r in kept)
    final = sum(bool(r.row.correct) for r in kept)
    spends = [r.spends() for r in kept]
    tokens = calls = None
    if n and all(spend is not None for spend in spends):
        tokens = sum(spend[0][0] for spend in spends if spend is not None) / n
        calls = sum(spend[1][0] for spend in spends if spend is not None) / n
    return RoundZeroVote(
        n=n,
        correct=correct,
        accuracy=_share(correct, n),
        final_accuracy=_share(final, n),
        tokens_per_item=tokens,
        calls_per_item=calls,
    )


def vote_is_right(row: RowLike, k: int = 0) -> bool:
    """Whether the majority of a row's round-``k`` answers is right.

    Graded as :func:`vote_at_round` grades it: first-seen tie-break, a vote of abstentions is
    wrong, and past a row's last round, its last round.

    Args:
        row: A scored row with ``round_answers``.
        k: The round.
    """
    majorities = reading_of(as_row(row)).majorities
    return majorities[min(k, len(majorities) - 1)]


def vote_at_round(
    rows: Sequence[RowLike], k: int = 0, label: str = "{method} · vote@r{k}"
) -> list[Row]:
    """Rows as if each debate had stopped after round ``k`` and taken its majority.

    Each new row's answer is the majority of the agents' round-``k`` answers (first-seen
    tie-break) and its trajectory ends at round ``k``. With the rows' turns kept, its tokens,
    calls and turns are those of rounds up to ``k``, so the rows read as an arm of their own
    in a report (the calls that produced round ``k``'s answers: :func:`round_turns`); without
    them the tokens stay the whole debate's (an upper bound).

    Args:
        rows: Result rows; failed rows and rows without ``round_answers`` are left out.
        k: The round whose answers are voted on (past a row's last round, its last round).
        label: The new rows' ``method``, formatted with ``method`` and ``k``.

    Returns:
        The new rows.
    """
    out = []
    for row in map(as_row, rows):
        if row.error is not UNSET or not row.round_answers:
            continue
        rounds = _rounds(row)
        answer = first_majority(_at(rounds, k))
        changes: dict[str, Any] = {
            "method": label.format(method=row.method, k=k),
            "answer": answer,
            "correct": grade(answer, row),
            "abstained": answer is None,
            "rounds": min(k, len(rounds) - 1),
            "round_answers": rounds[: k + 1],
            "decision": {"rule": "majority", "evidence": {"round": k}},
        }
        if row.round_confidences is not UNSET:
            changes["round_confidences"] = row.round_confidences[: k + 1]
        if k == 0:
            changes["ncomm"] = 0  # initial answers read nobody
        produced = round_turns(row)
        if produced is not None:
            early = produced[min(k, len(produced) - 1)]
            by_kind: dict[str, dict[str, int]] = {}
            sources = dict.fromkeys(ANSWER_SOURCES, 0)
            for t in early:
                slot = by_kind.setdefault(t.kind or "answer", dict.fromkeys(_TOKENS, 0))
                slot["input_tokens"] += t.input_tokens or 0
                slot["output_tokens"] += t.output_tokens or 0
                if t.kind == "answer" and t.answer_source in sources:
                    sources[str(t.answer_source)] += 1
            changes.update(
                turns=early,
                answer_sources=sources,
                calls=len(early),
                input_tokens=sum(t.input_tokens or 0 for t in early),
                output_tokens=sum(t.output_tokens or 0 for t in early),
                tokens_by_kind=by_kind,
            )
        out.append(msgspec.structs.replace(row, **changes))
    return out


_TOKENS = ("input_tokens", "output_tokens")
