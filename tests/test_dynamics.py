"""Per-round analysis from stored rows: flips, agents right, and the vote at round 0."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.analysis.dynamics import FLIPS, flip_kind, round_dynamics, round_zero_vote
from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.analysis.rescore import vote_at_round


@pytest.mark.parametrize(
    ("before", "after", "kind"),
    [
        ("1", "1", None),
        ("1", "2", "right_to_wrong"),
        ("2", "1", "wrong_to_right"),
        ("2", "3", "wrong_to_other_wrong"),
        ("2", "2", None),
        ("1", None, "right_to_abstain"),
        ("2", None, "wrong_to_abstain"),
        (None, "1", "abstain_to_right"),
        (None, "2", "abstain_to_wrong"),
        (None, None, None),
    ],
)
def test_every_kind_of_change(before, after, kind):
    assert flip_kind(before, after, before == "1", after == "1") == kind


def turn(round_, agent, answer, tokens=10):
    return {"id": f"r{round_}:{agent}", "agent": agent, "round": round_, "kind": "answer",
            "answer": answer, "answer_source": "declared" if answer else "none",
            "input_tokens": tokens, "output_tokens": 1}  # fmt: skip


def debate(item, rounds, final, **extra):
    turns = [turn(r, f"a{i}", a, 10 * (r + 1)) for r, answers in enumerate(rounds)
             for i, a in enumerate(answers, 1)]  # fmt: skip
    return {"method": "du", "id": item, "reference": "1", "answer": final,
            "correct": final == "1", "abstained": final is None, "round_answers": rounds,
            "turns": turns, "calls": len(turns), "task": "number", **extra,
            "input_tokens": sum(t["input_tokens"] for t in turns),
            "output_tokens": len(turns)}  # fmt: skip


ROWS = [
    # round 0 majority 1 (right); a3 drops to 2 in round 1 and everyone follows in round 2
    debate("q1", [["1", "1", "2"], ["1", "2", "2"], ["2", "2", "2"]], "2"),
    # round 0 majority 2 (wrong); a1 abstains, then all reach 1
    debate("q2", [["2", "2", "1"], [None, "1", "1"], ["1", "1", "1"]], "1"),
    # stopped after round 1 at consensus: carried forward into round 2 with no flips
    debate("q3", [["3", "2", "1"], ["1", "1", "1"]], "1"),
]


def test_round_dynamics_by_hand():
    stats = round_dynamics(ROWS)
    assert [s["round"] for s in stats] == [0, 1, 2] and all(s["items"] == 3 for s in stats)
    # Majorities: r0 1, 2, 3 (first-seen tie) -> 1 of 3; r1 2, 1, 1 -> 2; r2 2, 1, 1 -> 2.
    assert [s["majority_accuracy"] for s in stats] == [1 / 3, 2 / 3, 2 / 3]
    # Right answers: r0 2 + 1 + 1 = 4; r1 1 + 2 + 3 = 6; r2 0 + 3 + 3 = 6 (of 9 each).
    assert [s["agents_right"] for s in stats] == [4 / 9, 6 / 9, 6 / 9]
    assert stats[0]["answers"] == 0 and set(stats[0]["flips"].values()) == {0}
    assert stats[1]["flips"] == {
        # q1: a2 1->2; q2: a1 2->None, a2 2->1; q3: a1 3->1, a2 2->1
        "right_to_wrong": 1, "wrong_to_right": 3, "wrong_to_other_wrong": 0,
        "right_to_abstain": 0, "wrong_to_abstain": 1, "abstain_to_right": 0,
        "abstain_to_wrong": 0,
    }  # fmt: skip
    assert stats[2]["flips"] == {
        # q1: a1 1->2; q2: a1 None->1; q3 carried: none
        "right_to_wrong": 1, "wrong_to_right": 0, "wrong_to_other_wrong": 0,
        "right_to_abstain": 0, "wrong_to_abstain": 0, "abstain_to_right": 1,
        "abstain_to_wrong": 0,
    }  # fmt: skip
    assert stats[1]["answers"] == stats[2]["answers"] == 9


def test_the_vote_at_round_zero_beside_the_final_answer():
    vote = round_zero_vote(ROWS)
    # round-0 turns: 3 calls of 10 + 1 tokens per item
    assert vote == {"n": 3, "correct": 1, "accuracy": 1 / 3, "final_accuracy": 2 / 3,
                    "tokens_per_item": 33.0, "calls_per_item": 3.0}  # fmt: skip
    without_turns = [{k: v for k, v in r.items() if k != "turns"} for r in ROWS]
    assert round_zero_vote(without_turns)["tokens_per_item"] is None


def test_vote_at_round_rows_read_as_an_arm_of_their_own():
    early = vote_at_round(ROWS, 0)
    assert [r.method for r in early] == ["du · vote@r0"] * 3
    assert [(r.answer, r.correct) for r in early] == [("1", True), ("2", False), ("3", False)]
    assert [r.calls for r in early] == [3, 3, 3]
    assert early[0].input_tokens == 30 and early[0].output_tokens == 3
    assert early[0].round_answers == [["1", "1", "2"]] and early[0].ncomm == 0
    assert early[1].answer_sources == {"declared": 3, "fallback": 0, "none": 0, "cut_off": 0}
    one = vote_at_round(ROWS, 1, label="{method}@{k}")
    assert [r.answer for r in one] == ["2", "1", "1"] and one[0].method == "du@1"
    assert one[2].rounds == 1 and len(one[2].turns) == 6


def test_summaries_carry_the_analysis_and_single_agents_have_no_consensus():
    summary = summarize(ROWS)["du"]
    assert summary["flips"]["wrong_to_right"] == 3 and set(summary["flips"]) == set(FLIPS)
    assert summary["vote_at_round0"]["accuracy"] == 1 / 3
    assert [s["round"] for s in summary["round_stats"]] == [0, 1, 2]
    cot = [{"method": "cot", "id": "q", "reference": "1", "answer": "1", "correct": True,
            "round_answers": [["1"]]}]  # fmt: skip
    assert math.isnan(summarize(cot)["cot"]["consensus_by_round"][0])


def test_report_from_the_command_line_writes_the_analysis(tmp_path):
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    done = CliRunner().invoke(app, ["report", str(tmp_path), "--no-plots"])
    assert done.exit_code == 0, done.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    du = summary["groups"][0]["methods"]["du"]
    assert du["flips"]["right_to_wrong"] == 2 and du["vote_at_round0"]["correct"] == 1
    text = (tmp_path / "report.md").read_text()
    # tokens: q1 and q2 3 * (10 + 20 + 30) + 9 = 189 each, q3 3 * (10 + 20) + 6 = 96
    assert "| du | 3 | 66.7 | 33.3 | +33.3 | 2 | 3 | 158 | 33 |" in text


def test_the_rounds_of_every_debating_method_are_also_pooled(tmp_path):
    from debategraph.eval.analysis.results import build_groups
    from debategraph.eval.report.writer import write_report

    other = [dict(debate("q1", [["2", "2", "2"], ["1", "1", "1"]], "1"), method="cortex")]
    voted = [dict(debate("q1", [["1", "2", "1"]], "1"), method="mav")]  # one round: no debate
    (group,) = build_groups(ROWS + other + voted)
    assert group.overall_rounds == round_dynamics(ROWS + other)
    # cortex's q1 adds its three agents going from 2 (wrong) to 1 (right) in round 1
    first = group.overall_rounds[1]
    du_first = round_dynamics(ROWS)[1]
    assert first["flips"]["wrong_to_right"] == du_first["flips"]["wrong_to_right"] + 3
    assert first["items"] == 4
    assert build_groups(ROWS + voted)[0].overall_rounds == []  # one debating method: nothing
    (tmp_path / "results.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in ROWS + other + voted)
    )
    write_report(tmp_path, plots=False)
    assert "| all debates | wrong → right |" in (tmp_path / "report.md").read_text()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["groups"][0]["overall_rounds"][1]["items"] == 4
