"""RECONCILE's confidence-weighted vote (Chen, Saha and Bansal, ACL 2024).

Each agent reports a confidence ``p`` with its answer. RECONCILE maps ``p`` through a step
function ``f`` (the official code's recalibration) and picks the answer with the largest sum
of ``f(p)`` over its holders. A tie goes to the answer seen first.

Missing confidences follow the official code (dinobby/ReConcile, ``utils.py``;
``algorithms.md`` §7.3): ``clean_output`` sets a missing, empty or unparseable
``confidence_level`` to ``0.0`` (and ``invalid_result`` gives an invalid output confidence
``0.0``), and ``parse_output`` then adds ``trans_confidence(0.0) = 0.1`` to that agent's
answer. So an agent without a confidence still counts, with the lowest weight 0.1, exactly
like an agent that reported ``p <= 0.6``. We apply the same weight to every confidence we
cannot read (missing, unparseable, negative, non-finite, boolean); the official code maps
negative numbers to 0.1 as well and crashes on NaN and infinity. Values above 1 are clipped
to 1 (the official ``trans_confidence`` returns ``None`` there and the vote then fails).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real

from debategraph.policies.ties import best_scored
from debategraph.policies.types import Answer, Decision, Trajectory

Confidence = float | str | None
"""A self-reported confidence: a number in [0, 1], a string such as ``"0.85"`` or ``"85%"``,
or ``None`` when the agent reported none."""

MISSING_CONFIDENCE = 0.0
"""The confidence a missing or unreadable report stands for (the official code's ``0.0``)."""


def parse_confidence(p: Confidence) -> float | None:
    """Read a self-reported confidence as a number in [0, 1].

    Percent strings (``"85%"``) are divided by 100; other strings are read as floats. A value
    above 1 is clipped to 1 (the official code returns nothing there; clipping is our
    assumption). Missing, unparseable, negative, non-finite and boolean values are invalid.

    Args:
        p: The reported confidence.

    Returns:
        The confidence in [0, 1], or ``None`` when it is missing or invalid.
    """
    if p is None or isinstance(p, bool):
        return None
    value: float
    if isinstance(p, str):
        text = p.strip()
        try:
            value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            return None
    elif isinstance(p, Real):
        value = float(p)
    else:
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return min(value, 1.0)


def recalibrate_reconcile(p: Confidence) -> float:
    """RECONCILE's recalibration step function ``f(p)``.

    ``p <= 0.6`` -> 0.1; ``0.6 < p < 0.8`` -> 0.3; ``0.8 <= p < 0.9`` -> 0.5;
    ``0.9 <= p < 1`` -> 0.8; ``p == 1`` -> 1.0. The input is read by
    :func:`parse_confidence` (percent strings, clipping above 1).

    A missing or invalid confidence is read as ``p = 0`` and so weighs ``f(0) = 0.1``, as in
    the official code (see the module docstring): its holder still counts, with the lowest
    weight.

    Args:
        p: The reported confidence.

    Returns:
        The recalibrated weight, one of 0.1, 0.3, 0.5, 0.8, 1.0.
    """
    value = parse_confidence(p)
    if value is None:
        value = MISSING_CONFIDENCE
    if value <= 0.6:
        return 0.1
    if value < 0.8:
        return 0.3
    if value < 0.9:
        return 0.5
    if value < 1.0:
        return 0.8
    return 1.0


def weighted_vote(
    answers: Sequence[Answer],
    confidences: Sequence[Confidence],
    *,
    recalibrate: bool = True,
) -> Decision:
    """RECONCILE's vote: ``score(a) = sum of f(p_i)`` over the agents holding ``a``.

    Abstentions are excluded and counted. Ties (scores equal up to floating-point rounding)
    go to the answer seen first in agent order. The official code gets the same effect by
    adding 1e-5 to the first holder of every answer and taking ``max`` over a dict in
    insertion order; the constant is the same for every answer, so only the insertion order
    breaks ties. We reproduce that effect, not the constant.

    Args:
        answers: One canonical answer (or ``None``) per agent, in agent order.
        confidences: One reported confidence per agent.
        recalibrate: Weight each holder by ``f(p)`` (:func:`recalibrate_reconcile`); when
            false, by the parsed confidence itself (missing or invalid counts
            :data:`MISSING_CONFIDENCE`, i.e. 0).

    Returns:
        The decision (rule ``"reconcile_weighted"``) with evidence ``scores``,
        ``raw_confidences``, ``recalibrated`` (the weight each agent added; ``None`` for an
        abstention), ``abstentions``, ``tie``, ``tied`` and ``recalibrate``.

    Raises:
        ValueError: ``answers`` and ``confidences`` differ in length.
    """
    if len(answers) != len(confidences):
        raise ValueError(
            f"one confidence per answer is needed: {len(answers)} answers, "
            f"{len(confidences)} confidences"
        )
    scores: dict[str, float] = {}
    used: list[float | None] = []
    for answer, p in zip(answers, confidences, strict=True):
        if answer is None:
            used.append(None)
            continue
        weight = (
            recalibrate_reconcile(p) if recalibrate else (parse_confidence(p) or MISSING_CONFIDENCE)
        )
        used.append(weight)
        scores[answer] = scores.get(answer, 0.0) + weight
    evidence: dict[str, object] = {
        "scores": dict(scores),
        "raw_confidences": list(confidences),
        "recalibrated": used,
        "abstentions": sum(a is None for a in answers),
        "tie": False,
        "tied": [],
        "recalibrate": recalibrate,
    }
    if not scores:
        return Decision(None, "reconcile_weighted", {**evidence, "reason": "every agent abstained"})
    tied = best_scored(scores)
    return Decision(tied[0], "reconcile_weighted", {**evidence, "tie": len(tied) > 1, "tied": tied})


def reconcile_decision(trajectory: Trajectory, *, recalibrate: bool = True) -> Decision:
    """RECONCILE's decision over the final round of a trajectory.

    An agent that stopped early carries its last answer and confidence forward in the
    trajectory, which matches RECONCILE's fallback to the latest available round.

    Args:
        trajectory: Every agent's answer and confidence in every round.
        recalibrate: See :func:`weighted_vote`.

    Returns:
        The decision of :func:`weighted_vote` on the final answers and confidences.
    """
    return weighted_vote(
        trajectory.final_answers(), trajectory.final_confidences(), recalibrate=recalibrate
    )
