"""Ties between float scores: equal up to rounding, in the scores' order."""

from __future__ import annotations

from debategraph.policies.ties import best_scored


def test_scores_equal_up_to_rounding_tie_in_the_order_given():
    assert best_scored({"x": 0.3, "y": 0.1 + 0.2, "z": 0.2}) == ["x", "y"]
    assert best_scored({"b": 1.0 + 1e-12, "a": 1.0, "c": 0.5}) == ["b", "a"]


def test_a_clear_winner_stands_alone():
    assert best_scored({"a": 1.0, "b": 1.1}) == ["b"]
    assert best_scored({"p": 2.0}) == ["p"]
    assert best_scored({"a": 1.0, "b": 1.0 + 1e-6}) == ["b"]
