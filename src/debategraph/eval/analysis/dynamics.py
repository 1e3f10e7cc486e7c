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
from typing import Any, TypedDict

from debategraph.eval.log.row import ANSWER_SOURCES
from debategraph.policies.answers import answers_match
from debategraph.policies.types import Answer, TaskKind
from debategraph.policies.voting import majority_vote

Row = Mapping[str, Any]

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


def grade(answer: Answer, row: Row) -> bool:
    """Whether ``answer`` is right for ``row``: graded as its final answer is (its ``task``)."""
    if row is _REMEMBERED.row:
        known = _REMEMBERED.grades.get(answer)
        if known is None:
            known = _REMEMBERED.grades[answer] = _graded(answer, row)
        return known
    return _graded(answer, row)


def _graded(answer: Answer, row: Row) -> bool:
    accepted = row.get("accepted")  # a span answer (SQuAD, LongBench): its exact match
    if accepted:
        from debategraph.policies.spans import span_grade

        return span_grade(answer, accepted)["exact_match"] == 1.0
    task: TaskKind = row.get("task") or "number"
    return answers_match(answer, row.get("reference"), task)


def majority_right(answers: Sequence[Answer], row: Row) -> bool:
    """Whether the majority of ``answers`` (first-seen tie-break) is right for ``row``."""
    if row is not _REMEMBERED.row:
        return grade(majority_vote(answers, tie_policy="first").answer, row)
    key = tuple(answers)
    known = _REMEMBERED.majorities.get(key)
    if known is None:
        known = grade(majority_vote(answers, tie_policy="first").answer, row)
        _REMEMBERED.majorities[key] = known
    return known


class _Remembered:
    """The row whose :func:`round_turns` is kept while several tallies read it."""

    def __init__(self, row: object = None) -> None:
        self.row = row
        self.turns: list[list[Mapping[str, Any]]] | None = None
        self.known = False
        self.grades: dict[Answer, bool] = {}
        self.majorities: dict[tuple[Answer, ...], bool] = {}


_REMEMBERED = _Remembered()


def remember_round_turns(row: Row | None) -> None:
    """Keep what is read of ``row`` once computed, until called with another row.

    Its :func:`round_turns`, grades and majorities: for one pass that feeds each row to
    several tallies. ``None`` forgets.
    """
    global _REMEMBERED
    _REMEMBERED = _Remembered(row)


def round_turns(row: Row) -> list[list[Mapping[str, Any]]] | None:
    """:func:`produced_turns` of ``row``, computed once for a remembered row.

    See :func:`remember_round_turns`.
    """
    if row is not _REMEMBERED.row:
        return produced_turns(row)
    if not _REMEMBERED.known:
        _REMEMBERED.turns, _REMEMBERED.known = produced_turns(row), True
    return _REMEMBERED.turns


def produced_turns(row: Row) -> list[list[Mapping[str, Any]]] | None:
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
    turns = row.get("turns")
    if not isinstance(turns, list):
        return None
    names = row.get("agent_names")
    agents = set(names) if isinstance(names, list) else None
    entries = len(row.get("round_answers") or [])
    answer_rounds = 0
    ends: dict[int, int] = {}  # per round, the end of its last answer call
    for i, turn in enumerate(turns):
        if (turn.get("kind") or "answer") != "answer":
            continue
        r = int(turn.get("round") or 0)
        answer_rounds = max(answer_rounds, r)
        if agents is None or turn.get("agent") in agents:
            ends[r] = i + 1
    out: list[list[Mapping[str, Any]]] = []
    cut = 0
    for r in range(entries):
        if r > answer_rounds:
            out.append([t for t in turns if t.get("kind") != "decision"])
            continue
        cut = max(cut, ends.get(r, 0))
        out.append(turns[:cut])
    return out


def turn_tokens(turns: Sequence[Mapping[str, Any]]) -> int:
    """Input + output tokens of some stored turns."""
    return sum(int(t.get("input_tokens") or 0) + int(t.get("output_tokens") or 0) for t in turns)


def _rounds(row: Row) -> list[list[Answer]]:
    return [list(r) for r in row.get("round_answers") or []]


def _at(rounds: list[list[Answer]], k: int) -> list[Answer]:
    return rounds[min(k, len(rounds) - 1)]


def settled_at_round0(row: Row) -> bool:
    """Whether a row's round-0 answers all agree, none abstaining: no debate is needed.

    An item whose agents disagree, or where any abstains, is contested (even if they are
    all wrong). What ``--only-contested`` screens items by.
    """
    rounds = _rounds(row)
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


def round_dynamics(rows: Sequence[Row]) -> list[RoundStats]:
    """Per round, the majority's accuracy, the share of agents right, and the flips.

    Args:
        rows: Scored rows of one method (failed rows and rows without ``round_answers`` are
            left out).

    Returns:
        One entry per round, up to the longest debate.
    """
    kept = [r for r in rows if "error" not in r and r.get("round_answers")]
    trajectories = [(r, _rounds(r)) for r in kept]
    longest = max((len(t) for _, t in trajectories), default=0)
    stats: list[RoundStats] = []
    for k in range(longest):
        flips = dict.fromkeys(FLIPS, 0)
        majorities_right = right = answers = compared = 0
        for row, rounds in trajectories:
            now = _at(rounds, k)
            graded = [grade(a, row) for a in now]
            majorities_right += majority_right(now, row)
            right += sum(graded)
            answers += len(now)
            if k == 0:
                continue
            before = _at(rounds, k - 1)
            compared += len(now)
            for a, b, right_after in zip(before, now, graded, strict=True):
                kind = flip_kind(a, b, grade(a, row), right_after)
                if kind is not None:
                    flips[kind] += 1
        n = len(trajectories)
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


def round_zero_vote(rows: Sequence[Row]) -> RoundZeroVote:
    """The vote at round 0 of one method's rows, beside their final answers.

    Args:
        rows: Rows of one method; failed rows and rows without ``round_answers`` are left out.
    """
    kept = [r for r in rows if "error" not in r and r.get("round_answers")]
    n = len(kept)
    correct = sum(majority_right(_rounds(r)[0], r) for r in kept)
    final = sum(bool(r.get("correct")) for r in kept)
    with_turns = [r for r in kept if isinstance(r.get("turns"), list)]
    tokens = calls = None
    if with_turns and len(with_turns) == n:
        first = [(round_turns(r) or [[]])[0] for r in with_turns]
        tokens = sum(turn_tokens(ts) for ts in first) / n
        calls = sum(len(ts) for ts in first) / n
    return RoundZeroVote(
        n=n,
        correct=correct,
        accuracy=_share(correct, n),
        final_accuracy=_share(final, n),
        tokens_per_item=tokens,
        calls_per_item=calls,
    )


def vote_is_right(row: Row, k: int = 0) -> bool:
    """Whether the majority of a row's round-``k`` answers is right.

    Graded as :func:`vote_at_round` grades it: first-seen tie-break, a vote of abstentions is
    wrong, and past a row's last round, its last round.

    Args:
        row: A scored row with ``round_answers``.
        k: The round.
    """
    rounds = row["round_answers"]
    return majority_right(rounds[min(k, len(rounds) - 1)], row)


def vote_at_round(
    rows: Sequence[Row], k: int = 0, label: str = "{method} · vote@r{k}"
) -> list[dict[str, Any]]:
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
    for row in rows:
        if "error" in row or not row.get("round_answers"):
            continue
        rounds = _rounds(row)
        answer = majority_vote(_at(rounds, k), tie_policy="first").answer
        new = dict(row)
        new.update(
            method=label.format(method=row.get("method"), k=k),
            answer=answer,
            correct=grade(answer, row),
            abstained=answer is None,
            rounds=min(k, len(rounds) - 1),
            round_answers=rounds[: k + 1],
            decision={"rule": "majority", "evidence": {"round": k}},
        )
        if isinstance(row.get("round_confidences"), list):
            new["round_confidences"] = row["round_confidences"][: k + 1]
        if k == 0:
            new["ncomm"] = 0  # initial answers read nobody
        produced = round_turns(row)
        if produced is not None:
            early = produced[min(k, len(produced) - 1)]
            by_kind: dict[str, dict[str, int]] = {}
            for t in early:
                slot = by_kind.setdefault(t.get("kind") or "answer", dict.fromkeys(_TOKENS, 0))
                for key in _TOKENS:
                    slot[key] += t.get(key) or 0
            sources = dict.fromkeys(ANSWER_SOURCES, 0)
            for t in early:
                if t.get("kind") == "answer" and t.get("answer_source") in sources:
                    sources[t["answer_source"]] += 1
            new.update(
                turns=early,
                answer_sources=sources,
                calls=len(early),
                input_tokens=sum(t.get("input_tokens") or 0 for t in early),
                output_tokens=sum(t.get("output_tokens") or 0 for t in early),
                tokens_by_kind=by_kind,
            )
        out.append(new)
    return out


_TOKENS = ("input_tokens", "output_tokens")
