"""Free-MAD scores and decision on hand-computed trajectories.

Defaults: W = (w1, w2, w3, w4) = (20, 25, 30, 20), f(k) = 1/(k+1), so f = 1, 1/2, 1/3.
Per round k >= 1: a switch costs the old answer w2*f(k) and gives the new one w3*f(k); a
kept answer gains w4*f(k). With f(1) = 1/2: switch = -12.5 / +15, keep = +10.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from debategraph.policies.freemad import (
    DEFAULT_WEIGHTS,
    freemad_decision,
    freemad_scores,
    inverse_round,
)
from debategraph.policies.types import Trajectory
from debategraph.policies.voting import majority_vote


def traj(*rows: Sequence[str | None]) -> Trajectory:
    """One row per agent, one column per round (round 0 first)."""
    return Trajectory(agents=[f"a{i}" for i in range(len(rows))], answers=[list(r) for r in rows])


def rounds_to_rows(*rounds: list[str | None]) -> list[list[str | None]]:
    """Transpose per-round answer lists (as the spec writes them) into per-agent rows."""
    return [list(col) for col in zip(*rounds, strict=True)]


def test_defaults() -> None:
    assert DEFAULT_WEIGHTS == (20.0, 25.0, 30.0, 20.0)
    assert inverse_round(0) == 1.0
    assert inverse_round(1) == 0.5
    assert inverse_round(3) == 0.25


def test_spec_example_1_switch_to_b() -> None:
    # algorithms.md §6.3: initial [A,A,B,C], round 1 [A,B,B,B].
    # k=0: A = 20+20 = 40, B = 20, C = 20.
    # k=1 (f=1/2): agent1 keeps A: A += 10 -> 50; agent2 A->B: A -= 12.5 -> 37.5, B += 15 -> 35;
    # agent3 keeps B: B += 10 -> 45; agent4 C->B: C -= 12.5 -> 7.5, B += 15 -> 60.
    rows = rounds_to_rows(["A", "A", "B", "C"], ["A", "B", "B", "B"])
    assert freemad_scores(rows) == {"A": 37.5, "B": 60.0, "C": 7.5}
    decision = freemad_decision(traj(*rows))
    assert decision.answer == "B"
    assert decision.rule == "freemad_score"
    assert decision.evidence["scores"] == {"A": 37.5, "B": 60.0, "C": 7.5}
    assert decision.evidence["tie"] is False
    assert decision.evidence["tied"] == ["B"]
    assert decision.evidence["weights"] == [20.0, 25.0, 30.0, 20.0]
    assert decision.evidence["abstentions"] == 0
    assert decision.evidence["debate_rounds"] == 1


def test_spec_example_2_trajectory_beats_final_round() -> None:
    # algorithms.md §6.3: initial [A,A,B], round 1 [B,A,C].
    # k=0: A = 40, B = 20.
    # k=1: agent1 A->B: A = 40-12.5 = 27.5, B = 20+15 = 35; agent2 keeps A: A = 37.5;
    # agent3 B->C: B = 35-12.5 = 22.5, C = 15.
    # Final-round majority would be a 3-way tie (B, A, C); Free-MAD picks A.
    rows = rounds_to_rows(["A", "A", "B"], ["B", "A", "C"])
    assert freemad_scores(rows) == {"A": 37.5, "B": 22.5, "C": 15.0}
    decision = freemad_decision(traj(*rows))
    assert decision.answer == "A"
    assert decision.evidence["tie"] is False


def test_r0_is_majority_with_random_tie_break() -> None:
    # No debate rounds: every initial vote is worth w1*f(0) = 20.
    rows = [["B"], ["A"], ["B"], ["C"], ["A"]]
    assert freemad_scores(rows) == {"B": 40.0, "A": 40.0, "C": 20.0}
    seen = set()
    for seed in range(20):
        decision = freemad_decision(traj(*rows), seed=seed)
        # Tied {A, B}: uniform over the tied answers sorted as strings.
        expected = random.Random(seed).choice(["A", "B"])
        assert decision.answer == expected
        assert decision.evidence["tie"] is True
        assert decision.evidence["tied"] == ["A", "B"]
        majority = majority_vote(["B", "A", "B", "C", "A"], tie_policy="random", seed=seed)
        assert decision.answer == majority.answer
        seen.add(decision.answer)
    assert seen == {"A", "B"}


def test_r0_clear_majority() -> None:
    # A = 3*20 = 60 > B = 20.
    assert freemad_decision(traj(["A"], ["B"], ["A"], ["A"])).answer == "A"


def test_r2_with_decay_one_third() -> None:
    # initial [A,A,B,C]; round 1 [A,A,B,B]; round 2 [A,B,B,B]. f = 1, 1/2, 1/3.
    # k=0: A = 40, B = 20, C = 20.
    # k=1: agents 1,2 keep A: A = 40+10+10 = 60; agent3 keeps B: B = 30;
    #      agent4 C->B: C = 20-12.5 = 7.5, B = 30+15 = 45.
    # k=2: agent1 keeps A: A = 60+20/3 = 200/3; agent2 A->B: A = 200/3-25/3 = 175/3,
    #      B = 45+10 = 55; agents 3,4 keep B: B = 55+40/3 = 205/3.
    rows = rounds_to_rows(["A", "A", "B", "C"], ["A", "A", "B", "B"], ["A", "B", "B", "B"])
    scores = freemad_scores(rows)
    assert list(scores) == ["A", "B", "C"]
    assert scores["A"] == pytest.approx(175 / 3, abs=1e-12)
    assert scores["B"] == pytest.approx(205 / 3, abs=1e-12)
    assert scores["C"] == pytest.approx(7.5, abs=1e-12)
    decision = freemad_decision(traj(*rows))
    assert decision.answer == "B"
    assert decision.evidence["debate_rounds"] == 2


def test_stubborn_minority_wins_on_trajectory() -> None:
    # initial [A,A,A,B]; round 1 [A,A,B,B]. Final round is a 2-2 tie; the trajectory is not.
    # k=0: A = 60, B = 20. k=1: agents 1,2 keep A: A = 80; agent3 A->B: A = 67.5, B = 35;
    # agent4 keeps B: B = 45.
    rows = rounds_to_rows(["A", "A", "A", "B"], ["A", "A", "B", "B"])
    assert freemad_scores(rows) == {"A": 67.5, "B": 45.0}
    assert freemad_decision(traj(*rows)).answer == "A"


def test_abstention_adopted_then_abandoned_is_tracked() -> None:
    # initial [A,None,None]; round 1 [A,A,None].
    # k=0: A = 20, None = 40.
    # k=1: agent1 keeps A: A = 30; agent2 None->A: None = 40-12.5 = 27.5, A = 30+15 = 45;
    # agent3 keeps None: None = 37.5.
    rows = rounds_to_rows(["A", None, None], ["A", "A", None])
    assert freemad_scores(rows) == {"A": 45.0, None: 37.5}
    decision = freemad_decision(traj(*rows))
    assert decision.answer == "A"
    assert decision.evidence["scores"] == {"A": 45.0, "<abstain>": 37.5}
    assert decision.evidence["abstentions"] == 1


def test_abstention_never_wins_even_with_top_score() -> None:
    # initial [None,None,A]; round 1 [None,None,A]: None = 40+10+10 = 60, A = 20+10 = 30.
    rows = rounds_to_rows([None, None, "A"], [None, None, "A"])
    assert freemad_scores(rows) == {None: 60.0, "A": 30.0}
    decision = freemad_decision(traj(*rows))
    assert decision.answer == "A"
    assert decision.evidence["tie"] is False
    assert decision.evidence["abstentions"] == 2


def test_adopting_an_abstention_penalises_the_left_answer() -> None:
    # initial [A,B,B]; round 1 [A,B,None].
    # k=0: A = 20, B = 40. k=1: agent1 keeps A: A = 30; agent2 keeps B: B = 50;
    # agent3 B->None: B = 50-12.5 = 37.5, None = 15.
    rows = rounds_to_rows(["A", "B", "B"], ["A", "B", None])
    assert freemad_scores(rows) == {"A": 30.0, "B": 37.5, None: 15.0}
    decision = freemad_decision(traj(*rows))
    assert decision.answer == "B"
    assert decision.evidence["abstentions"] == 1


def test_abandoning_an_abstention() -> None:
    # initial [A,B,None]; round 1 [A,B,B]:
    # A = 20+10 = 30; B = 20+10+15 = 45; None = 20-12.5 = 7.5.
    rows = rounds_to_rows(["A", "B", None], ["A", "B", "B"])
    assert freemad_scores(rows) == {"A": 30.0, "B": 45.0, None: 7.5}
    assert freemad_decision(traj(*rows)).answer == "B"


def test_all_abstain_is_no_answer() -> None:
    # None = 20+20 (k=0) + 10+10 (k=1, kept) = 60.
    decision = freemad_decision(traj([None, None], [None, None]))
    assert decision.answer is None
    assert decision.rule == "freemad_score"
    assert decision.evidence["scores"] == {"<abstain>": 60.0}
    assert decision.evidence["tie"] is False
    assert decision.evidence["tied"] == []
    assert decision.evidence["abstentions"] == 2
    assert "reason" in decision.evidence


def test_empty_trajectory_is_no_answer() -> None:
    assert freemad_scores([]) == {}
    decision = freemad_decision(Trajectory(agents=[], answers=[]))
    assert decision.answer is None
    assert decision.evidence["scores"] == {}


def test_custom_weights_flip_example_2() -> None:
    # W = (20, 0, 100, 20) on initial [A,A,B], round 1 [B,A,C], f(1) = 1/2:
    # k=0: A = 40, B = 20. k=1: agent1 A->B: A -= 0, B = 20+50 = 70; agent2 keeps A: A = 50;
    # agent3 B->C: B -= 0, C = 50. B = 70 wins.
    rows = rounds_to_rows(["A", "A", "B"], ["B", "A", "C"])
    assert freemad_scores(rows, weights=(20, 0, 100, 20)) == {"A": 50.0, "B": 70.0, "C": 50.0}
    decision = freemad_decision(traj(*rows), weights=[20, 0, 100, 20])
    assert decision.answer == "B"
    assert decision.evidence["weights"] == [20.0, 0.0, 100.0, 20.0]


def test_custom_decay_flips_example_2() -> None:
    # f(k) = k+1 (changes amplified): f(0) = 1, f(1) = 2, on initial [A,A,B], round 1 [B,A,C]:
    # k=0: A = 40, B = 20. k=1: agent1 A->B: A = 40-50 = -10, B = 20+60 = 80;
    # agent2 keeps A: A = -10+40 = 30; agent3 B->C: B = 80-50 = 30, C = 60. C wins.
    rows = rounds_to_rows(["A", "A", "B"], ["B", "A", "C"])

    def amplify(k: int) -> float:
        return float(k + 1)

    assert freemad_scores(rows, decay=amplify) == {"A": 30.0, "B": 30.0, "C": 60.0}
    assert freemad_decision(traj(*rows), decay=amplify).answer == "C"


def test_no_decay_allows_negative_scores() -> None:
    # f = 1 always, initial [A,A,B,C], round 1 [A,B,B,B]:
    # k=0: A = 40, B = 20, C = 20. k=1: agent1 keeps A: A = 60; agent2 A->B: A = 35, B = 50;
    # agent3 keeps B: B = 70; agent4 C->B: C = 20-25 = -5, B = 100.
    rows = rounds_to_rows(["A", "A", "B", "C"], ["A", "B", "B", "B"])
    assert freemad_scores(rows, decay=lambda k: 1.0) == {"A": 35.0, "B": 100.0, "C": -5.0}


def test_tie_up_to_float_rounding_is_a_tie() -> None:
    # W = (0.1, 0, 0.6, 0). initial [A,A,A,C]; round 1 [A,A,A,B].
    # A = 3*0.1 = 0.3 exactly on paper (0.30000000000000004 in floats);
    # B = 0.6*f(1) = 0.6*1/2 = 0.3; C = 0.1 - 0 = 0.1. A and B tie.
    rows = rounds_to_rows(["A", "A", "A", "C"], ["A", "A", "A", "B"])
    weights = (0.1, 0.0, 0.6, 0.0)
    seeds_for_b = [s for s in range(10) if random.Random(s).choice(["A", "B"]) == "B"]
    assert seeds_for_b, "need a seed whose tie-break picks B"
    for seed in range(10):
        decision = freemad_decision(traj(*rows), weights=weights, seed=seed)
        assert decision.evidence["tie"] is True
        assert decision.evidence["tied"] == ["A", "B"]
        assert decision.answer == ("B" if seed in seeds_for_b else "A")


def test_scores_are_json_safe_and_first_seen_ordered() -> None:
    rows = rounds_to_rows([None, "B", "A"], ["B", "B", "A"])
    decision = freemad_decision(traj(*rows))
    assert list(decision.evidence["scores"]) == ["<abstain>", "B", "A"]
    assert all(isinstance(k, str) for k in decision.evidence["scores"])


@pytest.mark.parametrize(
    "weights",
    [(20, 25, 30), (20, 25, 30, 20, 1), ("20", 25, 30, 20), (20, math.nan, 30, 20), 5, "abcd"],
)
def test_invalid_weights(weights: object) -> None:
    with pytest.raises(ValueError, match="weights"):
        freemad_scores([["A", "B"]], weights=weights)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="weights"):
        freemad_decision(traj(["A", "B"]), weights=weights)  # type: ignore[arg-type]


def test_ragged_rows_rejected() -> None:
    with pytest.raises(ValueError, match="ragged"):
        freemad_scores([["A", "B"], ["A"]])
    with pytest.raises(ValueError, match="ragged"):
        freemad_decision(traj(["A", "B"], ["A"]))


def test_string_row_rejected() -> None:
    with pytest.raises(ValueError, match="string"):
        freemad_scores(["AB", "AB"])


def test_bad_decay_rejected() -> None:
    with pytest.raises(ValueError, match="decay"):
        freemad_scores([["A", "B"]], decay=lambda k: math.inf)


def test_reserved_abstain_key_rejected() -> None:
    with pytest.raises(ValueError, match="reserved"):
        freemad_decision(traj(["<abstain>"], ["A"]))
