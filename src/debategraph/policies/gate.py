"""How settled a round's vote is: the measures a debate gate compares with its bound.

A gate (iMAD-style adaptive debate) looks at the answers of round 0 and lets the debate go
on only when the vote is not settled. Three measures:

* :func:`plurality_share`: the share of agents holding the most common answer (1 exactly
  when every agent gives the same answer: unanimity);
* :func:`answer_entropy`: the Shannon entropy, in bits, of the answer distribution;
* :func:`majority_confidence`: the mean stated confidence of the agents holding the most
  common answer.

Every abstention (``None``) is a category of its own: it agrees with nobody, not even with
another abstention, so abstentions make a vote look less settled, never more. No LangGraph
import.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from debategraph.policies.types import Answer


def answer_counts(answers: Sequence[Answer]) -> list[int]:
    """The size of every category, largest first; each abstention is a category of one."""
    counts = Counter(a for a in answers if a is not None)
    return sorted([*counts.values(), *(1 for a in answers if a is None)], reverse=True)


def plurality_share(answers: Sequence[Answer]) -> float:
    """The share of agents holding the most common answer (0 for no agents or no answer)."""
    counts = Counter(a for a in answers if a is not None)
    if not answers or not counts:
        return 0.0
    return max(counts.values()) / len(answers)


def answer_entropy(answers: Sequence[Answer]) -> float:
    """Shannon entropy of the answers, in bits: ``-sum p log2 p`` over the categories.

    ``["4", "4", "5"]`` gives ``0.918...``; three different answers ``log2 3``; unanimity 0.

    Raises:
        ValueError: No answers at all (the entropy of nothing is undefined).
    """
    if not answers:
        raise ValueError("the entropy of an empty vote is undefined")
    n = len(answers)
    entropy = -math.fsum(c / n * math.log2(c / n) for c in answer_counts(answers))
    return entropy + 0.0  # -0.0 for unanimity reads as 0.0


def majority_confidence(answers: Sequence[Answer], confidences: Sequence[float | None]) -> float:
    """The mean stated confidence of the holders of the most common answer.

    A holder whose confidence could not be read counts as 0. With no answer, or with a tie
    for the most common answer (no single majority to be confident in), the value is 0.

    Args:
        answers: Each agent's answer (``None``: abstained).
        confidences: Each agent's stated confidence in [0, 1], ``None`` where unread.

    Returns:
        A value in [0, 1].

    Raises:
        ValueError: ``answers`` and ``confidences`` of different lengths.
    """
    if len(answers) != len(confidences):
        raise ValueError(f"{len(answers)} answers but {len(confidences)} confidences")
    ranked = Counter(a for a in answers if a is not None).most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return 0.0
    top = ranked[0][0]
    held = [
        c if c is not None else 0.0 for a, c in zip(answers, confidences, strict=True) if a == top
    ]
    return math.fsum(held) / len(held)
