"""Every built-in method's points priced at the calls that produced them, and its rounds
counted where a call was made (simulated model, seeded, three items per method)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from debategraph.eval.analysis.dynamics import vote_at_round
from debategraph.eval.analysis.pareto import arm_points, is_voting_arm, point_label
from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.runner import arms_for, evaluate
from debategraph.methods.registry import method_names

Row = dict[str, Any]


@pytest.fixture(scope="module")
def rows_by_method(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Row]]:
    items = load_dataset("arithmetic", limit=3, seed=1)
    out: dict[str, list[Row]] = {}
    for name in method_names():
        run = tmp_path_factory.mktemp(name)
        outcome = evaluate(items, arms_for([name], {}), Path(run), dataset="arithmetic")
        out[name] = outcome.rows
    return out


def spend(turn: Mapping[str, Any]) -> int:
    return int(turn["input_tokens"]) + int(turn["output_tokens"])


def total(row: Row) -> int:
    return int(row["input_tokens"]) + int(row["output_tokens"])


def produced(row: Row, r: int) -> int:
    """The tokens of the calls round ``r``'s answers depend on, read off the row's turns.

    Round ``r`` of the answer turns: every call listed up to its last agent answer (calls
    after it, such as a judge's verdict or decision, feed only later rounds or the
    decision); a round nobody answered in costs what the round before did; stances after
    the answer rounds (SVR-MAD) every call; past the row's last entry, the whole row.
    """
    entries, turns = row["round_answers"], row["turns"]
    if r >= len(entries):
        return total(row)
    answering = max(t["round"] for t in turns if t["kind"] == "answer")
    if r > answering:
        return sum(spend(t) for t in turns if t["kind"] != "decision")
    last = [
        i
        for i, t in enumerate(turns)
        if t["round"] == r and t["kind"] == "answer" and t["agent"] in row["agent_names"]
    ]
    if not last:
        return produced(row, r - 1)
    return sum(spend(t) for t in turns[: max(last) + 1])


def first_k(row: Row, k: int) -> int:
    """The tokens of the first ``k`` agents that made a call (a voting arm's samples)."""
    by_agent: dict[str, int] = {}
    for turn in row["turns"]:
        by_agent[turn["agent"]] = by_agent.get(turn["agent"], 0) + spend(turn)
    drawn = [by_agent[a] for a in row["agent_names"] if a in by_agent]
    return sum(drawn[:k])


@pytest.mark.parametrize("method", method_names())
def test_every_point_is_priced_at_the_calls_behind_it(
    method: str, rows_by_method: dict[str, list[Row]]
) -> None:
    rows = rows_by_method[method]
    assert all("error" not in row for row in rows)
    points = arm_points(method, rows)
    steps = [p for p in points if not p["decision"]]
    assert steps, f"{method} has no round or k point"
    for point in steps:
        if point["k"] is not None:
            want = sum(first_k(row, point["k"]) for row in rows) / len(rows)
        else:
            want = sum(produced(row, point["round"]) for row in rows) / len(rows)
        assert point["tokens_per_item"] == pytest.approx(want), (method, point)
        assert point["tokens_exact"]
    spend_order = [p["tokens_per_item"] for p in points]
    assert spend_order == sorted(spend_order)
    repeats = [
        (point_label(a), point_label(b))
        for a, b in itertools.pairwise(points)
        if (a["correct"], a["tokens_per_item"]) == (b["correct"], b["tokens_per_item"])
    ]
    assert not repeats, f"{method} draws the same point twice: {repeats}"
    # nothing is lost: the last point (a round, k or the decision) costs the whole spend
    assert points[-1]["tokens_per_item"] == pytest.approx(
        sum(total(row) for row in rows) / len(rows)
    )
    if not is_voting_arm(rows):  # vote@r prices its rows the same way
        for r in range(max(len(row["round_answers"]) for row in rows)):
            early = vote_at_round(rows, r)
            tokens = [(e.input_tokens or 0) + (e.output_tokens or 0) for e in early]
            assert tokens == [produced(row, min(r, len(row["round_answers"]) - 1))
                              for row in rows]  # fmt: skip


def test_svr_stances_are_priced_at_every_challenge_round(
    rows_by_method: dict[str, list[Row]],
) -> None:
    # One item ran seven rounds of pairwise debates: its stances after round 0 cost them all.
    rows = rows_by_method["svr"]
    assert max(row["rounds"] for row in rows) > 1
    stance_point = next(p for p in arm_points("svr", rows) if p["round"] == 1)
    assert stance_point["tokens_per_item"] == pytest.approx(
        sum(total(row) for row in rows) / len(rows)
    )


def test_a_judges_calls_after_the_last_answers_price_only_the_decision(
    rows_by_method: dict[str, list[Row]],
) -> None:
    rows = rows_by_method["mad-judge"]
    points = arm_points("mad-judge", rows)
    judged = [t for row in rows for t in row["turns"] if t["agent"] == "judge"]
    last_round = [p for p in points if p["round"] is not None][-1]
    assert judged and last_round["tokens_per_item"] < sum(total(r) for r in rows) / len(rows)


def test_sid_et_with_no_debated_item_is_one_vote_point(
    rows_by_method: dict[str, list[Row]],
) -> None:
    rows = rows_by_method["sid-et"]
    assert all(len(row["turns"]) == 1 for row in rows)  # every first agent was confident
    points = arm_points("sid-et", rows)
    assert [(p["k"], p["decision"]) for p in points] == [(1, False)]
    assert points[0]["tokens_per_item"] == sum(total(row) for row in rows) / len(rows)


@pytest.mark.parametrize("method", method_names())
def test_rounds_count_the_rounds_in_which_a_call_was_made(
    method: str, rows_by_method: dict[str, list[Row]]
) -> None:
    for row in rows_by_method[method]:
        called = {t["round"] for t in row["turns"] if t["round"] > 0}
        assert row["rounds"] == len(called), (method, row["id"], sorted(called))


@pytest.mark.parametrize("method", ["s2mad", "svr", "du+gate-unanimous"])
def test_a_round_in_which_nobody_spoke_is_no_round(method: str, tmp_path: Path) -> None:
    # A model that nearly always answers right: round 0 is unanimous on every item, so
    # S²-MAD's filter (or the gate) lets nobody speak after it, and no round is counted.
    from debategraph.eval.analysis.metrics import summarize

    items = load_dataset("arithmetic", limit=3, seed=1)
    arms = arms_for([method], {"models": "simulated:skill=0.99"})
    rows = evaluate(items, arms, tmp_path, dataset="arithmetic").rows
    assert all({t["round"] for t in row["turns"]} == {0} for row in rows)
    assert [row["rounds"] for row in rows] == [0, 0, 0]
    summary = summarize(rows)[method]
    assert summary["rounds_mean"] == 0
    if summary["gate"] is not None:
        assert summary["gate"]["debated"] == 0
