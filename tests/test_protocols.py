"""Decision protocols on hand-made trajectories and ballots: every count worked out by hand."""

import pytest

from debategraph.policies.ballots import (
    approval_count,
    borda_count,
    cumulative_count,
    instant_runoff,
    parse_ballot,
    strip_ballot,
)
from debategraph.policies.decisions import majority_rule
from debategraph.policies.protocols import (
    approval_rule,
    cumulative_rule,
    judge_rule,
    ranked_rule,
    supermajority_rule,
    unanimity_rule,
)
from debategraph.policies.rule_needs import RuleNeeds, needs, rule_needs
from debategraph.testing import make_trajectory


def finals(*answers):
    """A one-round trajectory whose final answers are ``answers`` (agent order)."""
    return make_trajectory([[a] for a in answers])


# --- supermajority and unanimity ------------------------------------------------------------


def test_supermajority_counts_abstainers_in_the_whole():
    path = finals("4", "4", "4", "5", None)  # 4 holds 3 of 5 agents: 0.6
    decision = supermajority_rule(path)
    assert decision.answer is None and decision.evidence["reason"] == "threshold not reached"
    assert decision.evidence["share"] == pytest.approx(0.6)
    assert decision.evidence["votes"] == {"4": 3, "5": 1} and decision.evidence["abstentions"] == 1
    assert supermajority_rule(path, threshold=0.6).answer == "4"


def test_supermajority_two_of_three_reaches_the_default_two_thirds():
    assert supermajority_rule(finals("4", "5", "4")).answer == "4"
    assert supermajority_rule(finals("4", "5", "4"), threshold=0.7).answer is None
    assert supermajority_rule(finals(None, None)).evidence["reason"] == "no answers"


@pytest.mark.parametrize("bad", [0, -0.5, 1.5, True, "0.7", float("nan")])
def test_supermajority_threshold_must_be_in_zero_one(bad):
    with pytest.raises(ValueError, match=r"threshold must be a number in \(0, 1\]"):
        supermajority_rule(finals("4"), threshold=bad)


def test_supermajority_at_one_half_means_at_least_half_as_mallm_counts():
    # MALLM's majority_consensus: share >= 0.5, so 2 of 4 reaches it and 1 of 4 does not.
    decision = supermajority_rule(finals("4", "4", "5", "6"), threshold=0.5)
    assert (decision.answer, decision.evidence["share"]) == ("4", 0.5)
    assert "tied" not in decision.evidence
    assert supermajority_rule(finals("4", "5", "6", None), threshold=0.5).answer is None
    # Two answers can both reach one half: the first seen of equals wins, the other is named.
    split = supermajority_rule(finals("5", "4", "4", "5"), threshold=0.5)
    assert (split.answer, split.evidence["tied"]) == ("5", ["4"])
    # A low threshold: one agent of three is enough, abstainers still count in the whole.
    assert supermajority_rule(finals("7", None, None), threshold=0.3).answer == "7"
    assert supermajority_rule(finals("7", None, None, None), threshold=0.3).answer is None


def test_unanimity_or_no_answer():
    assert unanimity_rule(finals("7", "7", "7")).answer == "7"
    differ = unanimity_rule(finals("7", "8", "7"))
    assert differ.answer is None and differ.evidence["reason"] == "the agents differ"
    silent = unanimity_rule(finals("7", None, "7"))
    assert silent.answer is None and silent.evidence == {
        "votes": {"7": 2},
        "abstentions": 1,
        "reason": "an agent abstained",
    }


def test_unanimity_reads_only_the_final_round():
    path = make_trajectory([["1", "7"], ["2", "7"]])  # they differed in round 0
    assert unanimity_rule(path).answer == "7"


# --- reading ballots --------------------------------------------------------------------------

CANDIDATES = ["4", "5", "6"]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("I get 4.\nBallot: C1, C3", "approval", ["4", "6"]),
        ("Ballot: C1, C1, C2", "approval", ["4", "5"]),
        ("**Ballot:** C2", "approval", ["5"]),
        ("Ballot: C2 > C1", "ranked", ["5", "4"]),
        ("Ballot: (C3) > (C2) > (C1)", "ranked", ["6", "5", "4"]),
        ("Ballot: C1=7, C2=3", "cumulative", {"4": 7, "5": 3}),
        ("Ballot: C1=4, C3=4", "cumulative", {"4": 4, "6": 4}),  # under the budget counts
        ("Ballot: C1\nno, wait.\nBallot: C3", "approval", ["6"]),  # the last line counts
    ],
)
def test_a_readable_ballot(text, kind, expected):
    assert parse_ballot(text, kind, CANDIDATES) == expected


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("I get 4.", "approval"),  # no ballot line
        ("Ballot: C4", "approval"),  # no such candidate
        ("Ballot: 4, 5", "approval"),  # answers, not labels
        ("Ballot:", "ranked"),
        ("Ballot: C2 > C2", "ranked"),  # a repeated rank
        ("Ballot: C1=11", "cumulative"),  # over the budget of 10
        ("Ballot: C1=2.5, C2=7.5", "cumulative"),  # not whole numbers
        ("Ballot: C1=-1, C2=11", "cumulative"),
        ("Ballot: C1=0", "cumulative"),  # nothing given
        ("Ballot: C1 C2", "cumulative"),
    ],
)
def test_an_unreadable_ballot_is_spoiled(text, kind):
    assert parse_ballot(text, kind, CANDIDATES) is None


def test_c0_is_the_answer_of_the_reply_itself():
    assert parse_ballot("Ballot: C0 > C2", "ranked", CANDIDATES, own="9") == ["9", "5"]
    assert parse_ballot("Ballot: C0=6, C1=4", "cumulative", CANDIDATES, own="9") == {
        "9": 6,
        "4": 4,
    }
    # C0 and C1 name one answer: it counts once, at its first place.
    assert parse_ballot("Ballot: C0 > C1 > C2", "ranked", CANDIDATES, own="4") == ["4", "5"]
    assert parse_ballot("Ballot: C0, C3", "approval", CANDIDATES, own=None) is None


def test_the_budget_and_the_kind_are_checked():
    assert parse_ballot("Ballot: C1=20", "cumulative", CANDIDATES, points=20) == {"4": 20}
    with pytest.raises(ValueError, match="unknown ballot kind 'borda'"):
        parse_ballot("Ballot: C1", "borda", CANDIDATES)


def test_strip_ballot_leaves_the_answer_text():
    assert strip_ballot("The answer is 4.\nBallot: C2 > C3\n").strip() == "The answer is 4."


# --- the counts -------------------------------------------------------------------------------


def test_approval_ties_go_to_the_earliest_answer_in_order():
    ballots = [["4", "5"], ["5"], ["6", "4"], None]  # 4: 2, 5: 2, 6: 1
    decision = approval_count(ballots, ["5", "4", "6"])
    assert decision.answer == "5"
    assert decision.evidence == {
        "ballots": 4,
        "abstentions": 1,
        "approvals": {"4": 2, "5": 2, "6": 1},
        "tie": True,
        "tied": ["5", "4"],
    }
    assert approval_count(ballots, ["4", "5", "6"]).answer == "4"
    assert approval_count([None, []], []).answer is None


def test_cumulative_sums_points_and_spoils_an_overspent_ballot():
    ballots = [{"4": 7, "5": 3}, {"5": 10}, {"6": 6, "4": 4}, {"4": 11}]
    decision = cumulative_count(ballots, ["4", "5", "6"], points=10)
    assert decision.answer == "5"  # 4: 7 + 4 = 11, 5: 3 + 10 = 13, 6: 6; the 11 is spoiled
    assert decision.evidence["points"] == {"4": 11, "5": 13, "6": 6}
    assert decision.evidence["abstentions"] == 1 and decision.evidence["budget"] == 10


# Five voters over 4, 5, 6 (tie order 4, 5, 6).
RANKINGS = [["4", "5", "6"], ["4", "6"], ["5", "6", "4"], ["6", "5"], ["6", "5", "4"]]


def test_borda_gives_n_minus_k_points_and_nothing_to_unranked():
    decision = borda_count(RANKINGS, ["4", "5", "6"])
    # n = 3: 4 gets 2 + 2 + 0 + 0 + 0, 5 gets 1 + 0 + 2 + 1 + 1, 6 gets 0 + 1 + 1 + 2 + 2.
    assert decision.evidence["scores"] == {"4": 4, "5": 5, "6": 6}
    assert decision.answer == "6" and decision.evidence["count"] == "borda"


def test_instant_runoff_eliminates_the_fewest_and_transfers():
    decision = instant_runoff(RANKINGS, ["4", "5", "6"])
    assert decision.answer == "6"
    assert decision.evidence["rounds"] == [
        {"counts": {"4": 2, "5": 1, "6": 2}, "eliminated": "5"},
        {"counts": {"4": 2, "6": 3}},  # the 5-first ballot passes to 6
    ]


def test_instant_runoff_elimination_ties_remove_the_latest_in_order():
    ballots = [["4"], ["4"], ["5"], ["6", "5"], ["7"]]
    decision = instant_runoff(ballots, ["4", "5", "6", "7"])
    rounds = decision.evidence["rounds"]
    assert [r.get("eliminated") for r in rounds] == ["7", "6", None]  # 7's ballot exhausts
    assert rounds[-1]["counts"] == {"4": 2, "5": 2}
    assert decision.answer == "4" and decision.evidence["tie"] is True
    assert decision.evidence["tied"] == ["4", "5"]


def test_instant_runoff_first_round_majority_and_nothing_to_count():
    assert instant_runoff([["5"], ["5", "4"], ["4"]], ["4", "5"]).answer == "5"
    nothing = instant_runoff([None, None], ["4"])
    assert nothing.answer is None and nothing.evidence["abstentions"] == 2


# --- the rules --------------------------------------------------------------------------------


def test_ballot_rules_tie_order_is_the_final_answers_in_agent_order():
    path = finals("6", "5", "4")
    ballots = [["4", "6"], ["6", "4"], ["5"]]  # approvals 4: 2, 6: 2, 5: 1
    assert approval_rule(path, ballots=ballots).answer == "6"
    assert approval_rule(finals("4", "5", "6"), ballots=ballots).answer == "4"


def test_ranked_rule_counts_by_irv_or_borda():
    path = finals("4", "4", "5", "6", "6")
    assert ranked_rule(path, ballots=RANKINGS).evidence["count"] == "irv"
    borda = ranked_rule(path, ballots=RANKINGS, count="borda")
    assert borda.evidence["scores"] == {"4": 4, "5": 5, "6": 6}
    with pytest.raises(ValueError, match="count must be 'irv' or 'borda'"):
        ranked_rule(path, ballots=RANKINGS, count="condorcet")


def test_cumulative_rule_checks_its_budget():
    path = finals("4", "5")
    assert cumulative_rule(path, ballots=[{"4": 3}, {"5": 2}], points=3).answer == "4"
    with pytest.raises(ValueError, match="points must be a whole number"):
        cumulative_rule(path, ballots=[], points=0)


@pytest.mark.parametrize("rule", [approval_rule, cumulative_rule, ranked_rule])
def test_a_ballot_rule_without_ballots_says_so(rule):
    with pytest.raises(ValueError, match="reads the agents' ballots, and none were given"):
        rule(finals("4"))


def test_judge_rule_takes_the_judges_answer_even_against_the_majority():
    path = finals("4", "4", "5")
    decision = judge_rule(path, judged={"answer": "5", "agent": "a1", "id": "r2:decision"})
    assert decision.answer == "5"
    assert decision.evidence == {
        "judge": "a1",
        "turn": "r2:decision",
        "votes": {"4": 2, "5": 1},
        "abstentions": 0,
    }
    silent = judge_rule(path, judged={"answer": None, "agent": "a2", "id": "x"})
    assert silent.answer is None and silent.evidence["abstentions"] == 1
    with pytest.raises(ValueError, match="reads the answer of a judge's model call"):
        judge_rule(path)


def test_what_each_rule_reads():
    assert rule_needs(approval_rule) == RuleNeeds(ballot="approval")
    assert rule_needs(cumulative_rule).describe() == "cumulative ballots"
    assert rule_needs(ranked_rule).ballot == "ranked"
    assert rule_needs(judge_rule) == RuleNeeds(judge=True)
    for rule in (supermajority_rule, unanimity_rule, majority_rule):
        assert rule_needs(rule).answers_only
    with pytest.raises(ValueError, match="not both"):
        needs(ballot="ranked", judge=True)
    with pytest.raises(ValueError, match="unknown ballot kind"):
        needs(ballot="score")  # type: ignore[arg-type]
