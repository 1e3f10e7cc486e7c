"""The GroupDebate paper's cost model: call counts, Eq. 1-5 and the bounds, by hand."""

import pytest

from debategraph.policies.summary_cost import (
    groupdebate_calls,
    groupdebate_tokens,
    mad_summary_calls,
    mad_summary_tokens,
    output_grid,
    shared_summary_calls,
    split_measured,
)

from .bench_modules import bench_module

_BOUNDS = bench_module("summary_bounds")
groupdebate_bound = _BOUNDS.groupdebate_bound
groupdebate_order_bound = _BOUNDS.groupdebate_order_bound
mad_summary_bound = _BOUNDS.mad_summary_bound
mad_summary_order_bound = _BOUNDS.mad_summary_order_bound


def test_call_counts_match_the_paper():
    # Table 2: GD(5,3) makes 17 API calls, MAD(5,3) 25.
    assert groupdebate_calls(5, 3, 2, 2) == 17
    assert mad_summary_calls(5, 3) == 25
    # The benchmark setting: 6 agents, T = 4.
    assert groupdebate_calls(6, 4, 2, 2) == 26
    assert groupdebate_calls(6, 4, 3, 2) == 27
    assert mad_summary_calls(6, 4) == 42
    assert shared_summary_calls(6, 4) == 27
    assert groupdebate_calls(4, 1, 2, 2) == 4  # one stage: no summary


# Four agents in groups {0, 1} and {2, 3}, T = 3, R = 2, Q = 10.
GD_OUTPUTS = [[5, 6, 7], [4, 3, 2], [1, 2, 3], [8, 1, 1]]
GD_SUMMARIES = [[9, 11]]  # the summaries of groups 1 and 2 after stage 1
GD_GROUPS = [[0, 1], [2, 3]]


def test_groupdebate_tokens_by_hand():
    parts = groupdebate_tokens(10, GD_OUTPUTS, GD_SUMMARIES, GD_GROUPS, 2)
    # t1: 4*10 + (5+4+1+8).
    assert parts["initial"] == 58
    # t2 (intra): group 1 reads 5+4, group 2 reads 1+8; (10+6+9)+(10+3+9)+(10+2+9)+(10+1+9).
    assert parts["intra"] == 88
    # end of stage 1: (6+3+9) + (2+1+11).
    assert parts["summary"] == 32
    # t3 (inter): 10 + own t2 output + (9+11) + own t3 output, per agent.
    assert parts["inter"] == 43 + 35 + 35 + 32
    assert parts["total"] == 58 + 88 + 32 + 145 == 323


# Three agents, T = 3, Q = 10; summaries[i][r] is agent i's summary of round r.
MAD_OUTPUTS = [[5, 6, 7], [4, 3, 2], [1, 2, 3]]
MAD_SUMMARIES = [[10, 20], [11, 21], [12, 22]]


def test_mad_summary_tokens_by_hand():
    parts = mad_summary_tokens(10, MAD_OUTPUTS, MAD_SUMMARIES)
    assert parts["initial"] == 30 + 10
    # Summaries: the others' outputs plus the summary, rounds 1 and 2.
    assert parts["summary"] == (5 + 10) + (6 + 11) + (9 + 12) + (5 + 20) + (8 + 21) + (9 + 22)
    # t2: own t1 output and summary, Q, own t2 output; t3 re-reads both earlier rounds.
    t2 = (5 + 10 + 10 + 6) + (4 + 11 + 10 + 3) + (1 + 12 + 10 + 2)
    t3 = (5 + 10 + 6 + 20 + 10 + 7) + (4 + 11 + 3 + 21 + 10 + 2) + (1 + 12 + 2 + 22 + 10 + 3)
    assert parts["debate"] == t2 + t3 == 84 + 159
    assert parts["total"] == 40 + 138 + 243 == 421


def test_bounds_by_hand_and_equality_at_full_length():
    # GroupDebate, M=4, T=3, N=2, R=2 (S=2, K=2): [24 - 8 + 12]*8 + [1*5*2]*11 + 4*3*10.
    assert groupdebate_bound(4, 3, 2, 2, 10, 8, 11) == 120 + 28 * 8 + 10 * 11 == 454
    assert groupdebate_tokens(10, GD_OUTPUTS, GD_SUMMARIES, GD_GROUPS, 2)["total"] <= 454
    full = groupdebate_tokens(10, [[8, 8, 8]] * 4, [[11, 11]], GD_GROUPS, 2)
    assert full["total"] == 454  # equal groups at maximal lengths: the bound is exact
    assert groupdebate_order_bound(4, 3, 2, 2, 10, 8, 11) == 120 + 384 + 352
    # Uneven groups (3, 1): the largest group as K keeps it a bound.
    uneven = groupdebate_tokens(10, [[8, 8, 8]] * 4, [[11, 11]], [[0, 1, 2], [3]], 2)
    assert uneven["total"] == 72 + (3 * (10 + 8 + 24) + (10 + 8 + 8)) + (35 + 19) + 192 == 470
    assert uneven["total"] > groupdebate_bound(4, 3, 2, 2, 10, 8, 11)
    assert uneven["total"] <= groupdebate_bound(4, 3, 2, 2, 10, 8, 11, group_size=3)
    # Summarised MAD, M=T=3: (40.5 - 13.5 + 3)*7 + (27 + 13.5 - 9 - 13.5 + 3)*22 + 90.
    assert mad_summary_bound(3, 3, 10, 7, 22) == 90 + 30 * 7 + 21 * 22 == 762
    assert mad_summary_tokens(10, MAD_OUTPUTS, MAD_SUMMARIES)["total"] <= 762
    full_mad = mad_summary_tokens(10, [[7, 7, 7]] * 3, [[22, 22]] * 3)
    assert full_mad["total"] == 90 + 30 * 7 + 15 * 22  # exact output term when M = T
    assert mad_summary_order_bound(3, 3, 10, 7, 22) == 90 + 2 * 27 * 7 + 54 * 22


def test_groupdebate_costs_less_than_summarised_mad_at_the_same_lengths():
    # 6 agents, T = 4, every output 100 tokens, every summary 50, Q = 60.
    mad = mad_summary_tokens(60, [[100] * 4] * 6, [[50] * 3] * 6)["total"]
    three = groupdebate_tokens(60, [[100] * 4] * 6, [[50] * 3], [[0, 1], [2, 3], [4, 5]], 2)
    two = groupdebate_tokens(60, [[100] * 4] * 6, [[50] * 2], [[0, 1, 2], [3, 4, 5]], 2)
    # MAD: 6*4*60 + (144 - 36 + 6 + 48 - 12)*100 + (48 + 12 - 6)*50.
    assert mad == 1440 + 150 * 100 + 54 * 50 == 19140
    # GD: 1440 + [3MS - 2M + (T-S)(K+1)M]*100 + (S-1)(M+1)N*50 with K = 2 and K = 3.
    assert three["total"] == 1440 + 60 * 100 + 21 * 50 == 8490  # 0.44x
    assert two["total"] == 1440 + 72 * 100 + 14 * 50 == 9340  # 0.49x
    assert groupdebate_bound(6, 4, 3, 2, 60, 100, 50) == three["total"]


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="1 rows of 2 summary counts"):
        groupdebate_tokens(10, GD_OUTPUTS, [], GD_GROUPS, 2)
    with pytest.raises(ValueError, match="every agent index exactly once"):
        groupdebate_tokens(10, GD_OUTPUTS, GD_SUMMARIES, [[0, 1], [2]], 2)
    with pytest.raises(ValueError, match="2 summary counts for every agent"):
        mad_summary_tokens(10, MAD_OUTPUTS, [[1], [1], [1]])
    with pytest.raises(ValueError, match="every round"):
        mad_summary_tokens(10, [[1, 2], [1]], [[1], [1]])


def _turn(agent, round_, kind="answer", inp=0, out=0):
    return {"agent": agent, "round": round_, "kind": kind, "input_tokens": inp,
            "output_tokens": out}  # fmt: skip


def test_output_grid_and_the_measured_split():
    turns = [_turn("a1", 0, out=3), _turn("a2", 0, out=4), _turn("s", 1, "summary", 9, 2),
             _turn("a1", 1, inp=20, out=5), _turn("a2", 1, inp=21, out=6)]  # fmt: skip
    assert output_grid(turns, ["a1", "a2"]) == [[3, 5], [4, 6]]
    with pytest.raises(ValueError, match="no answer turn"):
        output_grid(turns[:-1], ["a1", "a2"])
    split = split_measured(turns, {"total": 40}, question=7, history=True)
    assert split["measured"] == 50 + 20 and split["measured_input"] == 50
    assert split["repeated_question"] == 7 * 2  # one earlier prompt for each round-1 call
    assert split["instruction"] == 70 - 40 - 14
    assert split_measured(turns, {"total": 40}, question=7, history=False)["instruction"] == 30
