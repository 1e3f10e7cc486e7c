"""RECONCILE recalibration and weighted vote, with hand-computed scores.

f(p): p <= 0.6 -> 0.1; 0.6 < p < 0.8 -> 0.3; 0.8 <= p < 0.9 -> 0.5; 0.9 <= p < 1 -> 0.8;
p == 1 -> 1.0.
"""

from __future__ import annotations

import math

import pytest

from debategraph.policies.reconcile import (
    parse_confidence,
    recalibrate_reconcile,
    reconcile_decision,
    weighted_vote,
)
from debategraph.policies.types import Trajectory


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        (0.0, 0.1),
        (0.3, 0.1),
        (0.6, 0.1),
        (0.61, 0.3),
        (0.7999, 0.3),
        (0.8, 0.5),
        (0.85, 0.5),
        (0.8999, 0.5),
        (0.9, 0.8),
        (0.99, 0.8),
        (1.0, 1.0),
        (1, 1.0),
        (0, 0.1),
        (1.5, 1.0),  # clipped to 1
        (85.0, 1.0),  # clipped to 1
        ("85%", 0.5),  # 0.85
        ("90%", 0.8),  # 0.9
        ("80%", 0.5),  # 0.8
        ("60%", 0.1),  # 0.6
        ("100%", 1.0),
        ("120%", 1.0),  # 1.2 clipped
        (" 75 % ", 0.3),  # 0.75
        ("0.95", 0.8),
        ("1", 1.0),
        # Missing or unreadable: read as p = 0, so f(0) = 0.1 (official clean_output).
        (None, 0.1),
        ("", 0.1),
        ("high", 0.1),
        ("%", 0.1),
        (-0.1, 0.1),
        ("-5%", 0.1),
        (math.nan, 0.1),
        (math.inf, 0.1),
        (True, 0.1),
    ],
)
def test_recalibrate(p: float | str | None, expected: float) -> None:
    assert recalibrate_reconcile(p) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [("85%", 0.85), (2, 1.0), (0.42, 0.42), ("nope", None), (None, None)],
)
def test_parse_confidence(value: object, expected: float | None) -> None:
    found = parse_confidence(value)
    assert found == (None if expected is None else pytest.approx(expected, abs=1e-12))


def test_confidence_beats_headcount() -> None:
    # A: f(0.95) = 0.8; B: f(0.7) + f(0.65) = 0.3 + 0.3 = 0.6. A wins against a 2-1 majority.
    decision = weighted_vote(["A", "B", "B"], [0.95, 0.7, 0.65])
    assert decision.answer == "A"
    assert decision.rule == "reconcile_weighted"
    assert decision.evidence["scores"] == {"A": 0.8, "B": pytest.approx(0.6, abs=1e-12)}
    assert decision.evidence["raw_confidences"] == [0.95, 0.7, 0.65]
    assert decision.evidence["recalibrated"] == [0.8, 0.3, 0.3]
    assert decision.evidence["abstentions"] == 0
    assert decision.evidence["tie"] is False


def test_headcount_wins_when_confidences_equal() -> None:
    # A: 0.5; B: 0.5 + 0.5 = 1.0 (all p = 0.85).
    assert weighted_vote(["A", "B", "B"], [0.85, "85%", 0.85]).answer == "B"


def test_tie_goes_to_first_seen() -> None:
    # A: f(0.9) = 0.8; B: f(0.95) = 0.8. Tie -> first seen.
    decision = weighted_vote(["A", "B"], [0.9, 0.95])
    assert decision.answer == "A"
    assert decision.evidence["tie"] is True
    assert decision.evidence["tied"] == ["A", "B"]
    assert weighted_vote(["B", "A"], [0.9, 0.95]).answer == "B"


def test_tie_up_to_float_rounding_goes_to_first_seen() -> None:
    # B: f(0.7) = 0.3; A: f(0.5)*3 = 0.1+0.1+0.1 = 0.3 on paper (0.30000000000000004 in floats).
    decision = weighted_vote(["B", "A", "A", "A"], [0.7, 0.5, 0.5, 0.5])
    assert decision.answer == "B"
    assert decision.evidence["tie"] is True
    assert decision.evidence["tied"] == ["B", "A"]


def test_abstentions_excluded_and_counted() -> None:
    # Only agent 2 answers: A = f(0.5) = 0.1.
    decision = weighted_vote([None, "A", None], [1.0, 0.5, 0.9])
    assert decision.answer == "A"
    assert decision.evidence["scores"] == {"A": 0.1}
    assert decision.evidence["recalibrated"] == [None, 0.1, None]
    assert decision.evidence["abstentions"] == 2


def test_all_abstain_is_no_answer() -> None:
    decision = weighted_vote([None, None], [0.9, 0.9])
    assert decision.answer is None
    assert decision.evidence["abstentions"] == 2
    assert decision.evidence["scores"] == {}


def test_missing_confidence_weighs_like_zero() -> None:
    # Official code: a missing confidence becomes 0.0, and f(0.0) = 0.1.
    # A: f(None) = 0.1; B: f(0.5) = 0.1 -> tie, first seen (A).
    decision = weighted_vote(["A", "B"], [None, 0.5])
    assert decision.answer == "A"
    assert decision.evidence["scores"] == {"A": 0.1, "B": 0.1}
    assert decision.evidence["recalibrated"] == [0.1, 0.1]
    # A: f(None) = 0.1; B: f(0.7) = 0.3 -> B.
    assert weighted_vote(["A", "B"], [None, 0.7]).answer == "B"
    # Two holders without confidences outweigh one low-confidence holder: 0.2 > 0.1.
    assert weighted_vote(["A", "B", "B"], [0.2, None, "n/a"]).answer == "B"


def test_without_recalibration_uses_raw_confidence() -> None:
    # Raw: A = 0.95, B = 0.5 + 0.5 = 1.0 -> B. Recalibrated: A = 0.8, B = 0.1 + 0.1 = 0.2 -> A.
    answers = ["A", "B", "B"]
    confidences: list[float | str | None] = [0.95, 0.5, "50%"]
    raw = weighted_vote(answers, confidences, recalibrate=False)
    assert raw.answer == "B"
    assert raw.evidence["scores"] == {"A": 0.95, "B": 1.0}
    assert raw.evidence["recalibrate"] is False
    assert weighted_vote(answers, confidences).answer == "A"


def test_raw_confidences_are_clipped_to_one() -> None:
    # Raw, clipped: A = min(5, 1) = 1.0; B = 0.6 + 0.6 = 1.2 -> B (unclipped A = 5 would win).
    decision = weighted_vote(["A", "B", "B"], [5, 0.6, 0.6], recalibrate=False)
    assert decision.answer == "B"
    assert decision.evidence["scores"] == {"A": 1.0, "B": pytest.approx(1.2, abs=1e-12)}


def test_length_mismatch_rejected() -> None:
    with pytest.raises(ValueError, match="one confidence per answer"):
        weighted_vote(["A", "B"], [0.9])


def test_reconcile_decision_uses_final_round() -> None:
    # Round 0: A (0.95), B (0.7), B (0.7) -> A would win with 0.8 vs 0.6.
    # Final round: A (0.95) -> 0.8; B (0.9) -> 0.8; B (0.85) -> 0.5. B = 1.3 wins.
    trajectory = Trajectory(
        agents=["x", "y", "z"],
        answers=[["A", "A"], ["B", "B"], ["B", "B"]],
        confidences=[[0.95, 0.95], [0.7, 0.9], [0.7, 0.85]],
    )
    decision = reconcile_decision(trajectory)
    assert decision.answer == "B"
    assert decision.evidence["scores"] == {"A": 0.8, "B": pytest.approx(1.3, abs=1e-12)}


def test_reconcile_decision_without_confidences() -> None:
    # No confidences: every holder adds f(0) = 0.1 -> B 0.1, A 0.2 -> A (a headcount).
    trajectory = Trajectory(agents=["x", "y", "z"], answers=[["B"], ["A"], ["A"]])
    decision = reconcile_decision(trajectory)
    assert decision.answer == "A"
    assert decision.evidence["scores"] == {"B": 0.1, "A": pytest.approx(0.2, abs=1e-12)}
    assert decision.evidence["tie"] is False
