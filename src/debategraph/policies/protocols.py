"""Decision protocols as rules: supermajority, unanimity, approval, cumulative, ranked, judge.

Each is a rule ``rule(trajectory, **options) -> Decision`` registered in the
``debategraph.rules`` entry-point group, usable with any method that gives what it reads:

* ``supermajority`` (``threshold``, default 2/3): the most common final answer, if at least
  ``threshold`` of all agents (abstainers included) give it; else no answer.
* ``unanimity``: the final answer when every agent gives it; else no answer (an abstention).
* ``approval``, ``cumulative`` (``points``, default 10), ``ranked`` (``count``: ``irv``,
  the default, or ``borda``): the agents' ballots of the final round
  (:mod:`debategraph.policies.ballots`), passed by the engine as ``ballots``.
* ``judge`` (``judge_agent``, default the first agent): the answer of one extra call that
  reads the last round's answers, passed by the engine as ``judged``.

Ties in every count go to the answer that comes first among the final answers in agent order
(then among other ballot candidates, in the order the ballots name them).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from debategraph.policies.ballots import (
    DEFAULT_POINTS,
    RankedCount,
    approval_count,
    borda_count,
    cumulative_count,
    instant_runoff,
)
from debategraph.policies.rule_needs import needs
from debategraph.policies.types import Decision, Trajectory

DEFAULT_THRESHOLD = 2 / 3
"""The share of all agents a ``supermajority`` answer needs, unless ``threshold`` says."""


def tie_order(trajectory: Trajectory) -> list[str]:
    """The final answers in agent order, each once: the tie order of every count here."""
    return list(dict.fromkeys(a for a in trajectory.final_answers() if a is not None))


def supermajority_rule(trajectory: Trajectory, *, threshold: float = DEFAULT_THRESHOLD) -> Decision:
    """The most common final answer, if at least ``threshold`` of all agents give it.

    "At least", as MALLM's threshold consensus counts (``share >= threshold``): with 0.5, two
    of four agents reach it. Abstaining agents count in the whole (they are not part of the
    share). A threshold of one half or less can be reached by two answers at once (2 of 4
    each at 0.5): the most common wins, the first seen of equals (as ``majority`` breaks
    ties), and evidence ``tied`` lists the equals that also reached it.

    Args:
        trajectory: The debate's answers.
        threshold: The share of agents needed, in (0, 1].

    Returns:
        The decision (rule ``"supermajority"``), evidence ``votes``, ``share`` (the leader's),
        ``threshold`` and ``abstentions``; no answer with ``reason`` when not reached.

    Raises:
        ValueError: ``threshold`` is not a number in (0, 1].
    """
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not 0 < threshold <= 1
    ):
        raise ValueError(f"threshold must be a number in (0, 1], got {threshold!r}")
    finals = trajectory.final_answers()
    votes = Counter(a for a in finals if a is not None)
    evidence: dict[str, Any] = {
        "votes": dict(votes),
        "threshold": threshold,
        "abstentions": sum(a is None for a in finals),
    }
    if not votes:
        return Decision(None, "supermajority", {**evidence, "share": 0.0, "reason": "no answers"})
    leader = max(tie_order(trajectory), key=lambda a: votes[a])  # max keeps the first of ties
    share = votes[leader] / len(finals)
    evidence["share"] = share
    if share >= threshold or math.isclose(share, threshold, rel_tol=1e-9):
        tied = [a for a in tie_order(trajectory) if a != leader and votes[a] == votes[leader]]
        return Decision(leader, "supermajority", {**evidence, **({"tied": tied} if tied else {})})
    return Decision(None, "supermajority", {**evidence, "reason": "threshold not reached"})


def unanimity_rule(trajectory: Trajectory) -> Decision:
    """The final answer every agent gives; no answer (an abstention) otherwise.

    Returns:
        The decision (rule ``"unanimity"``), evidence ``votes`` and ``abstentions``; no
        answer with ``reason`` when the agents differ or one abstains.
    """
    finals = trajectory.final_answers()
    votes = Counter(a for a in finals if a is not None)
    evidence: dict[str, Any] = {"votes": dict(votes), "abstentions": sum(a is None for a in finals)}
    if len(votes) == 1 and not evidence["abstentions"]:
        return Decision(next(iter(votes)), "unanimity", evidence)
    reason = "an agent abstained" if len(votes) == 1 else "the agents differ"
    return Decision(None, "unanimity", {**evidence, "reason": reason if votes else "no answers"})


def _ballots(name: str, ballots: object) -> list[Any]:
    if ballots is None:
        raise ValueError(
            f"the {name!r} rule reads the agents' ballots, and none were given: the engine "
            "asks for them in the final round when the debate runs with this rule"
        )
    if isinstance(ballots, str | bytes) or not isinstance(ballots, Sequence):
        raise ValueError(f"ballots must be a list, one per agent, got {ballots!r}")
    return list(ballots)


def _order(trajectory: Trajectory, ballots: Sequence[Any]) -> list[str]:
    named = [a for b in ballots if b for a in b]
    return list(dict.fromkeys([*tie_order(trajectory), *named]))


@needs(ballot="approval")
def approval_rule(
    trajectory: Trajectory, *, ballots: Sequence[Sequence[str] | None] | None = None
) -> Decision:
    """Approval voting over the agents' final-round ballots (answers approved).

    Raises:
        ValueError: No ballots given.
    """
    given = _ballots("approval", ballots)
    return approval_count(given, _order(trajectory, given), rule="approval")


@needs(ballot="cumulative")
def cumulative_rule(
    trajectory: Trajectory,
    *,
    ballots: Sequence[Mapping[str, int] | None] | None = None,
    points: int = DEFAULT_POINTS,
) -> Decision:
    """Cumulative voting: each agent shares out ``points`` among the candidate answers.

    Raises:
        ValueError: No ballots given, or ``points`` not a whole number of at least 1.
    """
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise ValueError(f"points must be a whole number of at least 1, got {points!r}")
    given = _ballots("cumulative", ballots)
    return cumulative_count(given, _order(trajectory, given), points=points, rule="cumulative")


@needs(ballot="ranked")
def ranked_rule(
    trajectory: Trajectory,
    *,
    ballots: Sequence[Sequence[str] | None] | None = None,
    count: RankedCount = "irv",
) -> Decision:
    """Ranked-choice voting: instant runoff (``count="irv"``) or the Borda count.

    Raises:
        ValueError: No ballots given, or an unknown ``count``.
    """
    if count not in ("irv", "borda"):
        raise ValueError(f"count must be 'irv' or 'borda', got {count!r}")
    given = _ballots("ranked", ballots)
    counter = instant_runoff if count == "irv" else borda_count
    return counter(given, _order(trajectory, given), rule="ranked")


@needs(judge=True)
def judge_rule(
    trajectory: Trajectory,
    *,
    judged: Mapping[str, Any] | None = None,
    judge_agent: str | None = None,
) -> Decision:
    """The answer of the judge's call, which read the last round's answers.

    Args:
        trajectory: The debate's answers (shown in the evidence, not voted on).
        judged: The judge's turn, as the engine passes it: ``answer``, ``agent`` (whose
            model judged) and ``id``.
        judge_agent: Whose model makes the judge's call (default: the first agent's); the
            engine reads it, the rule only records it.

    Returns:
        The decision (rule ``"judge"``): the judge's answer, ``None`` when its reply held
        none (an abstention); evidence ``judge`` (the agent whose model judged), ``turn``
        and the final ``votes`` it read.

    Raises:
        ValueError: No judge's call was made.
    """
    if judged is None:
        raise ValueError(
            "the 'judge' rule reads the answer of a judge's model call, and none was made: "
            "the engine makes it after the last round when the debate runs with this rule"
        )
    finals = trajectory.final_answers()
    evidence: dict[str, Any] = {
        "judge": judged.get("agent"),
        "turn": judged.get("id"),
        "votes": dict(Counter(a for a in finals if a is not None)),
        "abstentions": int(judged.get("answer") is None),
    }
    if judged.get("answer") is None:
        evidence["reason"] = "the judge's reply held no answer"
    return Decision(judged.get("answer"), "judge", evidence)
