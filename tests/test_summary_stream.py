"""The one-pass summary (summary_stream) gives the list-based summary's figures exactly."""

from __future__ import annotations

import json
import weakref
from pathlib import Path
from typing import Any

from debategraph.eval.metrics import summarize, wilson_interval
from debategraph.eval.store import read_rows
from debategraph.eval.summary_stream import MethodTally, summarize_stream

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


def _same(a: Any, b: Any) -> None:
    # json text compares NaN as NaN, and the keys' order too.
    assert json.dumps(a) == json.dumps(b)


def test_streaming_summary_equals_the_list_based_one_on_varied_rows(tmp_path):
    path = _write(tmp_path / "results.jsonl", ROWS)
    assert len(list(read_rows(path))) == len(ROWS)  # the file keeps every row
    for prices in (None, PRICES):
        expected = summarize(list(read_rows(path)), prices)
        got = summarize_stream(read_rows(path), prices)
        assert list(got) == ["du", "sid-et", "cot", "sc@du~tokens", "plain"]
        _same(got, expected)


def test_the_fixture_reaches_every_branch_the_summary_has(tmp_path):
    """Exact hand-computed figures: the rows above exercise what the equality test covers."""
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
    assert du["answer_sources"] == {"declared": 11, "fallback": 1, "none": 3}
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
    _same(got, summarize(list(read_rows(path)))["x"])
    assert got["vote_at_round0"]["tokens_per_item"] == (30 + 43) / 2
    assert got["vote_at_round0"]["calls_per_item"] == 1.0


class _Row(dict[str, Any]):
    """A row that can be watched with a weak reference."""


class _Answers(list[Any]):
    """A round's answers that can be watched with a weak reference."""


def test_the_tally_keeps_no_row_nor_any_part_of_one():
    tally = MethodTally("du")
    watched = []
    for k in range(50):
        row = _Row(ROWS[k % 3])
        row["round_answers"] = [_Answers(r) for r in row["round_answers"]]
        row["id"] = f"item-{k}"
        watched += [weakref.ref(row), *(weakref.ref(r) for r in row["round_answers"])]
        tally.add(row)
        del row
    assert all(ref() is None for ref in watched)
    assert tally.summary()["n"] == 50
