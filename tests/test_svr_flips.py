"""SVR-MAD's answer changes are flips, and it sits in "Did debating help?"."""

from __future__ import annotations

from pathlib import Path

from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.datasets import load_dataset
from debategraph.eval.report.tables import debate_vs_vote_table
from debategraph.eval.run.arms import Arm
from debategraph.eval.run.runner import evaluate
from debategraph.policies.answers import answers_match
from debategraph.policies.survival import agent_vote


def test_svr_votes_after_its_debates_are_a_round_and_its_changes_flips(tmp_path: Path) -> None:
    items = load_dataset("arithmetic", limit=8, seed=3)
    outcome = evaluate(items, [Arm("svr", "svr", {"agents": 4})], tmp_path, dataset="arithmetic")
    rows = [r for r in outcome.rows if "error" not in r]
    expected = {"right_to_wrong": 0, "wrong_to_right": 0}
    debated = 0
    for row in rows:
        state = row["method_state"]
        initial = state["initial_answers"]
        assert row["round_answers"][0] == initial
        if not any(state["debates"]):
            assert len(row["round_answers"]) == 1
            continue
        debated += 1
        votes = [
            agent_vote(y, post, holders=initial, scores=state["scores"])
            for y, post in zip(initial, state["post_debate"], strict=True)
        ]
        assert row["round_answers"][1] == votes
        for before, after in zip(initial, votes, strict=True):
            right = [a is not None and answers_match(a, row["reference"], "number")
                     for a in (before, after)]  # fmt: skip
            if right == [True, False]:
                expected["right_to_wrong"] += 1
            elif right == [False, True]:
                expected["wrong_to_right"] += 1
    assert debated
    summary = summarize(rows)["svr"]
    flips = summary["flips"]
    assert {k: flips[k] for k in expected} == expected
    assert sum(expected.values()) > 0  # the items chosen do change answers
    table = debate_vs_vote_table({"svr": summary})
    assert table.splitlines()[2].startswith("| svr |")
