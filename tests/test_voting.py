from debategraph.policies.voting import majority_vote


def test_plurality_and_abstentions_counted():
    d = majority_vote(["4", None, "4", "5", None])
    assert d.answer == "4"
    assert d.evidence["votes"] == {"4": 2, "5": 1}
    assert d.evidence["abstentions"] == 2
    assert d.evidence["tie"] is False


def test_all_abstain_is_no_answer():
    d = majority_vote([None, None])
    assert d.answer is None
    assert d.evidence["abstentions"] == 2


def test_tie_first_takes_lowest_agent_index():
    assert majority_vote(["7", "5", "5", "7"], tie_policy="first").answer == "7"


def test_tie_random_is_seeded_and_covers_both():
    picks = {majority_vote(["7", "5"], tie_policy="random", seed=s).answer for s in range(20)}
    assert picks == {"5", "7"}
    again = [majority_vote(["7", "5"], tie_policy="random", seed=s).answer for s in range(20)]
    assert again == [
        majority_vote(["7", "5"], tie_policy="random", seed=s).answer for s in range(20)
    ]


def test_tie_confidence_sums_holders():
    # 7: 0.4 + 0.3 = 0.7 ; 5: 0.9 -> 0.9 wins although 7 is seen first.
    d = majority_vote(
        ["7", "5", "7", "5"], tie_policy="confidence", confidences=[0.4, 0.9, 0.3, 0.0]
    )
    assert d.answer == "5"
    assert d.evidence["tied"] == ["7", "5"]


def test_all_differ_no_answer_rule():
    assert majority_vote(["1", "2", "3"], no_answer_if_all_differ=True).answer is None
    assert majority_vote(["1", "2", "3"]).answer == "1"
    assert majority_vote(["1"], no_answer_if_all_differ=True).answer == "1"
