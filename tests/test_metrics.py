"""Metrics over result rows: Wilson interval, per-method summaries, per-round statistics."""

from __future__ import annotations

import math
from typing import Any

import pytest

from debategraph.eval.analysis.metrics import (
    accuracy_by_round,
    consensus_by_round,
    group_by,
    harness_metrics,
    initial_vote_size,
    round_answers_at,
    summarize,
    wilson_interval,
)
from debategraph.eval.log.row import RowError
from debategraph.policies.voting import unanimous


def row(method: str, item: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "method": method,
        "id": item,
        "answer": None,
        "reference": None,
        "correct": False,
        "abstained": False,
        "input_tokens": 0,
        "output_tokens": 0,
        "calls": 0,
        "ncomm": 0,
        "rounds": 0,
        "wall_s": 0.0,
        "round_answers": [],
    }
    return {**base, **fields}


# Method "du": three scored items and one failed item.
DU = [
    row(
        "du", "1", answer="5", reference="5", correct=True,
        input_tokens=100, output_tokens=50, calls=4, ncomm=2, rounds=2, wall_s=1.0,
        round_answers=[["5", "4"], ["5", "5"]],
        tokens_by_kind={
            "answer": {"input_tokens": 80, "output_tokens": 40},
            "summary": {"input_tokens": 20, "output_tokens": 10},
        },
    ),
    row(
        "du", "2", answer=None, reference="7", abstained=True,
        input_tokens=200, output_tokens=70, calls=4, ncomm=2, rounds=2, wall_s=3.0,
        round_answers=[[None, "7"], [None, None]],
        tokens_by_kind={"answer": {"input_tokens": 200, "output_tokens": 70}},
    ),
    row(
        "du", "3", answer="9", reference="9", correct=True,
        input_tokens=60, output_tokens=30, calls=2, ncomm=0, rounds=1, wall_s=2.0,
        round_answers=[["9", "9"]],  # stopped after the initial round
    ),
    {"method": "du", "id": "4", "error": "TimeoutError: model did not answer"},
]  # fmt: skip

COT = [
    row("cot", "1", answer="5", reference="5", correct=True, input_tokens=10, output_tokens=5,
        calls=1, rounds=1, wall_s=0.5),
    row("cot", "2", answer="6", reference="7", input_tokens=30, output_tokens=15,
        calls=1, rounds=1, wall_s=1.5),
]  # fmt: skip


# ----------------------------------------------------------------------------- Wilson


def test_wilson_interval_k8_n10_hand_computed() -> None:
    # p = 0.8, z = 1.96, z² = 3.8416, z²/n = 0.38416, 1 + z²/n = 1.38416
    # center = (0.8 + 3.8416/20) / 1.38416 = 0.99208 / 1.38416 = 0.716737949...
    # half   = 1.96 / 1.38416 * sqrt(0.8*0.2/10 + 3.8416/400)
    #        = 1.96 / 1.38416 * sqrt(0.016 + 0.009604) = 1.96 / 1.38416 * 0.160012499...
    #        = 0.226581102...
    # -> (0.490156846..., 0.943319052...)
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4901568467, abs=1e-9)
    assert high == pytest.approx(0.9433190520, abs=1e-9)


def test_wilson_interval_exact_closed_forms() -> None:
    # z = 2, k = 2, n = 4: p = 1/2, z²/n = 1, center = (1/2 + 1/2) / 2 = 1/2,
    # half = 2/2 * sqrt(1/16 + 4/64) = sqrt(1/8) = sqrt(2)/4.
    low, high = wilson_interval(2, 4, z=2.0)
    assert low == pytest.approx(0.5 - math.sqrt(2) / 4, abs=1e-12)
    assert high == pytest.approx(0.5 + math.sqrt(2) / 4, abs=1e-12)
    # k = 0: center = half = (z²/2n) / (1 + z²/n), so low = 0 and high = z² / (n + z²).
    assert wilson_interval(0, 10) == (0.0, pytest.approx(3.8416 / 13.8416, abs=1e-12))
    # k = n: low = n / (n + z²), high = 1.
    assert wilson_interval(10, 10) == (pytest.approx(10 / 13.8416, abs=1e-12), 1.0)


def test_wilson_interval_edge_cases() -> None:
    low, high = wilson_interval(0, 0)
    assert math.isnan(low) and math.isnan(high)
    for k, n in ((3, 2), (-1, 4), (0, -1)):
        with pytest.raises(ValueError, match="0 <= k <= n"):
            wilson_interval(k, n)


# ----------------------------------------------------------------------------- rounds


def test_unanimous() -> None:
    assert unanimous(["a", "a", "a"])
    assert unanimous(["a"])
    assert not unanimous(["a", "b"])
    assert not unanimous([None, None])
    assert not unanimous(["a", None])
    assert not unanimous([])


def test_round_answers_carry_forward() -> None:
    assert round_answers_at(DU[2], 0) == ["9", "9"]
    assert round_answers_at(DU[2], 3) == ["9", "9"]
    assert round_answers_at(DU[0], 1) == ["5", "5"]
    assert round_answers_at(COT[0], 0) is None


def test_consensus_and_accuracy_by_round() -> None:
    scored = DU[:3]
    # round 0: [5,4] no, [None,7] no, [9,9] yes -> 1/3
    # round 1: [5,5] yes, [None,None] no, [9,9] carried -> 2/3
    assert consensus_by_round(scored) == pytest.approx([1 / 3, 2 / 3])
    # round 0 majority (first-seen tie-break): 5 (tie 5/4 -> 5) ok, 7 ok, 9 ok -> 1
    # round 1: 5 ok, all abstain -> wrong, 9 ok -> 2/3
    assert accuracy_by_round(scored) == pytest.approx([1.0, 2 / 3])
    assert consensus_by_round(COT) == [] and accuracy_by_round(COT) == []


def test_maj_at_k_is_the_initial_rounds_vote_under_the_harness_name() -> None:
    du = summarize(DU)["du"]
    # k = 2 answers in every initial round; their votes (see above) are all right.
    assert (du["vote_k"], du["maj_at_k"]) == (2, 1.0)
    assert harness_metrics(du) == {"maj@2": 1.0}
    # sc with 3 samples and no debate: its accuracy is maj@3.
    sc = [
        row("sc", "1", answer="5", reference="5", correct=True, round_answers=[["5", "4", "5"]]),
        row("sc", "2", answer="6", reference="7", round_answers=[["6", "7", None]]),
        row("sc", "3", answer="8", reference="8", correct=True, round_answers=[["8", "1", "2"]]),
    ]  # fmt: skip
    s = summarize(sc)["sc"]
    assert s["maj_at_k"] == s["accuracy"] == pytest.approx(2 / 3)
    assert harness_metrics(s) == {"maj@3": pytest.approx(2 / 3)}
    # sc@du's budgets differ per item: no single k, so no harness name.
    budget = [row("sc@du", "1", round_answers=[["5"] * 4]), row("sc@du", "2",
              round_answers=[["5"] * 6])]  # fmt: skip
    assert initial_vote_size(budget) is None
    m = summarize(budget)["sc@du"]
    assert m["vote_k"] is None and math.isnan(m["maj_at_k"]) and harness_metrics(m) == {}
    assert initial_vote_size(COT) is None  # no round answers recorded


# ----------------------------------------------------------------------------- summarize


def test_summarize_per_method_exact_values() -> None:
    summary = summarize(DU + COT, prices={"input": 0.001, "output": 0.002})
    assert list(summary) == ["du", "cot"]
    du = summary["du"]
    assert (du["n"], du["failed"], du["correct"], du["abstained"]) == (3, 1, 2, 1)
    assert du["accuracy"] == pytest.approx(2 / 3)
    assert (du["ci_low"], du["ci_high"]) == pytest.approx(wilson_interval(2, 3))
    assert du["abstention_rate"] == pytest.approx(1 / 3)
    # tokens: 100+200+60 = 360 in, 50+70+30 = 150 out; the failed row adds nothing
    assert (du["input_tokens"], du["output_tokens"], du["total_tokens"]) == (360, 150, 510)
    assert du["input_tokens_per_item"] == 120
    assert du["output_tokens_per_item"] == 50
    assert du["total_tokens_per_item"] == 170
    assert (du["calls"], du["ncomm"]) == (10, 4)
    assert du["calls_per_item"] == pytest.approx(10 / 3)
    assert du["ncomm_per_item"] == pytest.approx(4 / 3)
    assert du["input_tokens_per_call"] == 36.0  # 360 / 10
    assert du["rounds_mean"] == pytest.approx(5 / 3)
    assert (du["wall_s_total"], du["wall_s_mean"]) == (6.0, 2.0)
    assert du["cost"] == pytest.approx(0.66)  # 360 * 0.001 + 150 * 0.002
    assert du["cost_per_item"] == pytest.approx(0.22)
    assert du["consensus_by_round"] == pytest.approx([1 / 3, 2 / 3])
    assert du["accuracy_by_round"] == pytest.approx([1.0, 2 / 3])
    assert du["tokens_by_kind"] == {
        "answer": {"input_tokens": 280, "output_tokens": 110},
        "summary": {"input_tokens": 20, "output_tokens": 10},
    }
    cot = summary["cot"]
    assert (cot["n"], cot["failed"], cot["accuracy"]) == (2, 0, 0.5)
    assert cot["input_tokens_per_call"] == 20.0
    assert cot["tokens_by_kind"] == {}


def test_summarize_without_prices_and_all_failed() -> None:
    failed = [{"method": "m", "id": "1", "error": "boom"}, {"method": "m", "id": "2", "error": "x"}]
    summary = summarize(COT + failed)
    assert summary["cot"]["cost"] is None and summary["cot"]["cost_per_item"] is None
    m = summary["m"]
    assert (m["n"], m["failed"], m["correct"]) == (0, 2, 0)
    assert math.isnan(m["accuracy"]) and math.isnan(m["ci_low"])
    assert math.isnan(m["input_tokens_per_call"])
    assert m["consensus_by_round"] == []


def test_missing_counters_count_as_zero_and_bad_prices() -> None:
    sparse = [{"method": "m", "id": "1", "correct": True, "input_tokens": None}]
    m = summarize(sparse)["m"]
    assert (m["n"], m["accuracy"], m["input_tokens"], m["calls"]) == (1, 1.0, 0, 0)
    with pytest.raises(ValueError, match="'input' and 'output'"):
        summarize(sparse, prices={"prompt": 1.0})


def test_a_counter_of_another_type_is_refused_naming_the_field() -> None:
    """A row is checked against its declaration: a counter is an integer (null: absent)."""
    with pytest.raises(RowError, match=r"Expected `int`, got `str` - at `\$.input_tokens`"):
        summarize([{"method": "m", "id": "1", "correct": True, "input_tokens": "12"}])


# ----------------------------------------------------------------------------- answer sources


def test_answer_sources_rates_over_rows_that_record_them() -> None:
    rows = [
        row("m", "1", answer_sources={"declared": 4, "fallback": 1, "none": 1}),
        row("m", "2", answer_sources={"declared": 2, "fallback": 0, "none": 0}),
        row("m", "3"),  # no key: unknown, not zero
        {"method": "m", "id": "4", "error": "boom", "answer_sources": {"fallback": 9}},
    ]
    m = summarize(rows)["m"]
    assert m["answer_sources"] == {"declared": 6, "fallback": 1, "none": 1, "cut_off": 0}
    assert (m["answer_sources_rows"], m["answer_turns"], m["n"]) == (2, 8, 3)
    assert m["fallback_rate"] == 1 / 8
    assert m["turn_abstention_rate"] == 1 / 8


def test_answer_sources_unknown_when_no_row_records_them() -> None:
    m = summarize([row("m", "1"), row("m", "2")])["m"]
    assert m["answer_sources"] is None
    assert (m["answer_sources_rows"], m["answer_turns"]) == (0, None)
    assert math.isnan(m["fallback_rate"]) and math.isnan(m["turn_abstention_rate"])
    # A recorded mapping with missing sources counts them as 0; zero turns give NaN rates.
    z = summarize([row("z", "1", answer_sources={"declared": 0})])["z"]
    assert z["answer_sources"] == {"declared": 0, "fallback": 0, "none": 0, "cut_off": 0}
    assert z["answer_turns"] == 0 and math.isnan(z["fallback_rate"])


def test_accuracy_by_round_grades_math_symbolically() -> None:
    pytest.importorskip("math_verify")
    # Round 0 majority: \frac{\sqrt{2}}{2}, equal to the reference 1/\sqrt{2}; round 1: 2.
    math_row = row(
        "m", "1", task="math", reference=r"\frac{1}{\sqrt{2}}",
        round_answers=[[r"\frac{\sqrt{2}}{2}", r"\frac{\sqrt{2}}{2}", "2"], ["2", "2", "1"]],
    )  # fmt: skip
    assert accuracy_by_round([math_row]) == [1.0, 0.0]
    # Without a task the same keys are compared as strings (number tasks): no match.
    plain = {k: v for k, v in math_row.items() if k != "task"}
    assert accuracy_by_round([plain]) == [0.0, 0.0]


def test_group_by_any_key_of_json_objects_and_a_declared_field_of_typed_rows() -> None:
    rows = [{"method": "du", "id": "q1", "model": "a"}, {"method": "du", "id": "q2"},
            {"method": "sc", "id": "q3", "model": "b", "seed": 1}]  # fmt: skip
    by_model = group_by(rows, "model", default="none")
    assert {label: [r.id for r in group] for label, group in by_model.items()} == {
        "a": ["q1"], "none": ["q2"], "b": ["q3"]}  # fmt: skip
    assert list(by_model) == ["a", "none", "b"]  # first-seen order
    typed = [row for group in by_model.values() for row in group]
    assert [r.method for r in typed] == ["du", "du", "sc"]
    assert {k: [r.id for r in g] for k, g in group_by(typed, "seed", "-").items()} == {
        "-": ["q1", "q2"], "1": ["q3"]}  # fmt: skip
    with pytest.raises(ValueError, match="a row has no field 'model': group by one of"):
        group_by(typed, "model")  # a typed row keeps declared fields only
