"""Plain data types shared by the pure policies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

TaskKind = Literal["number", "choice", "math", "text"]
"""How an answer is extracted and compared: a number, a choice letter, a math expression (voted
on a canonical key, graded by symbolic equivalence), or a normalised string."""

Answer = str | None
"""A canonical answer; ``None`` is an abstention (nothing parseable)."""


@dataclass(frozen=True)
class Trajectory:
    """Every agent's canonical answer and confidence in every round, initial round first.

    ``answers[i][k]`` is agent ``i``'s answer after round ``k`` (round 0 is the initial,
    independent answer). An agent that did not speak in a round carries its previous answer.

    Attributes:
        agents: Agent names, in agent order.
        answers: Per agent, per round, the canonical answer or ``None`` (abstained).
        confidences: Same shape; the agent's self-reported confidence or ``None``.
    """

    agents: Sequence[str]
    answers: Sequence[Sequence[Answer]]
    confidences: Sequence[Sequence[float | None]] = ()

    @property
    def num_rounds(self) -> int:
        """Rounds recorded, the initial round included."""
        return len(self.answers[0]) if self.answers else 0

    def final_answers(self) -> list[Answer]:
        """The last recorded answer of every agent."""
        return [row[-1] if row else None for row in self.answers]

    def final_confidences(self) -> list[float | None]:
        """The last recorded confidence of every agent (``None`` when not reported)."""
        if not self.confidences:
            return [None] * len(self.answers)
        return [row[-1] if row else None for row in self.confidences]


@dataclass(frozen=True)
class Decision:
    """The outcome of a decision rule.

    Attributes:
        answer: The chosen canonical answer, or ``None`` for "no answer".
        rule: Name of the rule that decided (e.g. ``"majority"``).
        evidence: What the rule looked at: vote counts or scores, tie handling, abstentions.
    """

    answer: Answer
    rule: str
    evidence: dict[str, Any] = field(default_factory=dict)
