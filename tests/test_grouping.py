"""GroupDebate's groups and stages: pure functions, hand-checked values."""

import pytest

from debategraph.policies.grouping import (
    assign_groups,
    debate_plan,
    default_group_count,
    even_sizes,
    group_sizes,
    round_kind,
    split_groups,
    stage_count,
    stage_of,
    stage_schedule,
)

FIVE = ["a1", "a2", "a3", "a4", "a5"]


def test_default_group_count_is_groups_of_about_three():
    assert [default_group_count(m) for m in (1, 2, 3, 4, 5, 6, 7, 8, 9)] == [
        1, 1, 1, 2, 2, 2, 3, 3, 3,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("agents", "groups", "sizes"),
    [(5, 2, (3, 2)), (6, 2, (3, 3)), (6, 3, (2, 2, 2)), (8, 3, (3, 3, 2)), (4, 4, (1, 1, 1, 1))],
)
def test_even_sizes_put_the_larger_groups_first(agents, groups, sizes):
    assert even_sizes(agents, groups) == sizes


def test_even_sizes_refuse_more_groups_than_agents():
    with pytest.raises(ValueError, match="between 1 and 5"):
        even_sizes(5, 6)


def test_group_sizes_explicit_or_counted():
    assert group_sizes(5) == (3, 2)
    assert group_sizes(6, count=3) == (2, 2, 2)
    assert group_sizes(6, sizes=[4, 1, 1]) == (4, 1, 1)
    assert group_sizes(6, sizes=(3, 3), count=2) == (3, 3)
    with pytest.raises(ValueError, match="add up to 6, but there are 5 agents"):
        group_sizes(5, sizes=(3, 3))
    with pytest.raises(ValueError, match="at least 1 each"):
        group_sizes(3, sizes=(3, 0))
    with pytest.raises(ValueError, match="number of groups is 3"):
        group_sizes(4, sizes=(2, 2), count=3)


def test_split_is_a_seeded_shuffle_cut_in_order_with_members_in_agent_order():
    # random.Random(1).shuffle(FIVE) gives a3, a4, a5, a1, a2.
    assert split_groups(FIVE, (3, 2), seed=1) == [["a3", "a4", "a5"], ["a1", "a2"]]
    assert split_groups(FIVE, (3, 2), seed=1) == split_groups(FIVE, (3, 2), seed=1)
    # random.Random(2).shuffle(FIVE) gives a3, a2, a4, a5, a1.
    assert split_groups(FIVE, (2, 2, 1), seed=2) == [["a2", "a3"], ["a4", "a5"], ["a1"]]
    assert split_groups(FIVE, (3, 2), seed=None) == [["a1", "a2", "a3"], ["a4", "a5"]]
    with pytest.raises(ValueError, match="do not add up to 5"):
        split_groups(FIVE, (2, 2), seed=0)


def test_stages_and_round_kinds_follow_the_paper():
    # T = 4, R = 2: t1 initial, t2 intra, [summaries], t3 inter, t4 intra.
    assert stage_count(4, 2) == 2
    assert stage_schedule(4, 2) == [[0, 1], [2, 3]]
    assert [round_kind(r, 2) for r in range(4)] == ["initial", "intra", "inter", "intra"]
    assert [stage_of(r, 2) for r in range(4)] == [1, 1, 2, 2]
    # T not divisible by R: the last stage is shorter (min(sR, T)).
    assert stage_count(3, 2) == 2 and stage_schedule(3, 2) == [[0, 1], [2]]
    assert stage_schedule(7, 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert [round_kind(r, 3) for r in range(7)] == [
        "initial", "intra", "intra", "inter", "intra", "intra", "inter",
    ]  # fmt: skip
    # R = 1: every round after the first reads summaries.
    assert [round_kind(r, 1) for r in range(3)] == ["initial", "inter", "inter"]
    assert stage_schedule(1, 2) == [[0]]
    with pytest.raises(ValueError, match="at least 1"):
        stage_count(3, 0)


def test_assign_groups_sizes_then_splits():
    assert assign_groups(FIVE, count=2) == [["a1", "a2", "a3"], ["a4", "a5"]]
    assert assign_groups(FIVE, sizes=(1, 4)) == [["a1"], ["a2", "a3", "a4", "a5"]]
    assert assign_groups(FIVE, seed=0) == split_groups(FIVE, (3, 2), seed=0)
    with pytest.raises(ValueError, match="add up to 4, but there are 5 agents"):
        assign_groups(FIVE, sizes=(2, 2))


def test_debate_plan_in_the_papers_letters():
    groups = [["a1", "a3", "a5"], ["a2", "a4"]]
    # T=5 rounds of R=2 per stage: stages [0, 1], [2, 3], [4] -> S=3
    assert debate_plan(5, 5, 2, groups) == {
        "M": 5,
        "T": 5,
        "R": 2,
        "S": 3,
        "N": 2,
        "sizes": [3, 2],
    }
