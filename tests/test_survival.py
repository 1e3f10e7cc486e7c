"""SVR-MAD's pure math, hand-computed."""

import math

import pytest

from debategraph.policies.survival import (
    MissingLogprobs,
    Selection,
    accepts,
    agent_vote,
    answer_clusters,
    communication_budget,
    confidence_prior,
    correctness_score,
    fallback_vote,
    iterations_for,
    min_ll_prior,
    ppl_prior,
    prior_signal,
    select,
    survival_rate,
)

# ---------------------------------------------------------------- priors


def test_min_ll_prior_is_the_probability_of_the_least_likely_token():
    assert min_ll_prior(math.log(0.25)) == pytest.approx(0.25, rel=1e-15)
    assert min_ll_prior(0.0) == 1.0
    assert min_ll_prior(-math.inf) == 0.0
    assert min_ll_prior(1e-9) == 1.0  # a rounding server's positive logprob is clipped
    with pytest.raises(ValueError, match="NaN"):
        min_ll_prior(math.nan)


def test_ppl_prior_is_one_over_perplexity():
    # Tokens with probabilities 1/2 and 1/8: mean logprob -2 ln 2, PPL = 4, prior 1/4.
    mean = (math.log(0.5) + math.log(0.125)) / 2
    assert math.exp(-mean) == pytest.approx(4.0)
    assert ppl_prior(mean) == pytest.approx(0.25, rel=1e-15)
    assert ppl_prior(0.0) == 1.0


@pytest.mark.parametrize(
    ("confidence", "prior"), [(0.8, 0.8), (1.7, 1.0), (-0.2, 0.0), (None, 0.5), (math.nan, 0.5)]
)
def test_confidence_prior_is_clipped_and_neutral_when_missing(confidence, prior):
    assert confidence_prior(confidence) == prior


def test_prior_signal_reads_the_turn_statistics_by_kind():
    stats = {"min": math.log(0.1), "mean": math.log(0.5), "n": 12.0}
    assert prior_signal("min_ll", stats, 0.9) == pytest.approx(0.1)
    assert prior_signal("ppl", stats, 0.9) == pytest.approx(0.5)
    assert prior_signal("confidence", stats, 0.9) == 0.9
    assert prior_signal("confidence", None, None) == 0.5
    for kind in ("min_ll", "ppl"):
        with pytest.raises(MissingLogprobs, match=f"the {kind} prior needs token logprobs"):
            prior_signal(kind, None, 0.9)
        with pytest.raises(MissingLogprobs):
            prior_signal(kind, {}, 0.9)
    with pytest.raises(ValueError, match="unknown prior 'entropy'"):
        prior_signal("entropy", stats, 0.9)  # type: ignore[arg-type]


# ---------------------------------------------------------- survival rate


@pytest.mark.parametrize(
    ("debates", "retained", "changed", "svr"),
    [(1, 1, 0, 1.0), (1, 0, 1, -1.0), (2, 1, 1, 0.0), (3, 2, 1, 1 / 3), (4, 1, 3, -0.5)],
)
def test_survival_rate(debates, retained, changed, svr):
    assert survival_rate(debates, retained, changed) == svr


def test_survival_rate_needs_consistent_counts():
    with pytest.raises(ValueError, match="at least one debate"):
        survival_rate(0, 0, 0)
    with pytest.raises(ValueError, match="add up"):
        survival_rate(3, 1, 1)


def test_score_is_the_prior_until_challenged_then_the_survival_rate():
    assert correctness_score(0.42, 0, 0, 0) == 0.42
    assert correctness_score(0.42, 1, 0, 1) == -1.0
    assert correctness_score(0.01, 2, 2, 0) == 1.0


def test_acceptance_needs_full_survival_against_at_least_c_challengers():
    assert not accepts(1, 1, 0, accept_after=2)
    assert accepts(2, 2, 0, accept_after=2)
    assert not accepts(3, 2, 1, accept_after=2)
    assert accepts(3, 3, 0, accept_after=3)
    assert accepts(3, 2, 1, accept_after=2, threshold=1 / 3)
    assert not accepts(3, 2, 1, accept_after=2, threshold=0.5)
    with pytest.raises(ValueError, match="accept_after"):
        accepts(1, 1, 0, accept_after=0)


# ------------------------------------------------------------------ budget


def test_clusters_and_budget():
    answers = ["1", "1", "2", "2", "3", "1"]
    assert answer_clusters(answers) == (3, 3)
    assert communication_budget(2, answers) == 2 * (3 + 3)
    assert communication_budget(3, answers) == 18
    assert answer_clusters(["7", None, "7", None]) == (1, 2)  # abstentions form no group
    assert answer_clusters([None, None]) == (0, 0)
    assert communication_budget(2, [None]) == 0


def test_iterations_of_a_budget_run_while_any_is_left():
    assert iterations_for(12, 2) == 6
    assert iterations_for(5, 2) == 3  # 5 -> 3 -> 1 -> -1
    assert iterations_for(0, 2) == 0
    assert iterations_for(-4, 2) == 0


# --------------------------------------------------------------- selection


def test_receiver_is_the_top_score_and_challengers_the_strongest_dissenters():
    scores = [0.9, 0.5, 0.8, 0.4, 0.7, 0.3]
    answers = ["1", "1", "2", "2", "3", "3"]
    assert select(scores, answers, [], 2) == Selection(0, (2, 4))
    assert select(scores, answers, [], 3) == Selection(0, (2, 4, 3))
    assert select(scores, answers, [], 9) == Selection(0, (2, 4, 3, 5))


def test_ties_go_to_the_lower_agent_index():
    assert select([0.5, 0.5, 0.5, 0.5], ["1", "2", "3", "3"], [], 2) == Selection(0, (1, 2))


def test_debated_pairs_are_skipped_and_an_exhausted_receiver_passed_over():
    scores = [1.0, 0.5, 0.1]
    answers = ["1", "1", "2"]
    # a1 was challenged by a3 already: nobody else disagrees with it, so a2 is next.
    assert select(scores, answers, [(2, 0)], 2) == Selection(1, (2,), exhausted=(0,))
    assert select(scores, answers, [(2, 0), (2, 1)], 2) == Selection(2, (0, 1), exhausted=(0, 1))
    everything = [(2, 0), (2, 1), (0, 2), (1, 2)]
    assert select(scores, answers, everything, 2) is None
    # The literal algorithm lets the same pair debate again.
    assert select(scores, answers, everything, 2, repeat_pairs=True) == Selection(0, (2,))


def test_abstainers_neither_receive_nor_challenge():
    assert select([0.9, 0.8, 0.1], [None, "1", "2"], [], 2) == Selection(1, (2,))
    assert select([0.9, 0.8], [None, "1"], [], 2) is None
    assert select([0.9, 0.8, 0.7], ["1", "1", None], [], 2) is None


# ------------------------------------------------------------- agent vote


def test_agent_vote_is_its_post_debate_majority_with_the_initial_answer_as_tie_break():
    assert agent_vote("1", []) == "1"
    assert agent_vote("1", [None]) == "1"
    assert agent_vote("1", ["2", "2", "1"]) == "2"
    assert agent_vote("1", ["2", "1"]) == "1"
    assert agent_vote(None, ["4"]) == "4"


def test_agent_vote_tie_without_the_initial_answer_goes_to_the_best_holder():
    holders = ["1", "2", "3", "3", "2"]
    scores = [0.0, 0.2, 0.9, -1.0, 0.5]
    # "2" is held by a2 (0.2) and a5 (0.5); "3" by a3 (0.9): "3" wins on score.
    assert agent_vote("1", ["2", "3"], holders=holders, scores=scores) == "3"
    # Equal best scores: the lower holder index ("2" via a2, index 1).
    assert agent_vote("1", ["3", "2"], holders=holders, scores=[0.0, 0.9, 0.9, 0, 0]) == "2"
    # An answer nobody held ranks last; among such, the first seen.
    assert agent_vote("1", ["9", "2"], holders=holders, scores=scores) == "2"
    assert agent_vote("1", ["9", "8"], holders=holders, scores=scores) == "9"


# ------------------------------------------------------------ fallback vote


def test_fallback_majority_over_agent_votes():
    d = fallback_vote(["1", "2", "2", "3"], [["1"], ["1", "1"], [], ["2", "3"]], [0, 0, 0, 0])
    assert d.answer == "1"
    assert d.rule == "svr"
    assert d.evidence == {
        "outcome": "fallback",
        "agent_votes": ["1", "1", "2", "3"],
        "votes": {"1": 2, "2": 1, "3": 1},
        "abstentions": 0,
        "tie": False,
    }


def test_fallback_tie_goes_to_the_initial_majority():
    # Votes 2-2 between "1" and "2"; initially "2" had three agents, "1" one.
    initial = ["1", "2", "2", "2"]
    post = [[], ["1"], [], ["1", "1"]]
    d = fallback_vote(initial, post, [0.1, 0.2, 0.3, 0.4])
    assert d.evidence["agent_votes"] == ["1", "1", "2", "1"]
    assert d.answer == "1" and d.evidence["tie"] is False
    post = [[], ["1"], [], []]
    d = fallback_vote(initial, post, [0.1, 0.2, 0.3, 0.4])
    assert d.evidence["agent_votes"] == ["1", "1", "2", "2"]
    assert d.answer == "2"
    assert d.evidence["tie"] is True and d.evidence["tied"] == ["1", "2"]
    assert d.evidence["tie_break"] == "initial_majority"


def test_fallback_tie_then_goes_to_the_highest_scored_voter_then_agent_order():
    initial = ["1", "2", "3", "4"]
    post = [["3"], ["4"], [], []]  # votes 3, 4, 3, 4: a 2-2 tie, initially 1-1
    d = fallback_vote(initial, post, [0.9, -1.0, 0.2, 0.7])
    # Voters of "3": a1 (0.9), a3 (0.2); voters of "4": a2 (-1), a4 (0.7).
    assert d.answer == "3" and d.evidence["tie_break"] == "score"
    d = fallback_vote(initial, post, [0.5, 0.5, 0.5, 0.5])
    assert d.answer == "3" and d.evidence["tie_break"] == "agent_order"
    d = fallback_vote(initial, [["4"], ["3"], [], []], [0.5, 0.5, 0.5, 0.5])
    assert d.answer == "4" and d.evidence["tie_break"] == "agent_order"


def test_fallback_with_abstentions():
    d = fallback_vote([None, "5", None], [[], [], ["5"]], [0, 0, 0])
    assert d.answer == "5" and d.evidence["abstentions"] == 1
    d = fallback_vote([None, None], [[], [None]], [0, 0])
    assert d.answer is None and d.evidence["reason"] == "every agent abstained"
