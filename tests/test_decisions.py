"""Decision rules by name, over hand-computed trajectories."""

from __future__ import annotations

import random

import pytest

from debategraph.methods import PluginError, list_rules
from debategraph.policies.decisions import (
    apply_rule,
    credibility_vote,
    decide,
    reconcile_rule,
    rule_options,
)
from debategraph.policies.types import Trajectory

# algorithms.md §6.3 example 2: initial [A,A,B], round 1 [B,A,C].
# Free-MAD: A = 37.5, B = 22.5, C = 15 -> A. Final-round majority: a 3-way tie.
EXAMPLE_2 = Trajectory(
    agents=["x", "y", "z"],
    answers=[["A", "B"], ["A", "A"], ["B", "C"]],
    confidences=[[0.9, 0.95], [0.9, 0.7], [0.5, 0.99]],
)


def test_registry_names() -> None:
    assert {"majority", "freemad", "reconcile", "credibility"} <= set(list_rules())
    assert rule_options("majority") == {"tie_policy", "seed", "no_answer_if_all_differ"}
    assert rule_options("freemad") == {"weights", "decay", "seed"}
    assert rule_options("reconcile") == {"recalibrate"}
    assert rule_options("credibility") == {"weights", "no_answer_if_all_differ"}


def test_unknown_rule_lists_valid_names() -> None:
    with pytest.raises(PluginError, match="unknown decision rule") as info:
        decide("borda", EXAMPLE_2)
    for name in ("credibility", "freemad", "majority", "reconcile"):
        assert name in str(info.value)


def test_majority_final_round_tie_policies() -> None:
    # Final answers [B, A, C]: 1 vote each.
    first = decide("majority", EXAMPLE_2)
    assert first.rule == "majority"
    assert first.answer == "B"  # first seen
    # Confidence: B 0.95, A 0.7, C 0.99 -> C.
    assert decide("majority", EXAMPLE_2, tie_policy="confidence").answer == "C"
    for seed in range(5):
        expected = random.Random(seed).choice(["A", "B", "C"])
        assert decide("majority", EXAMPLE_2, tie_policy="random", seed=seed).answer == expected
    assert decide("majority", EXAMPLE_2, no_answer_if_all_differ=True).answer is None


def test_majority_rejects_unknown_tie_policy() -> None:
    with pytest.raises(ValueError, match="tie_policy"):
        decide("majority", EXAMPLE_2, tie_policy="loudest")  # type: ignore[arg-type]


def test_freemad_by_name() -> None:
    decision = decide("freemad", EXAMPLE_2)
    assert decision.rule == "freemad_score"
    assert decision.answer == "A"
    assert decision.evidence["scores"] == {"A": 37.5, "B": 22.5, "C": 15.0}


def test_freemad_weights_and_decay_by_name() -> None:
    # W = (20, 0, 100, 20): A = 40+10 = 50, B = 20+50 = 70, C = 50 -> B.
    assert decide("freemad", EXAMPLE_2, weights=[20, 0, 100, 20]).answer == "B"
    # f(k) = k+1: A = 40-50+40 = 30, B = 20+60-50 = 30, C = 60 -> C.
    assert decide("freemad", EXAMPLE_2, decay=lambda k: float(k + 1)).answer == "C"


def test_freemad_seed_breaks_ties() -> None:
    # One round only, [A, B]: A = B = 20 -> random over [A, B].
    trajectory = Trajectory(agents=["x", "y"], answers=[["A"], ["B"]])
    for seed in range(5):
        expected = random.Random(seed).choice(["A", "B"])
        assert decide("freemad", trajectory, seed=seed).answer == expected


def test_reconcile_by_name() -> None:
    # Final: B f(0.95) = 0.8; A f(0.7) = 0.3; C f(0.99) = 0.8. B and C tie -> first seen B.
    decision = decide("reconcile", EXAMPLE_2)
    assert decision.rule == "reconcile_weighted"
    assert decision.answer == "B"
    assert decision.evidence["tied"] == ["B", "C"]
    # Raw confidences: B 0.95, A 0.7, C 0.99 -> C.
    assert decide("reconcile", EXAMPLE_2, recalibrate=False).answer == "C"


def test_credibility_weighted_vote() -> None:
    trajectory = Trajectory(agents=["x", "y", "z"], answers=[["A"], ["B"], ["B"]])
    # A = 0.9, B = 0.5 + 0.5 = 1.0 -> B.
    decision = decide("credibility", trajectory, weights=[0.9, 0.5, 0.5])
    assert decision.rule == "weighted_vote"
    assert decision.answer == "B"
    assert decision.evidence["scores"] == {"A": 0.9, "B": 1.0}
    # A = 1.2 > B = 1.0 -> A.
    assert decide("credibility", trajectory, weights=[1.2, 0.5, 0.5]).answer == "A"
    # A = 1.0 = B -> first seen A.
    tie = decide("credibility", trajectory, weights=[1.0, 0.5, 0.5])
    assert tie.answer == "A"
    assert tie.evidence["tie"] is True


def test_credibility_abstentions_and_all_differ() -> None:
    # [A, None, C]: A = 0.4, C = 0.6 -> C; one abstention.
    trajectory = Trajectory(agents=["x", "y", "z"], answers=[["A"], [None], ["C"]])
    decision = decide("credibility", trajectory, weights=[0.4, 0.9, 0.6])
    assert decision.answer == "C"
    assert decision.evidence["abstentions"] == 1
    assert (
        decide(
            "credibility", trajectory, weights=[0.4, 0.9, 0.6], no_answer_if_all_differ=True
        ).answer
        is None
    )
    assert credibility_vote([None, None], [1.0, 1.0]).answer is None


def test_credibility_needs_valid_weights() -> None:
    trajectory = Trajectory(agents=["x", "y"], answers=[["A"], ["B"]])
    with pytest.raises(ValueError, match="needs weights"):
        decide("credibility", trajectory)
    with pytest.raises(ValueError, match="one weight per agent"):
        decide("credibility", trajectory, weights=[1.0])
    with pytest.raises(ValueError, match="weights"):
        decide("credibility", trajectory, weights=[1.0, -0.5])


@pytest.mark.parametrize(
    ("rule", "options"),
    [
        ("freemad", {"tie_policy": "random"}),
        ("freemad", {"no_answer_if_all_differ": True}),
        ("reconcile", {"tie_policy": "confidence"}),
        ("reconcile", {"weights": [1.0, 1.0, 1.0]}),
        ("majority", {"weights": [1.0, 1.0, 1.0]}),
        ("majority", {"decay": lambda k: 1.0}),
        ("credibility", {"weights": [1.0, 1.0, 1.0], "recalibrate": False}),
        ("credibility", {"weights": [1.0, 1.0, 1.0], "tie_policy": "random"}),
    ],
)
def test_options_a_rule_does_not_take_are_rejected(rule: str, options: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="does not take"):
        decide(rule, EXAMPLE_2, **options)  # type: ignore[arg-type]


def test_defaults_and_seed_are_accepted_by_every_rule() -> None:
    # Engines pass the common options with their defaults and the run seed to any rule.
    for rule in ("majority", "freemad", "reconcile"):
        decide(rule, EXAMPLE_2, tie_policy="first", seed=11, no_answer_if_all_differ=False)
    decide("credibility", EXAMPLE_2, seed=11, weights=[1.0, 1.0, 1.0])


def test_registry_functions_reject_unknown_keywords() -> None:
    with pytest.raises(TypeError):
        reconcile_rule(EXAMPLE_2, tie_policy="random")  # type: ignore[call-arg]


def test_a_rule_function_applies_like_its_name() -> None:
    assert apply_rule(reconcile_rule, EXAMPLE_2) == decide("reconcile", EXAMPLE_2)
    with pytest.raises(ValueError, match="'reconcile_rule' does not take 'tie_policy'"):
        apply_rule(reconcile_rule, EXAMPLE_2, tie_policy="random")
