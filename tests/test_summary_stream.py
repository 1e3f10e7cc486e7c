"""The per-method summary (MethodTally, in one pass) against figures counted by hand."""

from __future__ import annotations

import json
import math
import sys
import weakref
from pathlib import Path
from typing import Any

from debategraph.eval.analysis.dynamics import FLIPS
from debategraph.eval.analysis.metrics import (
    MethodSummary,
    summarize,
    summarize_method,
    wilson_interval,
)
from debategraph.eval.analysis.summary_stream import MethodTally, summarize_stream
from debategraph.eval.log.row import as_row
from debategraph.eval.log.store import read_rows

PRICES = {"input": 2e-6, "output": 8e-6, "cached_input": 5e-7}


def _paid(calls: int, inputs: int, outputs: int, **extra: Any) -> dict[str, Any]:
    return {"calls": calls, "input_tokens": inputs, "output_tokens": outputs, **extra}


ROWS: list[dict[str, Any]] = [
    # du, seed 0: three rounds, a wrong-to-right flip, a provider cache and reasoning tokens.
    {"method": "du", "dataset": "gsm8k", "id": "a", "seed": 0, "answer": "4", "reference": "4",
     "correct": True, "abstained": False, "input_tokens": 300, "output_tokens": 90, "calls": 9,
     "ncomm": 12, "rounds": 2, "wall_s": 1.25,
     "round_answers": [["4", "5", None], ["4", "4", "5"], ["4", "4", "4"]],
     "tokens_by_kind": {"answer": {"input_tokens": 300, "output_tokens": 90}},
     "answer_sources": {"declared": 8, "fallback": 1, "none": 0}, "requests": 10,
     "failed_requests": 1, "wasted_input_tokens": 30, "wasted_output_tokens": 7,
     "usage_by_source": {"paid": _paid(9, 300, 90, cached_input_tokens=120,
                                       reasoning_tokens=40, latency_s=2.5)},
     "turns": [{"round": 0, "input_tokens": 20, "output_tokens": 10},
               {"round": 1, "input_tokens": 50, "output_tokens": 10}]},
    # du, seed 0: stopped after round 0 (carried forward), agents agree on a wrong answer.
    {"method": "du", "dataset": "gsm8k", "id": "b", "seed": 0, "answer": "7", "reference": "8",
     "correct": False, "abstained": False, "input_tokens": 100, "output_tokens": 30, "calls": 3,
     "ncomm": 0, "rounds": 0, "wall_s": 0.5, "round_answers": [["7", "7", "7"]],
     "tokens_by_kind": {"answer": {"input_tokens": 100, "output_tokens": 30}},
     "requests": 3, "failed_requests": 0, "cached_calls": 2,
     "usage_by_source": {"paid": _paid(1, 40, 10, latency_s=0.75),
                         "cached": {"calls": 2, "input_tokens": 60, "output_tokens": 20,
                                    "latency_s": 1.125}},
     "turns": [{"round": 0, "input_tokens": 33, "output_tokens": 10}]},
    # du, seed 1, the same item as the first: two seeds, one item.
    {"method": "du", "dataset": "gsm8k", "id": "a", "seed": 1, "answer": None, "reference": "4",
     "correct": False, "abstained": True, "input_tokens": 200, "output_tokens": 60, "calls": 6,
     "ncomm": 6, "rounds": 1, "wall_s": 2,
     "round_answers": [["4", "3", "3"], [None, None, "3"]],
     "tokens_by_kind": {"answer": {"input_tokens": 180, "output_tokens": 50},
                        "summary": {"input_tokens": 20, "output_tokens": 10}},
     "answer_sources": {"declared": 3, "none": 3}, "requests": 6, "failed_requests": 0,
     "cached_input_tokens": 50},
    # du, seed 1: a failed row that paid for replies it did not keep.
    {"method": "du", "dataset": "gsm8k", "id": "b", "seed": 1, "error": "TimeoutError: slow",
     "requests": 4, "failed_requests": 4, "wasted_input_tokens": 80, "wasted_output_tokens": 20,
     "input_tokens": 999, "calls": 9},
    # du, no seed, another dataset, a math answer graded symbolically.
    {"method": "du", "dataset": "math", "id": "a", "task": "math", "answer": "1/2",
     "reference": "0.5", "correct": True, "abstained": False, "input_tokens": 150,
     "output_tokens": 45, "calls": 6, "ncomm": 6, "rounds": 1, "wall_s": 0.375,
     "round_answers": [["1/2", "2/4", "0.5"], ["1/2", "1/2", "1/2"]]},
    # A gated method: passed and debated, passed and stopped at round 0, held back, failed.
    {"method": "sid-et", "id": "a", "answer": "4", "reference": "4", "correct": True,
     "input_tokens": 80, "output_tokens": 20, "calls": 4, "rounds": 1, "wall_s": 0.25,
     "gate": {"rule": "disagree", "fired": True}, "round_answers": [["4", "5"], ["4", "4"]]},
    {"method": "sid-et", "id": "b", "answer": "8", "reference": "8", "correct": True,
     "input_tokens": 40, "output_tokens": 10, "calls": 2, "rounds": 0, "wall_s": 0.125,
     "gate": {"rule": "disagree", "fired": True}, "round_answers": [["8", "8"]]},
    {"method": "sid-et", "id": "c", "answer": "2", "reference": "3", "correct": False,
     "input_tokens": 40, "output_tokens": 10, "calls": 2, "rounds": 0, "wall_s": 0.125,
     "gate": {"rule": "disagree", "fired": False}, "round_answers": [["2", "2"]]},
    {"method": "sid-et", "id": "d", "error": "ValueError: bad", "gate": {"rule": "x"}},
    # A screening arm: settled and contested items, a single agent (no consensus).
    {"method": "cot", "id": "a", "answer": "4", "reference": "4", "correct": True,
     "input_tokens": 10, "output_tokens": 5, "calls": 1, "wall_s": 0.0625,
     "screen": {"settled": True}, "round_answers": [["4"]]},
    {"method": "cot", "id": "b", "answer": "9", "reference": "8", "correct": False,
     "input_tokens": 10, "output_tokens": 5, "calls": 1, "wall_s": 0.0625,
     "screen": {"settled": False}, "round_answers": [["9"]]},
    {"method": "cot", "id": "c", "answer": "3", "reference": "3", "correct": True,
     "input_tokens": 10, "output_tokens": 5, "calls": 1, "wall_s": 0.0625,
     "screen": {"settled": False}, "round_answers": [["3"]]},
    # A budget-matched arm: vote sizes differ per item (no maj@k), a pricing sample unkept.
    {"method": "sc@du~tokens", "id": "a", "answer": "4", "reference": "4", "correct": True,
     "input_tokens": 90, "output_tokens": 30, "calls": 3, "rounds": 0, "wall_s": 0.5,
     "round_answers": [["4", "4", "5"]], "wasted_input_tokens": 30,
     "wasted_output_tokens": 10, "requests": 4, "failed_requests": 0, "budget": {"k": 3}},
    {"method": "sc@du~tokens", "id": "b", "answer": "8", "reference": "8", "correct": True,
     "input_tokens": 150, "output_tokens": 50, "calls": 5, "rounds": 0, "wall_s": 0.75,
     "round_answers": [["8", "1", "8", "2", "1"]], "budget": {"k": 5}},
    # No rounds recorded, counters and wall time missing.
    {"method": "plain", "id": "a", "answer": "1", "reference": "1", "correct": True,
     "input_tokens": 0, "output_tokens": 4, "calls": 1, "round_answers": []},
]  # fmt: skip


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _close(got: Any, want: Any, where: str = "") -> None:
    """Equal, floats to 1e-12 relative and NaN equal to NaN; dicts with the same keys."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), where
        for key, value in want.items():
            _close(got[key], value, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for k, (a, b) in enumerate(zip(got, want, strict=True)):
            _close(a, b, f"{where}[{k}]")
    elif isinstance(want, float):
        assert isinstance(got, float), where
        assert (math.isnan(got) and math.isnan(want)) or math.isclose(
            got, want, rel_tol=1e-12, abs_tol=1e-15
        ), f"{where}: {got} != {want}"
    else:
        assert got == want and type(got) is type(want), f"{where}: {got!r} != {want!r}"


NAN = float("nan")


def _flips(**counts: int) -> dict[str, int]:
    return {kind: counts.get(kind, 0) for kind in FLIPS}


def _round(k: int, items: int, majority: int, right: int, answers: int, **flips: int) -> Any:
    """Round ``k`` of ``items`` rows: right majorities, right answers of ``answers``."""
    return {"round": k, "items": items, "majority_accuracy": majority / items,
            "agents_right": right / answers, "answers": answers if k else 0,
            "flips": _flips(**flips)}  # fmt: skip


def _bill(calls: int, inputs: int, outputs: int, **extra: Any) -> dict[str, Any]:
    bill = {"paid_calls": calls, "cached_calls": 0, "input_tokens": inputs,
            "output_tokens": outputs, "cached_input_tokens": None, "reasoning_tokens": None,
            "cached_call_tokens": 0, "unkept_input_tokens": 0, "unkept_output_tokens": 0,
            "latency_s_per_call": NAN, "cached_latency_s": 0.0}  # fmt: skip
    return {**bill, **extra}


def _seeds(*per_seed: tuple[int | None, int, int]) -> dict[str, Any]:
    accuracies = [c / n for _, n, c in per_seed]
    mean = sum(accuracies) / len(accuracies)
    sd = None
    if len(accuracies) > 1:
        sd = math.sqrt(sum((a - mean) ** 2 for a in accuracies) / (len(accuracies) - 1))
    return {"n": len(per_seed), "mean": mean, "sd": sd, "min": min(accuracies),
            "max": max(accuracies),
            "accuracies": [{"seed": seed, "items": n, "correct": c, "accuracy": c / n}
                           for seed, n, c in per_seed]}  # fmt: skip


def _expected(
    method: str,
    n: int,
    failed: int,
    correct: int,
    abstained: int,
    items: int,
    counts: tuple[int, int, int, int, int],
    wall: float,
    cost: float | None,
    rounds: list[Any],
    consensus: list[float],
    vote_k: int | None,
    bill: dict[str, Any],
    seeds: dict[str, Any],
    **rest: Any,
) -> dict[str, Any]:
    """A summary from hand-counted totals; the means and rates are derived from them here."""
    inputs, outputs, calls, ncomm, rounds_sum = counts
    by_round = [r["majority_accuracy"] for r in rounds]
    low, high = wilson_interval(correct * items / n if items < n else correct, min(n, items))
    flips = _flips(**{k: sum(r["flips"][k] for r in rounds) for k in FLIPS})
    vote0 = {"n": 0, "correct": 0, "accuracy": NAN, "final_accuracy": NAN,
             "tokens_per_item": None, "calls_per_item": None}  # fmt: skip
    if rounds:
        right0 = round(rounds[0]["majority_accuracy"] * n)
        vote0 = {**vote0, "n": n, "correct": right0, "accuracy": right0 / n,
                 "final_accuracy": correct / n}  # fmt: skip
    summary = {
        "method": method, "n": n, "failed": failed, "correct": correct,
        "accuracy": correct / n, "ci_low": low, "ci_high": high, "abstained": abstained,
        "abstention_rate": abstained / n, "input_tokens": inputs, "output_tokens": outputs,
        "total_tokens": inputs + outputs, "input_tokens_per_item": inputs / n,
        "output_tokens_per_item": outputs / n, "total_tokens_per_item": (inputs + outputs) / n,
        "calls": calls, "calls_per_item": calls / n, "input_tokens_per_call": inputs / calls,
        "ncomm": ncomm, "ncomm_per_item": ncomm / n, "rounds_mean": rounds_sum / n,
        "consensus_by_round": consensus, "accuracy_by_round": by_round, "vote_k": vote_k,
        "maj_at_k": by_round[0] if vote_k is not None else NAN, "wall_s_total": wall,
        "wall_s_mean": wall / n, "cost": cost,
        "cost_per_item": None if cost is None else cost / n,
        "cached_calls": bill["cached_calls"], "bill": bill, "tokens_by_kind": {},
        "answer_sources": None, "answer_sources_rows": 0, "reasoning_tokens": None,
        "answer_turns": None,
        "requests": None, "failed_requests": 0, "wasted_tokens": 0, "failed_item_tokens": 0,
        "fallback_rate": NAN, "turn_abstention_rate": NAN, "round_stats": rounds,
        "flips": flips, "vote_at_round0": vote0, "gate": None, "screen": None,
        "seeds": seeds,
    }  # fmt: skip
    assert set(rest) <= set(summary)
    return {**summary, **rest}


def _dollars(inputs: int, cached: int, outputs: int) -> float:
    """Input, provider-cached input and output tokens at PRICES."""
    return inputs * PRICES["input"] + cached * PRICES["cached_input"] + outputs * PRICES["output"]


def _hand_counted(priced: bool) -> dict[str, dict[str, Any]]:
    """Every figure of ROWS' summary, counted by hand from the rows above.

    du: rows a0, b0, a1 (seed 1) and the math row are scored; b1 failed. Round answers graded
    right (first-seen majority in brackets): a0 r0 [4 5 -] 1 (4 right), r1 [4 4 5] 2, r2 3;
    b0 [7 7 7] 0 (wrong) in every round; a1 r0 [4 3 3] 1 (3 wrong), r1 [- - 3] 0 (wrong);
    math r0 [1/2 2/4 0.5] 3 (1/2 right), r1 3. Unanimous: b0 always, math from r1, a0 at r2.
    """
    du_bill = _bill(9 + 1 + 6 + 6, 300 + 40 + 200 + 150, 90 + 10 + 60 + 45,
                    cached_calls=2, cached_input_tokens=120 + 50, reasoning_tokens=40,
                    cached_call_tokens=60 + 20, unkept_input_tokens=30 + 80,
                    unkept_output_tokens=7 + 20, latency_s_per_call=(2.5 + 0.75) / (9 + 1),
                    cached_latency_s=1.125)  # fmt: skip
    du = _expected(
        "du", n=4, failed=1, correct=2, abstained=1, items=3,
        counts=(300 + 100 + 200 + 150, 90 + 30 + 60 + 45, 9 + 3 + 6 + 6, 12 + 0 + 6 + 6,
                2 + 0 + 1 + 1),
        wall=1.25 + 0.5 + 2 + 0.375,
        cost=_dollars(690 - 170 + 110, 170, 205 + 27) if priced else None,
        rounds=[_round(0, 4, 2, 1 + 0 + 1 + 3, 12),
                _round(1, 4, 2, 2 + 0 + 0 + 3, 12, wrong_to_right=1, abstain_to_wrong=1,
                       right_to_abstain=1, wrong_to_abstain=1),
                _round(2, 4, 2, 3 + 0 + 0 + 3, 12, wrong_to_right=1)],
        consensus=[1 / 4, 2 / 4, 3 / 4], vote_k=3, bill=du_bill,
        seeds=_seeds((None, 1, 1), (0, 2, 1), (1, 1, 0)),
        tokens_by_kind={"answer": {"input_tokens": 300 + 100 + 180, "output_tokens": 90 + 30 + 50},
                        "summary": {"input_tokens": 20, "output_tokens": 10}},
        answer_sources={"declared": 8 + 3, "fallback": 1, "none": 3, "cut_off": 0},
        answer_sources_rows=2,
        answer_turns=15, fallback_rate=1 / 15, turn_abstention_rate=3 / 15,
        requests=10 + 3 + 6 + 4, failed_requests=1 + 4, wasted_tokens=37 + 100,
        failed_item_tokens=100,
    )  # fmt: skip
    # sid-et: a r0 [4 5] 1 right (4), r1 [4 4] 2; b [8 8] 2; c [2 2] 0 (3 is right).
    sid = _expected(
        "sid-et", n=3, failed=1, correct=2, abstained=0, items=3,
        counts=(160, 40, 8, 0, 1), wall=0.5,
        cost=_dollars(160, 0, 40) if priced else None,
        rounds=[_round(0, 3, 2, 1 + 2 + 0, 6), _round(1, 3, 2, 2 + 2 + 0, 6, wrong_to_right=1)],
        consensus=[2 / 3, 3 / 3], vote_k=2, bill=_bill(8, 160, 40), seeds=_seeds((None, 3, 2)),
        gate={"rule": "disagree", "items": 3, "passed": 2, "debated": 1},
    )  # fmt: skip
    cot = _expected(
        "cot", n=3, failed=0, correct=2, abstained=0, items=3, counts=(30, 15, 3, 0, 0),
        wall=3 * 0.0625, cost=_dollars(30, 0, 15) if priced else None,
        rounds=[_round(0, 3, 2, 2, 3)], consensus=[NAN], vote_k=1, bill=_bill(3, 30, 15),
        seeds=_seeds((None, 3, 2)),
        screen={"items": 3, "settled": 1, "contested_accuracy": 1 / 2},
    )  # fmt: skip
    # sc@du~tokens: a [4 4 5] 2 right (4); b [8 1 8 2 1] 2 right (8 ties 1, seen first).
    budget = _expected(
        "sc@du~tokens", n=2, failed=0, correct=2, abstained=0, items=2,
        counts=(240, 80, 8, 0, 0), wall=1.25,
        cost=_dollars(240 + 30, 0, 80 + 10) if priced else None,
        rounds=[_round(0, 2, 2, 2 + 2, 3 + 5)], consensus=[0.0], vote_k=None,
        bill=_bill(8, 240, 80, unkept_input_tokens=30, unkept_output_tokens=10),
        seeds=_seeds((None, 2, 2)), requests=4, wasted_tokens=40,
    )  # fmt: skip
    plain = _expected(
        "plain", n=1, failed=0, correct=1, abstained=0, items=1, counts=(0, 4, 1, 0, 0),
        wall=0.0, cost=_dollars(0, 0, 4) if priced else None, rounds=[], consensus=[],
        vote_k=None, bill=_bill(1, 0, 4), seeds=_seeds((None, 1, 1)),
    )  # fmt: skip
    return {s["method"]: s for s in (du, sid, cot, budget, plain)}


def test_every_summary_figure_of_varied_rows_is_the_hand_counted_one(tmp_path):
    path = _write(tmp_path / "results.jsonl", ROWS)
    assert len(list(read_rows(path))) == len(ROWS)  # the file keeps every row
    for prices in (None, PRICES):
        want = _hand_counted(priced=prices is not None)
        for got in (
            summarize(list(read_rows(path)), prices),
            summarize_stream(read_rows(path), prices),
        ):
            assert list(got) == ["du", "sid-et", "cot", "sc@du~tokens", "plain"]
            for method, summary in got.items():
                assert list(summary) == list(MethodSummary.__annotations__)
                _close(summary, want[method], method)
        du_rows = [row for row in ROWS if row["method"] == "du"]
        _close(summarize_method("du", du_rows, prices), want["du"], "du")


def test_the_fixture_reaches_every_branch_the_summary_has(tmp_path):
    """The branches the rows above reach, each named beside its figure."""
    got = summarize_stream(read_rows(_write(tmp_path / "r.jsonl", ROWS)), PRICES)
    du = got["du"]
    assert (du["n"], du["failed"], du["correct"], du["abstained"]) == (4, 1, 2, 1)
    # Three distinct items among four scored rows: the interval counts items.
    assert (du["ci_low"], du["ci_high"]) == wilson_interval(2 * 3 / 4, 3)
    assert du["wall_s_total"] == 4.125
    assert [s["items"] for s in du["round_stats"]] == [4, 4, 4]
    # Round 2: "b" carries round 0, the seed-1 row carries round 1 ([None, None, "3"]).
    assert du["round_stats"][1]["flips"]["wrong_to_right"] == 1
    assert du["round_stats"][1]["flips"]["right_to_abstain"] == 1
    assert du["round_stats"][1]["flips"]["wrong_to_abstain"] == 1
    assert du["round_stats"][2]["flips"]["wrong_to_right"] == 1
    assert du["round_stats"][2]["answers"] == 12
    assert du["consensus_by_round"] == [0.25, 0.5, 0.75]
    assert du["accuracy_by_round"] == [0.5, 0.5, 0.5]  # round 0 of "a": a tie, first seen
    assert du["vote_k"] == 3
    assert du["vote_at_round0"]["tokens_per_item"] is None  # two of four rows keep turns
    assert du["bill"]["cached_input_tokens"] == 170
    assert du["bill"]["unkept_input_tokens"] == 110
    assert du["bill"]["latency_s_per_call"] == 3.25 / 10
    assert (du["requests"], du["failed_requests"], du["wasted_tokens"]) == (23, 5, 137)
    assert du["failed_item_tokens"] == 100
    assert du["answer_sources"] == {"declared": 11, "fallback": 1, "none": 3, "cut_off": 0}
    assert [(s["seed"], s["items"], s["correct"]) for s in du["seeds"]["accuracies"]] == [
        (None, 1, 1),
        (0, 2, 1),
        (1, 1, 0),
    ]
    assert got["sid-et"]["gate"] == {"rule": "disagree", "items": 3, "passed": 2, "debated": 1}
    assert got["cot"]["screen"] == {"items": 3, "settled": 1, "contested_accuracy": 0.5}
    assert got["cot"]["consensus_by_round"][0] != got["cot"]["consensus_by_round"][0]  # NaN
    assert got["sc@du~tokens"]["vote_k"] is None
    assert got["plain"]["round_stats"] == [] and got["plain"]["requests"] is None


def test_turns_price_the_round_zero_vote_when_every_row_keeps_them(tmp_path):
    rows = [dict(row, method="x") for row in ROWS[:2]]
    path = _write(tmp_path / "r.jsonl", rows)
    got = summarize_stream(read_rows(path))["x"]
    assert got["vote_at_round0"]["tokens_per_item"] == (30 + 43) / 2
    assert got["vote_at_round0"]["calls_per_item"] == 1.0


class _Answers(list[Any]):
    """A round's answers that can be watched with a weak reference."""


def test_the_tally_keeps_no_row_nor_any_part_of_one():
    tally = MethodTally("du")
    watched = []
    for k in range(50):
        row = as_row({**ROWS[k % 3], "id": f"item-{k}"})
        row.round_answers = [_Answers(r) for r in row.round_answers or ()]
        watched += [weakref.ref(r) for r in row.round_answers]
        held = sys.getrefcount(row)
        tally.add(row)
        assert sys.getrefcount(row) == held
        del row
    assert all(ref() is None for ref in watched)
    assert tally.summary()["n"] == 50
