"""What a decision rule reads besides the final answers: ballots, or a judge's call.

A rule says so with the :func:`needs` decorator; the engine reads it with :func:`rule_needs`
before any call (to refuse a method that cannot give it), asks the agents for ballots or
makes the judge's call, and passes the result to the rule as the ``ballots`` or ``judged``
option. A rule without the mark reads only the trajectory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from debategraph.policies.ballots import BALLOT_KINDS, BallotKind

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class RuleNeeds:
    """What a rule reads besides the trajectory.

    Attributes:
        ballot: The kind of ballot each agent gives in the final round (``approval``,
            ``cumulative`` or ``ranked``), or ``None``.
        judge: The rule reads the answer of one extra model call (kind ``decision``) that
            reads the last round's answers.
    """

    ballot: BallotKind | None = None
    judge: bool = False

    @property
    def answers_only(self) -> bool:
        """The rule reads the trajectory alone (``report --decision`` can re-decide rows)."""
        return self.ballot is None and not self.judge

    def describe(self) -> str:
        """A few words for listings: ``answers``, ``approval ballots`` or ``a judge call``."""
        if self.judge:
            return "a judge call"
        return f"{self.ballot} ballots" if self.ballot else "answers"


NO_NEEDS = RuleNeeds()


def needs(*, ballot: BallotKind | None = None, judge: bool = False) -> Callable[[F], F]:
    """Mark a rule as reading ballots of ``ballot`` kind, or a judge's call.

    Raises:
        ValueError: An unknown ballot kind, or both a ballot and a judge.
    """
    if ballot is not None and ballot not in BALLOT_KINDS:
        raise ValueError(f"unknown ballot kind {ballot!r}; valid: {', '.join(BALLOT_KINDS)}")
    if ballot is not None and judge:
        raise ValueError("a rule reads ballots or a judge's call, not both")

    def mark(fn: F) -> F:
        fn.needs = RuleNeeds(ballot, judge)  # type: ignore[attr-defined]
        return fn

    return mark


def rule_needs(rule: object) -> RuleNeeds:
    """What ``rule`` (a rule function) reads besides the trajectory."""
    found = getattr(rule, "needs", None)
    return found if isinstance(found, RuleNeeds) else NO_NEEDS
