"""Pairing stored rows for comparisons: which pairs, matched items, failures, seeds, the report."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval import compare_arms, paired_comparisons
from debategraph.eval.analysis.comparisons import default_pairs, split_pair
from debategraph.eval.analysis.dynamics import vote_at_round, vote_is_right
from debategraph.eval.analysis.stats import paired_bootstrap, paired_score_interval
from debategraph.eval.report.comparison_table import comparison_table
from debategraph.eval.report.writer import write_report


def row(method: str, item: str, correct: bool, **fields: Any) -> dict[str, Any]:
    return {
        "method": method,
        "id": item,
        "answer": "4" if correct else "5",
        "reference": "4",
        "correct": correct,
        "abstained": False,
        "dataset": "arithmetic",
        "input_tokens": 10,
        "output_tokens": 5,
        "calls": 1,
        "round_answers": [["4" if correct else "5"]],
        **fields,
    }


def table_rows() -> list[dict[str, Any]]:
    """a and b on q0..q7, one failed item each side, one item b never ran, one abstention.

    Scored by both: q0..q5 (q6 failed in a, q7 failed in b, q8 only in a).
    a right on q0 q1 q2 q3 q4, b right on q0 q5; q4 of b abstained (wrong).
    Discordant: a only q1 q2 q3 q4 (4), b only q5 (1). Accuracies 5/6 and 2/6.
    """
    rows = [row("a", f"q{k}", k <= 4) for k in range(6)]
    rows += [{"method": "a", "id": "q6", "error": "RateLimitError"}, row("a", "q7", True)]
    rows += [row("a", "q8", True)]
    b_right = {0, 5}
    rows += [row("b", f"q{k}", k in b_right) for k in range(4)]
    rows += [row("b", "q4", False, answer=None, abstained=True), row("b", "q5", True)]
    rows += [row("b", "q6", True), {"method": "b", "id": "q7", "error": "TimeoutError"}]
    return rows


def test_a_pair_of_arms_by_hand():
    c = compare_arms(table_rows(), "a", "b")
    assert (c["n"], c["pairs"], c["seeds"]) == (6, 6, 1)
    assert c["accuracy_a"] == pytest.approx(5 / 6) and c["accuracy_b"] == pytest.approx(2 / 6)
    assert c["difference"] == pytest.approx(3 / 6)
    assert (c["a_only"], c["b_only"]) == (4, 1)
    assert c["p_value"] == 12 / 32  # 2 * (C(5,0) + C(5,1)) / 2^5
    assert c["test"] == "mcnemar exact"
    assert (c["failed"], c["unpaired"]) == (2, 1)  # q6 and q7; q8 has no b row
    assert (c["ci_low"], c["ci_high"]) == paired_score_interval(4, 1, 6)
    assert c["interval"] == "tango score"
    assert c["ci_low"] <= c["difference"] <= c["ci_high"]
    reverse = compare_arms(table_rows(), "b", "a")
    assert reverse["difference"] == pytest.approx(-3 / 6)
    assert (reverse["a_only"], reverse["b_only"], reverse["p_value"]) == (1, 4, 12 / 32)


def seeded_rows() -> list[dict[str, Any]]:
    """Three items on seeds 0 and 1; x on q1 seed 1 failed.

    (item, seed): x, y correctness -> difference
    q0 s0: 1,0 -> 1    q0 s1: 1,0 -> 1    item mean 1
    q1 s0: 1,1 -> 0    q1 s1: failed      item mean 0 (one pair)
    q2 s0: 0,1 -> -1   q2 s1: 1,0 -> 1    item mean 0
    """
    table = {
        ("q0", 0): (True, False),
        ("q0", 1): (True, False),
        ("q1", 0): (True, True),
        ("q1", 1): (None, True),
        ("q2", 0): (False, True),
        ("q2", 1): (True, False),
    }
    rows = []
    for (item, seed), (x, y) in table.items():
        rows.append(
            {"method": "x", "id": item, "seed": seed, "error": "boom", "dataset": "arithmetic"}
            if x is None
            else row("x", item, x, seed=seed)
        )
        rows.append(row("y", item, y, seed=seed))
    return rows


def test_several_seeds_pair_by_item_and_seed_and_average_within_items():
    c = compare_arms(seeded_rows(), "x", "y")
    assert (c["n"], c["pairs"], c["seeds"], c["failed"]) == (3, 5, 2, 1)
    # per-item means: x 1, 1, 1/2; y 0, 1, 1/2
    assert c["accuracy_a"] == pytest.approx(5 / 6) and c["accuracy_b"] == pytest.approx(3 / 6)
    assert c["difference"] == pytest.approx(1 / 3)
    assert (c["a_only"], c["b_only"]) == (3, 1)  # (item, seed) pairs
    assert c["test"] == "sign-flip exact"
    assert c["p_value"] == 1.0  # one non-zero item mean: both signs reach |1|
    assert (c["ci_low"], c["ci_high"]) == paired_bootstrap([1.0, 0.0, 0.0])


def debate_rows() -> list[dict[str, Any]]:
    """du on four items; its round-0 vote: q0 right, q1 wrong (tie: first seen), q2 wrong."""
    return [
        row("du", "q0", True, round_answers=[["4", "4", "5"], ["4", "4", "4"]]),
        row("du", "q1", True, round_answers=[["5", "4"], ["4", "4"]]),
        row("du", "q2", False, round_answers=[["5", "5", "4"], ["5", "5", "5"]]),
        row("du", "q3", True, round_answers=[["5", "5", None], ["4", "4", "4"]]),
        {"method": "du", "id": "q4", "error": "boom", "dataset": "arithmetic"},
        row("cot", "q0", True, round_answers=[["4"]]),
        row("cot", "q1", False, round_answers=[["5"]]),
        row("sc@du", "q0", True, round_answers=[["4"] * 6], budget_of="du", budget="calls"),
        row("sc@du", "q1", False, round_answers=[["5"] * 6], budget_of="du", budget="calls"),
    ]


def test_every_debate_meets_its_round_zero_vote_and_every_budget_arm_its_debate():
    rows = debate_rows()
    assert default_pairs(rows) == [("du", "du · vote@r0", "vote"), ("du", "sc@du", "budget")]
    found = paired_comparisons(rows)
    assert [(c["a"], c["b"], c["kind"]) for c in found] == default_pairs(rows)
    vote = found[0]
    assert (vote["n"], vote["failed"]) == (4, 1)
    assert vote["accuracy_b"] == pytest.approx(1 / 4)  # only q0's round-0 majority is right
    assert (vote["a_only"], vote["b_only"]) == (2, 0)  # q1 and q3
    assert vote["p_value"] == 0.5
    budget = found[1]
    assert (budget["n"], budget["a_only"], budget["b_only"], budget["unpaired"]) == (2, 1, 0, 2)


def test_user_pairs_baseline_holm_and_refusals():
    rows = debate_rows()
    found = paired_comparisons(rows, compare=["cot:du"], baseline="cot", holm_correction=True)
    pairs = [(c["a"], c["b"]) for c in found]
    assert pairs == [("du", "du · vote@r0"), ("du", "sc@du"), ("cot", "du"), ("sc@du", "cot")]
    assert [c["p_holm"] for c in found] == pytest.approx(
        [min(1.0, 4 * found[0]["p_value"]), 1.0, 1.0, 1.0]
    )
    with pytest.raises(ValueError, match=r"no arm named 'nope' in these rows; arms present: du, "):
        paired_comparisons(rows, compare=["du:nope"])
    with pytest.raises(ValueError, match="A:B"):
        paired_comparisons(rows, compare=["du"])
    assert split_pair("pkg.mod:M:du", ["pkg.mod:M", "du"]) == ("pkg.mod:M", "du")


def test_the_round_zero_vote_the_report_shows_can_be_named_and_typed():
    rows = debate_rows()
    shown = compare_arms(rows, "cot", "du · vote@r0")
    for asked in ("cot:du · vote@r0", "cot:du@r0"):
        found = paired_comparisons(rows, compare=[asked], defaults=False)
        assert found == [{**shown, "dataset": found[0]["dataset"]}]
    assert compare_arms(rows, "cot", "du@r0") == shown
    against = paired_comparisons(rows, baseline="du@r0", defaults=False)
    assert [(c["a"], c["b"]) for c in against] == [
        ("du", "du · vote@r0"), ("cot", "du · vote@r0"), ("sc@du", "du · vote@r0")]  # fmt: skip
    # Only a debate has a round-0 vote; the refusal lists the votes there are.
    with pytest.raises(ValueError, match=r"arms present: du, cot, sc@du; round-0 votes: "
                                         r"du · vote@r0 \(du@r0\)$"):  # fmt: skip
        paired_comparisons(rows, compare=["du:cot@r0"])
    out = CliRunner().invoke(app, ["report", "--help"])
    assert "@r0" in out.output


def test_the_report_writes_the_comparisons(tmp_path):
    lines = [json.dumps(r) for r in debate_rows()]
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + "\n")
    report = write_report(tmp_path, plots=False, compare=[("du", "cot")], holm=True)
    summary = json.loads((tmp_path / "summary.json").read_text())
    keys = {"a", "b", "n", "accuracy_a", "accuracy_b", "difference", "ci_low", "ci_high",
            "a_only", "b_only", "p_value", "test", "p_holm"}  # fmt: skip
    assert [c["a"] + " / " + c["b"] for c in summary["comparisons"]] == [
        "du / du · vote@r0", "du / sc@du", "du / cot"]  # fmt: skip
    assert all(keys <= set(c) for c in summary["comparisons"])
    text = report.read_text()
    assert "## Is the difference real?" in text
    assert "p-values are Holm-adjusted over all 3 comparisons" in text
    assert "interval covers 0: no clear difference" in text
    assert "| p (Holm) |" in text


def test_report_command_refuses_an_unknown_arm_in_one_line(tmp_path):
    (tmp_path / "results.jsonl").write_text("\n".join(json.dumps(r) for r in debate_rows()) + "\n")
    result = CliRunner().invoke(app, ["report", str(tmp_path), "--no-plots", "--baseline", "sc"])
    assert result.exit_code == 2
    assert "no arm named 'sc' in these rows; arms present: du, cot, sc@du" in result.output
    assert not (tmp_path / "report.md").exists()
    ok = CliRunner().invoke(
        app, ["report", str(tmp_path), "--no-plots", "--compare", "cot:du", "--resamples", "500"]
    )
    assert ok.exit_code == 0, ok.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["comparisons"][-1]["resamples"] == 500
    assert (summary["comparisons"][-1]["a"], summary["comparisons"][-1]["b"]) == ("cot", "du")


def test_the_report_keeps_every_seed_and_pairs_by_seed(tmp_path):
    rows = [{**r, "input_tokens": 1, "output_tokens": 1, "calls": 1} for r in seeded_rows()]
    (tmp_path / "results.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    write_report(tmp_path, plots=False, compare=["x:y"])
    (found,) = json.loads((tmp_path / "summary.json").read_text())["comparisons"]
    assert (found["n"], found["pairs"], found["seeds"], found["failed"]) == (3, 5, 2, 1)
    assert found["test"] == "sign-flip exact"


def test_the_round_zero_vote_is_graded_as_vote_at_round_grades_it():
    rows = [
        *debate_rows(),
        row("du", "m0", True, task="math", reference="\\frac{1}{2}",
            round_answers=[["0.5", "1/2", "3"], ["1/2"] * 3]),
        row("du", "m1", True, round_answers=[[None, None], ["4", "4"]]),
        row("du", "m2", True, round_answers=[["4", "5", "5", "4"]]),
    ]  # fmt: skip
    du = [r for r in rows if r["method"] == "du"]
    expected = {r.id: r.correct for r in vote_at_round(du, 0)}
    assert {r["id"]: vote_is_right(r) for r in du if "error" not in r} == expected
    assert expected["m1"] is False and expected["m2"] is True  # abstentions; first-seen tie
    c = compare_arms(rows, "du", "du · vote@r0")
    assert c["accuracy_b"] == pytest.approx(sum(expected.values()) / len(expected))


def test_the_table_names_datasets_and_pairs_without_shared_items():
    rows = [row("a", "q0", True), row("b", "q1", False)]
    rows += [row("a", "q0", True, dataset="gsm8k"), row("b", "q0", False, dataset="gsm8k")]
    found = paired_comparisons(rows, compare=["a:b"])
    assert [(c["dataset"], c["n"], c["unpaired"]) for c in found] == [
        ("arithmetic", 0, 2),
        ("gsm8k", 1, 0),
    ]
    table = comparison_table(found)
    assert table.splitlines()[0].startswith("| Dataset | A | B |")
    assert "| arithmetic | a | b | asked | 0 | — | — | — (— to —) |" in table
    assert table.splitlines()[2].endswith("| no item finished by both |")
    assert table.splitlines()[3].endswith("| interval covers 0: no clear difference |")
    # One discordant item of one: the score interval reaches (1 - z²) / (1 + z²) = -58.7.
    assert "| +100.0 (-58.7 to +100.0) | 1 | 0 | 1.000 |" in table
