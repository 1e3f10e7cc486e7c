"""Free-MAD's score-based decision over the whole debate trajectory.

Free-MAD (Cui et al., arXiv 2509.11035) does not vote over the last round. It keeps a score
per answer and updates it every round from how each agent moved:

* round 0 (the initial, independent answers): every answer held gains ``w1 * f(0)``;
* round ``k >= 1``, an agent that changed its answer: the abandoned answer loses
  ``w2 * f(k)`` and the newly adopted answer gains ``w3 * f(k)``;
* round ``k >= 1``, an agent that kept its answer: that answer gains ``w4 * f(k)``.

The highest score wins; ties are broken uniformly at random. The weights ``W = (20, 25, 30,
20)`` and the decay ``f(k) = 1 / (k + 1)`` are a reconstruction (the paper's formulas were
lost from the text copy); see ``docs/methods/freemad.md``.

Abstentions (``None``) are scored like any other answer token, so an abstention can be
abandoned (the answer an agent moves to gains) or adopted (the answer it left loses), but an
abstention never wins.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from numbers import Real

from debategraph.policies.ties import best_scored
from debategraph.policies.types import Answer, Decision, Trajectory

DEFAULT_WEIGHTS: tuple[float, float, float, float] = (20.0, 25.0, 30.0, 20.0)
"""``(w1, w2, w3, w4)``: initial answer, abandoned answer, adopted answer, kept answer."""

ABSTAIN_KEY = "<abstain>"
"""How the score of ``None`` is written in the JSON-safe evidence."""


def inverse_round(k: int) -> float:
    """Free-MAD's round correction factor ``f(k) = 1 / (k + 1)``.

    Round 0 is the initial answer, so ``f`` is 1, 1/2, 1/3, ... for rounds 0, 1, 2, ...

    Args:
        k: Round index, 0 for the initial answers.

    Returns:
        The factor that scales the weights of round ``k``.
    """
    return 1.0 / (k + 1)


def _check_weights(weights: Sequence[float]) -> tuple[float, float, float, float]:
    """Validate ``W`` and return it as four floats."""
    try:
        values = tuple(weights)
    except TypeError:
        raise ValueError(f"weights must be 4 numbers (w1, w2, w3, w4), got {weights!r}") from None
    if len(values) != 4 or not all(_is_finite_number(w) for w in values):
        raise ValueError(f"weights must be 4 finite numbers (w1, w2, w3, w4), got {weights!r}")
    w1, w2, w3, w4 = (float(w) for w in values)
    return w1, w2, w3, w4


def _is_finite_number(value: object) -> bool:
    """True for an int or float (not a bool) that is finite."""
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def _check_rows(trajectory_answers: Sequence[Sequence[Answer]]) -> int:
    """Validate the answer matrix and return its number of rounds (columns)."""
    if isinstance(trajectory_answers, str):
        raise ValueError("trajectory_answers must be one sequence of answers per agent")
    lengths = set()
    for index, row in enumerate(trajectory_answers):
        if isinstance(row, str):
            raise ValueError(
                f"agent {index}: a row must be a sequence of answers (one per round), "
                f"not the string {row!r}"
            )
        lengths.add(len(row))
    if len(lengths) > 1:
        raise ValueError(
            f"ragged trajectory: every agent needs the same number of rounds, got lengths "
            f"{sorted(lengths)}"
        )
    return lengths.pop() if lengths else 0


def freemad_scores(
    trajectory_answers: Sequence[Sequence[Answer]],
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    decay: Callable[[int], float] = inverse_round,
) -> dict[Answer, float]:
    """Free-MAD score of every answer that appeared in the trajectory.

    Rounds are processed in order and, within a round, agents in agent order, so the
    returned dict lists answers in first-seen order.

    Args:
        trajectory_answers: ``answers[i][k]`` is agent ``i``'s canonical answer after round
            ``k`` (``k = 0`` initial); ``None`` is an abstention. Every row must have the same
            length.
        weights: ``(w1, w2, w3, w4)``: weight of an initial answer, penalty on an abandoned
            answer, reward to a newly adopted answer, reward for a kept answer.
        decay: Round correction factor ``f(k)``; ``f(0)`` scales the initial answers.

    Returns:
        The score of every answer seen, ``None`` (abstention) included when it occurred.

    Raises:
        ValueError: Ragged rows, a row that is a string, weights that are not 4 finite
            numbers, or a decay that returns something other than a finite number.
    """
    w1, w2, w3, w4 = _check_weights(weights)
    num_rounds = _check_rows(trajectory_answers)
    factors = []
    for k in range(num_rounds):
        factor = decay(k)
        if not _is_finite_number(factor):
            raise ValueError(f"decay({k}) must return a finite number, got {factor!r}")
        factors.append(float(factor))

    scores: dict[Answer, float] = {}
    if num_rounds == 0:
        return scores
    for row in trajectory_answers:
        scores[row[0]] = scores.get(row[0], 0.0) + w1 * factors[0]
    for k in range(1, num_rounds):
        for row in trajectory_answers:
            previous, current = row[k - 1], row[k]
            if current != previous:
                scores[previous] = scores.get(previous, 0.0) - w2 * factors[k]
                scores[current] = scores.get(current, 0.0) + w3 * factors[k]
            else:
                scores[current] = scores.get(current, 0.0) + w4 * factors[k]
    return scores


def freemad_decision(
    trajectory: Trajectory,
    *,
    weights: Sequence[float] = DEFAULT_WEIGHTS,
    decay: Callable[[int], float] = inverse_round,
    seed: int = 0,
) -> Decision:
    """Free-MAD's decision: the answer with the highest trajectory score.

    Ties (scores equal up to floating-point rounding, see :mod:`debategraph.policies.ties`)
    are broken uniformly at random: ``random.Random(seed).choice`` over the tied answers
    sorted as strings. Abstentions are scored but never chosen; when no
    non-abstaining answer is in the score table the decision is "no answer" (``None``).

    Args:
        trajectory: Every agent's answer in every round, the initial round first.
        weights: ``(w1, w2, w3, w4)``, see :func:`freemad_scores`.
        decay: Round correction factor ``f(k)``, see :func:`freemad_scores`.
        seed: Seed of the random tie-break.

    Returns:
        The decision (rule ``"freemad_score"``) with evidence ``scores`` (answer to score,
        ``None`` written as ``"<abstain>"``), ``tie``, ``tied`` (sorted tied answers; the
        winner alone when there is no tie; empty when nothing can win), ``weights``,
        ``abstentions`` (abstentions in the final round), ``debate_rounds`` and ``seed``.

    Raises:
        ValueError: Invalid trajectory or weights (see :func:`freemad_scores`), or an answer
            equal to ``"<abstain>"``, which would collide with the abstention key.
    """
    w = _check_weights(weights)
    scores = freemad_scores(trajectory.answers, w, decay)
    if ABSTAIN_KEY in scores:
        raise ValueError(f"the answer {ABSTAIN_KEY!r} is reserved for abstentions")
    evidence: dict[str, object] = {
        "scores": {ABSTAIN_KEY if a is None else a: s for a, s in scores.items()},
        "tie": False,
        "tied": [],
        "weights": list(w),
        "abstentions": sum(a is None for a in trajectory.final_answers()),
        "debate_rounds": max(trajectory.num_rounds - 1, 0),
        "seed": seed,
    }
    candidates = {a: s for a, s in scores.items() if a is not None}
    if not candidates:
        return Decision(
            None, "freemad_score", {**evidence, "reason": "no non-abstaining answer was scored"}
        )
    tied = sorted(best_scored(candidates))
    if len(tied) == 1:
        return Decision(tied[0], "freemad_score", {**evidence, "tied": tied})
    chosen = random.Random(seed).choice(tied)
    return Decision(chosen, "freemad_score", {**evidence, "tie": True, "tied": tied})
