"""The transition ledger, oracle gap, conformity and vulnerability on hand-built rows."""

from __future__ import annotations

import math
from typing import Any

import pytest

from debategraph.eval.analysis.stats import paired_score_interval
from debategraph.eval.analysis.summary_fields import wilson_interval
from debategraph.eval.analysis.transitions import (
    ledger_kind,
    modal_answer,
    transitions_by_arm,
    transitions_of,
)


def _row(rounds: list[list[str | None]], correct: bool, **extra: Any) -> dict[str, Any]:
    return {
        "method": "du",
        "dataset": "toy",
        "id": "/".join(",".join(map(str, r)) for r in rounds),
        "task": "number",
        "reference": "1",
        "round_answers": rounds,
        "correct": correct,
        "answer": rounds[-1][0],
        "input_tokens": 10 * len(rounds),
        "output_tokens": len(rounds),
        "calls": 3 * len(rounds),
        **extra,
    }


ROWS = [
    # collapse: the right majority breaks in round 1 and stays broken
    _row([["1", "1", "2"], ["1", "2", "2"], ["2", "2", "2"]], False),
    # correction
    _row([["2", "2", "1"], ["1", "1", "2"], ["1", "1", "1"]], True),
    # preserved, unanimous
    _row([["1", "1", "1"], ["1", "1", "1"]], True),
    # unrepaired; the right answer never appears
    _row([["2", "3", "3"], ["3", "3", "3"]], False),
    # preserved, but the right majority broke in round 1 and came back
    _row([["1", "1", "2"], ["2", "2", "1"], ["1", "1", "1"]], True),
    {"method": "du", "dataset": "toy", "id": "x", "error": "Boom"},
]


@pytest.mark.parametrize(
    ("initial", "final", "kind"),
    [
        (True, True, "preserved"),
        (True, False, "collapse"),
        (False, True, "correction"),
        (False, False, "unrepaired"),
    ],
)
def test_ledger_kind(initial, final, kind):
    assert ledger_kind(initial, final) == kind


def test_modal_answer_needs_one_most_common_answer():
    assert modal_answer(["2", "2", "1"]) == "2"
    assert modal_answer(["2", "1"]) is None
    assert modal_answer([None, None, "3"]) == "3"
    assert modal_answer([None]) is None


def test_the_ledger_counted_by_hand():
    out = transitions_of(ROWS)
    assert out["items"] == 5
    assert out["ledger"] == {"preserved": 2, "collapse": 1, "correction": 1, "unrepaired": 1}
    assert out["initial_majority_accuracy"] == 3 / 5
    assert out["final_majority_accuracy"] == 3 / 5
    assert out["collapse_rate"]["k"] == 1 and out["collapse_rate"]["n"] == 3
    assert out["collapse_rate"]["interval"] == list(wilson_interval(1, 3))
    assert out["correction_rate"]["rate"] == 1 / 2
    assert out["collapse_onset"] == {"1": 1}
    assert out["broke_and_recovered"] == 1
    net = out["net"]
    assert (net["a_only"], net["b_only"], net["n"], net["difference"]) == (1, 1, 5, 0.0)
    assert net["interval"] == list(paired_score_interval(1, 1, 5))
    assert net["p_value"] == 1.0


def test_the_oracle_gap_counted_by_hand():
    oracle = transitions_of(ROWS)["oracle"]
    assert oracle["pool_accuracy"]["k"] == 4
    assert oracle["final_accuracy"]["k"] == 3
    gap = oracle["gap"]
    assert (gap["a_only"], gap["b_only"], gap["difference"]) == (1, 0, pytest.approx(0.2))


def test_conformity_and_vulnerability_when_everyone_reads_everyone():
    out = transitions_of(ROWS)
    # Worked through round by round in the rows above: a tie among the peers read has no
    # modal answer, and an agent already holding the modal answer has nothing to adopt.
    assert (out["conformity"]["k"], out["conformity"]["n"]) == (5, 7)
    assert (out["vulnerability"]["k"], out["vulnerability"]["n"]) == (5, 12)
    assert out["reads_known"] == 0
    assert out["conformity"]["by_peer"] == {}


def _turn(tid: str, agent: str, k: int, answer: str, reads: list[str]) -> dict[str, Any]:
    return {"id": tid, "agent": agent, "round": k, "kind": "answer", "answer": answer,
            "reads": reads}  # fmt: skip


def test_the_turns_say_who_read_whom():
    turns = [
        _turn("r0:a1", "a1", 0, "1", []),
        _turn("r0:a2", "a2", 0, "2", []),
        _turn("r0:a3", "a3", 0, "1", []),
        _turn("r1:a1", "a1", 1, "2", ["r0:a2"]),  # right, reads a wrong peer, goes wrong
        _turn("r1:a2", "a2", 1, "1", ["r0:a3"]),  # wrong, reads a right peer, adopts it
        _turn("r1:a3", "a3", 1, "1", ["r0:a1"]),  # reads its own answer: nothing to adopt
    ]
    row = _row(
        [["1", "2", "1"], ["2", "1", "1"]],
        True,
        turns=turns,
        agent_names=["a1", "a2", "a3"],
        agent_models=["m1", "m2", "m3"],
    )
    out = transitions_of([row])
    assert out["reads_known"] == 1
    assert (out["conformity"]["k"], out["conformity"]["n"]) == (2, 2)
    assert {p: (c["k"], c["n"]) for p, c in out["conformity"]["by_peer"].items()} == {
        "a2 (m2)": (1, 1),
        "a3 (m3)": (1, 1),
    }
    assert (out["vulnerability"]["k"], out["vulnerability"]["n"]) == (1, 2)
    assert {p: (c["k"], c["n"]) for p, c in out["vulnerability"]["by_peer"].items()} == {
        "a1 (m1)": (0, 1),
        "a2 (m2)": (1, 1),
    }


def test_turns_without_their_reads_fall_back_to_everyone_reading_everyone():
    answers = [["1", "2", "1"], ["2", "1", "1"]]
    turns = [{k: v for k, v in t.items() if k != "reads"} for t in [
        _turn("r0:a1", "a1", 0, "1", []), _turn("r0:a2", "a2", 0, "2", []),
        _turn("r0:a3", "a3", 0, "1", []), _turn("r1:a1", "a1", 1, "2", []),
        _turn("r1:a2", "a2", 1, "1", []), _turn("r1:a3", "a3", 1, "1", []),
    ]]  # fmt: skip
    cut = _row(answers, True, turns=turns, agent_names=["a1", "a2", "a3"])
    plain = _row(answers, True)
    out, expected = transitions_of([cut]), transitions_of([plain])
    assert out["reads_known"] == 0
    assert (out["conformity"]["k"], out["conformity"]["n"]) == (
        expected["conformity"]["k"],
        expected["conformity"]["n"],
    )


def test_only_debating_arms_get_transitions():
    vote = [{**_row([["1", "2", "1"]], True), "method": "mav"}]
    out = transitions_by_arm(vote + ROWS)
    assert list(out) == ["du"]
    empty = transitions_of([])
    assert empty["items"] == 0 and math.isnan(empty["net"]["difference"])


def test_report_and_summary_carry_the_transitions(tmp_path):
    import json

    from debategraph.eval.report.writer import write_report

    lines = [json.dumps({**r, "source": "simulated"}) for r in ROWS]
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + "\n")
    report = write_report(tmp_path, plots=False).read_text()
    assert "## Why did debate help or hurt?" in report
    assert "| du | 5 | 2 | 1 | 1 | 1 | +0.0 [" in report
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["transitions"]["du"]["ledger"]["collapse"] == 1
    assert summary["transitions"]["du"]["collapse_onset"] == {"1": 1}
