"""The report's reasoning tokens per item and its count of replies cut off in their thinking."""

from __future__ import annotations

from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.report.tables import extraction_table, results_table

ROW = {"method": "m", "answer": "7", "reference": "7", "correct": True, "calls": 2}
ROW |= {"input_tokens": 10, "output_tokens": 30, "round_answers": [["7", "7"]]}


def rows(reasoning: list[int | None]) -> list[dict[str, object]]:
    made = []
    for k, tokens in enumerate(reasoning):
        row = {**ROW, "id": f"q{k}"}
        if tokens is not None:
            row["reasoning_tokens"] = tokens
        made.append(row)
    return made


def test_reasoning_tokens_per_item_from_the_rows_that_state_them():
    summaries = summarize(rows([12, None, 6]))
    assert summaries["m"]["reasoning_tokens"] == 18
    line = results_table(summaries).splitlines()[2]
    assert line.split(" | ")[6] == "6"  # 18 tokens over 3 items


def test_reasoning_tokens_blank_when_no_provider_stated_any():
    summaries = summarize(rows([None, None]))
    assert summaries["m"]["reasoning_tokens"] is None
    header, _, line = results_table(summaries).splitlines()
    assert header.split(" | ")[6] == "Reasoning tok/item"
    assert line.split(" | ")[6] == ""


def test_cut_off_replies_are_counted_and_are_abstentions():
    made = rows([None, None])
    made[0]["answer_sources"] = {"declared": 1, "fallback": 0, "none": 0, "cut_off": 1}
    made[1]["answer_sources"] = {"declared": 1, "fallback": 0, "none": 1}  # before cut_off
    summary = summarize(made)["m"]
    assert summary["answer_sources"] == {"declared": 2, "fallback": 0, "none": 1, "cut_off": 1}
    assert summary["turn_abstention_rate"] == 2 / 4
    header, _, line = extraction_table({"m": summary}).splitlines()
    assert "Cut off" in header
    assert line == "| m | 4 | 50.0 | 0.0 | 50.0 | 1 | 2/2 |"
