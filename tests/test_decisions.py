"""Decision rules by name, over hand-computed trajectories."""

from __future__ import annotations

import random

import pytest

from debategraph.methods.rules import PluginError, apply_rule, list_rules, rule_options
from debategraph.policies import decisions
from debategraph.policies.decisions import credibility_vote, reconcile_rule
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
    assert rule_options("credibility") == {"weights", "models", "no_answer_if_all_differ"}


def test_unknown_rule_lists_valid_names() -> None:
    with pytest.raises(PluginError, match="unknown decision rule") as info:
        apply_rule("borda", EXAMPLE_2)
    for name in ("credibility", "freemad", "majority", "reconcile"):
        assert name in str(info.value)


def test_majority_final_round_tie_policies() -> None:
    # Final answers [B, A, C]: 1 vote each.
    first = apply_rule("majority", EXAMPLE_2)
    assert first.rule == "majority"
    assert first.answer == "B"  # first seen
    # Confidence: B 0.95, A 0.7, C 0.99 -> C.
    assert apply_rule("majority", EXAMPLE_2, tie_policy="confidence").answer == "C"
    for seed in range(5):
        expected = random.Random(seed).choice(["A", "B", "C"])
        assert apply_rule("majority", EXAMPLE_2, tie_policy="random", seed=seed).answer == expected
    assert apply_rule("majority", EXAMPLE_2, no_answer_if_all_differ=True).answer is None


def test_majority_rejects_unknown_tie_policy() -> None:
    with pytest.raises(ValueError, match="tie_policy"):
        apply_rule("majority", EXAMPLE_2, tie_policy="loudest")  # type: ignore[arg-type]


def test_freemad_by_name() -> None:
    decision = apply_rule("freemad", EXAMPLE_2)
    assert decision.rule == "freemad_score"
    assert decision.answer == "A"
    assert decision.evidence["scores"] == {"A": 37.5, "B": 22.5, "C": 15.0}


def test_freemad_weights_and_decay_by_name() -> None:
    # W = (20, 0, 100, 20): A = 40+10 = 50, B = 20+50 = 70, C = 50 -> B.
    assert apply_rule("freemad", EXAMPLE_2, weights=[20, 0, 100, 20]).answer == "B"
    # f(k) = k+1: A = 40-50+40 = 30, B = 20+60-50 = 30, C = 60 -> C.
    assert apply_rule("freemad", EXAMPLE_2, decay=lambda k: float(k + 1)).answer == "C"


def test_freemad_seed_breaks_ties() -> None:
    # One round only, [A, B]: A = B = 20 -> random over [A, B].
    trajectory = Trajectory(agents=["x", "y"], answers=[["A"], ["B"]])
    for seed in range(5):
        expected = random.Random(seed).choice(["A", "B"])
        assert apply_rule("freemad", trajectory, seed=seed).answer == expected


def test_reconcile_by_name() -> None:
    # Final: B f(0.95) = 0.8; A f(0.7) = 0.3; C f(0.99) = 0.8. B and C tie -> first seen B.
    decision = apply_rule("reconcile", EXAMPLE_2)
    assert decision.rule == "reconcile_weighted"
    assert decision.answer == "B"
    assert decision.evidence["tied"] == ["B", "C"]
    # Raw confidences: B 0.95, A 0.7, C 0.99 -> C.
    assert apply_rule("reconcile", EXAMPLE_2, recalibrate=False).answer == "C"


def test_credibility_weighted_vote() -> None:
    trajectory = Trajectory(agents=["x", "y", "z"], answers=[["A"], ["B"], ["B"]])
    # A = 0.9, B = 0.5 + 0.5 = 1.0 -> B.
    decision = apply_rule("credibility", trajectory, weights=[0.9, 0.5, 0.5])
    assert decision.rule == "weighted_vote"
    assert decision.answer == "B"
    assert decision.evidence["scores"] == {"A": 0.9, "B": 1.0}
    # A = 1.2 > B = 1.0 -> A.
    assert apply_rule("credibility", trajectory, weights=[1.2, 0.5, 0.5]).answer == "A"
    # A = 1.0 = B -> first seen A.
    tie = apply_rule("credibility", trajectory, weights=[1.0, 0.5, 0.5])
    assert tie.answer == "A"
    assert tie.evidence["tie"] is True


def test_credibility_abstentions_and_all_differ() -> None:
    # [A, None, C]: A = 0.4, C = 0.6 -> C; one abstention.
    trajectory = Trajectory(agents=["x", "y", "z"], answers=[["A"], [None], ["C"]])
    decision = apply_rule("credibility", trajectory, weights=[0.4, 0.9, 0.6])
    assert decision.answer == "C"
    assert decision.evidence["abstentions"] == 1
    assert (
        apply_rule(
            "credibility", trajectory, weights=[0.4, 0.9, 0.6], no_answer_if_all_differ=True
        ).answer
        is None
    )
    assert credibility_vote([None, None], [1.0, 1.0]).answer is None


def test_credibility_needs_valid_weights() -> None:
    trajectory = Trajectory(agents=["x", "y"], answers=[["A"], ["B"]])
    with pytest.raises(ValueError, match="needs weights"):
        apply_rule("credibility", trajectory)
    with pytest.raises(ValueError, match="one weight per agent"):
        apply_rule("credibility", trajectory, weights=[1.0])
    with pytest.raises(ValueError, match="weights"):
        apply_rule("credibility", trajectory, weights=[1.0, -0.5])


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
        apply_rule(rule, EXAMPLE_2, **options)  # type: ignore[arg-type]


def test_defaults_and_seed_are_accepted_by_every_rule() -> None:
    # Engines pass the common options with their defaults and the run seed to any rule.
    for rule in ("majority", "freemad", "reconcile"):
        apply_rule(rule, EXAMPLE_2, tie_policy="first", seed=11, no_answer_if_all_differ=False)
    apply_rule("credibility", EXAMPLE_2, seed=11, weights=[1.0, 1.0, 1.0])


def test_registry_functions_reject_unknown_keywords() -> None:
    with pytest.raises(TypeError):
        reconcile_rule(EXAMPLE_2, tie_policy="random")  # type: ignore[call-arg]


def test_a_rule_function_applies_like_its_name() -> None:
    assert apply_rule(reconcile_rule, EXAMPLE_2) == apply_rule("reconcile", EXAMPLE_2)
    with pytest.raises(ValueError, match="'reconcile_rule' does not take 'tie_policy'"):
        apply_rule(reconcile_rule, EXAMPLE_2, tie_policy="random")


def test_credibility_weighs_each_agent_by_its_model_label() -> None:
    # Chinchilla L(N, M) = 406.4/N^0.34 + 410.7/M^0.28 + 1.69, credibility 1/L (Eq. 3-4).
    def cred(n: float, m: float) -> float:
        return 1.0 / (406.4 / n**0.34 + 410.7 / m**0.28 + 1.69)

    trajectory = Trajectory(agents=["x", "y"], answers=[["A"], ["B"]])
    decision = apply_rule("credibility", trajectory, models=["gpt3-6b", "gpt3-175b"])
    assert decision.answer == "B"
    assert decision.evidence["weights"] == pytest.approx([cred(6.7e9, 300e9), cred(175e9, 300e9)])
    given = apply_rule("credibility", trajectory, weights=[2.0, 1.0], models=["gpt3-6b"] * 2)
    assert given.answer == "A"  # given weights win over the models' credibility


def test_the_pure_apply_rule_takes_a_function_not_a_name() -> None:
    assert decisions.apply_rule(reconcile_rule, EXAMPLE_2) == apply_rule("reconcile", EXAMPLE_2)
    with pytest.raises(ValueError, match="decision rule 'mine' does not take 'weights'"):
        decisions.apply_rule(reconcile_rule, EXAMPLE_2, rule_name="mine", weights=[1.0])
