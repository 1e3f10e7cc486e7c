"""Ballots and their counts: approval, cumulative (points) and ranked (Borda, instant runoff).

Pure functions, no LangGraph. A ballot names candidate answers by label (``C1``, ``C2``,
...; ``C0`` is the answer the voter gives in the same reply) on one line that starts with
``Ballot:`` (Markdown around the line is allowed; the last such line counts);
:func:`parse_ballot` turns it into answers:

* approval: ``Ballot: C1, C3`` -> ``["42", "17"]`` (the answers approved);
* cumulative: ``Ballot: C1=7, C2=3`` -> ``{"42": 7, "17": 3}`` (points, at most the budget);
* ranked: ``Ballot: C2 > C1`` -> ``["17", "42"]`` (most preferred first; a partial ranking is
  allowed).

A ballot that cannot be read (no ``Ballot:`` line, an unknown label, a repeated label in a
ranking, points that are negative, not whole numbers or over the budget, nothing chosen) is
*spoiled*: ``None``, counted as an abstention, never replaced by a guess.

Ties. Every count is given ``order``, the tie order of the answers (the engine passes the
final answers in agent order, then any other candidate in the order the ballots name it). A
tie for the most votes or points goes to the answer earliest in ``order``; instant runoff
eliminates, among those tied for the fewest first preferences, the answer latest in ``order``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal, get_args

from debategraph.policies.types import Decision

BallotKind = Literal["approval", "cumulative", "ranked"]
"""What a ballot holds: a set of approved answers, a point allocation or a ranking."""

BALLOT_KINDS: tuple[BallotKind, ...] = get_args(BallotKind)

ApprovalBallot = list[str]
CumulativeBallot = dict[str, int]
RankedBallot = list[str]
Ballot = ApprovalBallot | CumulativeBallot
"""A read ballot: a list of answers (approval, ranked) or answer -> points (cumulative)."""

RankedCount = Literal["irv", "borda"]
"""How ranked ballots are counted: instant runoff (``irv``) or the Borda count (``borda``)."""

DEFAULT_POINTS = 10
"""Points each voter shares out in a cumulative vote, unless the rule's ``points`` says."""

_BALLOT_LINE_RE = re.compile(
    r"^[ \t>#*_`-]*+ballot[ \t*_`]*+:[ \t*_`]*+(.*)$", re.IGNORECASE | re.MULTILINE
)
_LINE_END_MARKUP = " \t*_`.!"
_LABEL_RE = re.compile(r"^\s*\(?\s*C\s*(\d+)\s*\)?\s*$", re.IGNORECASE)
_POINTS_RE = re.compile(r"^\s*\(?\s*C\s*(\d+)\s*\)?\s*[=:]\s*(-?\d+(?:\.\d+)?)\s*$", re.IGNORECASE)


def label(index: int) -> str:
    """The label of the candidate at 0-based ``index`` (``C1`` for 0)."""
    return f"C{index + 1}"


def ballot_line(text: str) -> str | None:
    """What follows the last ``Ballot:`` of ``text``, or ``None`` when it has none.

    Markdown around the line (``**Ballot: C1**``, ``- Ballot: C1``, `` `Ballot: C1` ``) and a
    closing full stop are not part of it.
    """
    found = _BALLOT_LINE_RE.findall(text)
    return found[-1].strip().rstrip(_LINE_END_MARKUP) if found else None


def strip_ballot(text: str) -> str:
    """``text`` without its ``Ballot:`` lines (so that a ballot is not read as the answer)."""
    return _BALLOT_LINE_RE.sub("", text)


def _label_index(label_text: str) -> int | None:
    """``C3`` -> 2, ``C0`` -> -1 (the voter's own answer); ``None`` when not a label."""
    found = _LABEL_RE.match(label_text)
    return None if found is None else int(found.group(1)) - 1


def _candidate(index: int, candidates: Sequence[str], own: str | None) -> str | None:
    if index == -1:
        return own
    return candidates[index] if 0 <= index < len(candidates) else None


def parse_ballot(
    text: str,
    kind: BallotKind,
    candidates: Sequence[str],
    *,
    points: int = DEFAULT_POINTS,
    own: str | None = None,
) -> Ballot | None:
    """Read the ballot in ``text`` (its last ``Ballot:`` line).

    Args:
        text: The agent's reply.
        kind: ``approval``, ``cumulative`` or ``ranked``.
        candidates: The answers the labels stand for: ``C1`` is ``candidates[0]``.
        points: The cumulative budget.
        own: The answer the reply itself gives, which ``C0`` stands for (a ballot naming
            ``C0`` without one is spoiled). Labels naming one answer twice (``C0`` and the
            ``C`` label of the same answer) count as one name, its first place in a ranking.

    Returns:
        The ballot as answers, or ``None`` when it is spoiled (see the module docstring).

    Raises:
        ValueError: An unknown ``kind``.
    """
    if kind not in BALLOT_KINDS:
        raise ValueError(f"unknown ballot kind {kind!r}; valid: {', '.join(BALLOT_KINDS)}")
    line = ballot_line(text)
    if line is None:
        return None
    items = [i for i in re.split(r"[,;]" if kind != "ranked" else r">|,|;", line) if i.strip()]
    if not items:
        return None
    if kind == "cumulative":
        allocation: dict[str, int] = {}
        for item in items:
            found = _POINTS_RE.match(item)
            if found is None:
                return None
            value = float(found.group(2))
            answer = _candidate(int(found.group(1)) - 1, candidates, own)
            if answer is None or value < 0 or value != int(value):
                return None
            allocation[answer] = allocation.get(answer, 0) + int(value)
        total = sum(allocation.values())
        if total == 0 or total > points:
            return None
        return {a: n for a, n in allocation.items() if n > 0}
    chosen: list[str] = []
    labels: set[int] = set()
    for item in items:
        index = _label_index(item)
        named = None if index is None else _candidate(index, candidates, own)
        if index is None or named is None:
            return None
        if index in labels and kind == "ranked":
            return None
        labels.add(index)
        if named not in chosen:
            chosen.append(named)
    return chosen


def _tie_order(order: Sequence[str], scored: Sequence[str]) -> list[str]:
    """``order``, then any scored answer it lacks, in the order first scored."""
    return list(dict.fromkeys([*order, *scored]))


def _winner(scores: Mapping[str, float], order: Sequence[str]) -> tuple[str | None, list[str]]:
    """The answer with the highest score (ties: earliest in ``order``), and the tied ones."""
    if not scores:
        return None, []
    best = max(scores.values())
    ranked = _tie_order(order, list(scores))
    tied = [a for a in ranked if a in scores and scores[a] == best]
    return tied[0], tied


def _evidence(ballots: Sequence[object | None], **extra: object) -> dict[str, object]:
    return {"ballots": len(ballots), "abstentions": sum(b is None for b in ballots), **extra}


def _top_scored(
    ballots: Sequence[object | None],
    scores: Mapping[str, float],
    order: Sequence[str],
    rule: str,
    counts: Mapping[str, object],
    empty: str,
) -> Decision:
    """The highest-scored answer; ``counts`` lead the evidence, ``empty`` says why none won."""
    winner, tied = _winner(scores, order)
    evidence = _evidence(ballots, **counts, tie=len(tied) > 1, tied=tied)
    if winner is None:
        evidence["reason"] = empty
    return Decision(winner, rule, evidence)


def approval_count(
    ballots: Sequence[Sequence[str] | None], order: Sequence[str], *, rule: str = "approval"
) -> Decision:
    """Approval voting: the answer approved by the most ballots wins.

    Args:
        ballots: One ballot per voter (the answers it approves), ``None`` for a spoiled one.
        order: The tie order of the answers (module docstring).
        rule: The decision's rule name.

    Returns:
        The decision, evidence ``approvals`` (answer -> ballots approving it),
        ``abstentions``, ``tie`` and ``tied``; no answer when no ballot approves anything.
    """
    approvals: dict[str, float] = {}
    for ballot in ballots:
        for answer in dict.fromkeys(ballot or ()):
            approvals[answer] = approvals.get(answer, 0) + 1
    counts = {"approvals": {a: int(n) for a, n in approvals.items()}}
    return _top_scored(ballots, approvals, order, rule, counts, "no ballot approved an answer")


def cumulative_count(
    ballots: Sequence[Mapping[str, int] | None],
    order: Sequence[str],
    *,
    points: int = DEFAULT_POINTS,
    rule: str = "cumulative",
) -> Decision:
    """Cumulative voting: each voter shares out up to ``points``; the most points win.

    A ballot that gives more than ``points`` in all, or a negative amount, is spoiled here too
    (an abstention), whoever read it.

    Args:
        ballots: One allocation (answer -> points) per voter, ``None`` for a spoiled one.
        order: The tie order of the answers.
        points: Each voter's budget.
        rule: The decision's rule name.

    Returns:
        The decision, evidence ``points`` (answer -> total), ``budget``, ``abstentions``,
        ``tie`` and ``tied``.
    """
    counted: list[Mapping[str, int] | None] = [
        b
        if b is not None and sum(b.values()) <= points and min(b.values(), default=0) >= 0
        else None
        for b in ballots
    ]
    totals: dict[str, float] = {}
    for ballot in counted:
        for answer, n in (ballot or {}).items():
            totals[answer] = totals.get(answer, 0) + n
    totals = {a: n for a, n in totals.items() if n > 0}
    counts = {"points": {a: int(n) for a, n in totals.items()}, "budget": points}
    return _top_scored(counted, totals, order, rule, counts, "no ballot gave any points")


def borda_count(
    ballots: Sequence[Sequence[str] | None], order: Sequence[str], *, rule: str = "ranked"
) -> Decision:
    """The Borda count over rankings of ``n`` candidates.

    ``n`` is the number of distinct answers ranked on any ballot. The answer ranked ``k``-th
    (from 1) on a ballot gets ``n - k`` points from it; answers a ballot leaves unranked get
    none from it.

    Args:
        ballots: One ranking per voter (most preferred first), ``None`` for a spoiled one.
        order: The tie order of the answers.
        rule: The decision's rule name.

    Returns:
        The decision, evidence ``count`` (``"borda"``), ``scores``, ``abstentions``, ``tie``
        and ``tied``.
    """
    n = len({a for b in ballots for a in b or ()})
    scores: dict[str, float] = {}
    for ballot in ballots:
        for k, answer in enumerate(dict.fromkeys(ballot or ())):
            scores[answer] = scores.get(answer, 0) + (n - 1 - k)
    counts = {"count": "borda", "scores": {a: int(s) for a, s in scores.items()}}
    return _top_scored(ballots, scores, order, rule, counts, "every ballot was spoiled")


def instant_runoff(
    ballots: Sequence[Sequence[str] | None], order: Sequence[str], *, rule: str = "ranked"
) -> Decision:
    """Instant-runoff voting over rankings.

    Each round counts every ballot for its highest-ranked answer still standing. An answer
    with more than half of the ballots still counting wins; otherwise the answer with the
    fewest first preferences is eliminated (ties: the one latest in ``order``) and its
    ballots pass to their next choice. A ballot whose answers are all eliminated is
    exhausted. When one answer is left it wins.

    Args:
        ballots: One ranking per voter (most preferred first), ``None`` for a spoiled one.
        order: The tie order of the answers.
        rule: The decision's rule name.

    Returns:
        The decision, evidence ``count`` (``"irv"``), ``rounds`` (the first-preference
        counts of every round, and who was eliminated), ``abstentions``, ``tie`` and ``tied``.
    """
    rankings = [list(dict.fromkeys(b)) for b in ballots if b]
    standing = _tie_order(order, [a for r in rankings for a in r])
    standing = [a for a in standing if any(a in r for r in rankings)]
    rounds: list[dict[str, object]] = []
    while standing:
        counts = dict.fromkeys(standing, 0)
        for ranking in rankings:
            top = next((a for a in ranking if a in counts), None)
            if top is not None:
                counts[top] += 1
        live = sum(counts.values())
        best = max(counts.values())
        leaders = [a for a in standing if counts[a] == best]
        if best * 2 > live or len(standing) == 1:
            rounds.append({"counts": counts})
            return Decision(
                leaders[0], rule, _evidence(ballots, count="irv", rounds=rounds, tie=False, tied=[])
            )
        fewest = min(counts.values())
        if fewest == best:  # every answer standing is tied: no majority can form
            rounds.append({"counts": counts})
            return Decision(
                leaders[0],
                rule,
                _evidence(ballots, count="irv", rounds=rounds, tie=True, tied=leaders),
            )
        out = [a for a in standing if counts[a] == fewest][-1]
        rounds.append({"counts": counts, "eliminated": out})
        standing.remove(out)
    evidence = _evidence(ballots, count="irv", rounds=rounds, tie=False, tied=[])
    return Decision(None, rule, {**evidence, "reason": "every ballot was spoiled"})
