"""The ledger keeps the spend of failed rows a rewrite drops: once, before they go, never twice."""

from __future__ import annotations

import json
import math

from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.analysis.ledger_bill import fold_ledger, ledger_words
from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.log.bill import bill_of
from debategraph.eval.log.ledger import (
    INTERRUPTED_FILE,
    fingerprint,
    log_retried,
    read_ledger,
    row_spend,
)
from debategraph.eval.log.store import (
    RESULTS_FILE,
    ResultsFile,
    check_manifest,
    encode_row,
    read_rows,
)
from debategraph.eval.run.breaker import Breaker


def finished(item: str, **extra):
    return {"method": "du", "id": item, "answer": "1", "correct": True, "input_tokens": 100,
            "output_tokens": 10, "calls": 2, "round_answers": [], "requests": 2,
            "failed_requests": 0, "wasted_input_tokens": 0, "wasted_output_tokens": 0,
            **extra}  # fmt: skip


def failed(item: str, inputs: int, outputs: int, **extra):
    return {"method": "du", "id": item, "error": "APIError: boom", "requests": 3,
            "failed_requests": 1, "wasted_input_tokens": inputs,
            "wasted_output_tokens": outputs, **extra}  # fmt: skip


def write(path, rows):
    path.write_bytes(b"".join(encode_row(row) for row in rows))


def results(out):
    return ResultsFile(out / RESULTS_FILE, keep_spend=lambda rows: log_retried(out, rows))


def test_load_logs_the_failed_rows_it_drops_before_it_rewrites(tmp_path):
    rows = [finished("q1"), failed("q2", 70, 9), failed("q3", 0, 0, requests=0, failed_requests=0)]
    write(tmp_path / RESULTS_FILE, rows)
    seen = []

    def keep(dropped):
        # The file still holds the rows when their spend is handed over.
        assert (tmp_path / RESULTS_FILE).read_bytes().count(b'"error"') == 2
        seen.extend(dropped)
        log_retried(tmp_path, dropped)

    assert ResultsFile(tmp_path / RESULTS_FILE, keep_spend=keep).load() == 2
    assert [row["id"] for _, row in seen] == ["q2", "q3"]
    (entry,) = read_ledger(tmp_path)["retried"]  # q3 spent nothing: not logged
    assert entry == {"method": "du", "id": "q2", "input_tokens": 70, "output_tokens": 9,
                     "requests": 3, "failed_requests": 1,
                     "row_sha256": fingerprint(encode_row(rows[1]))}  # fmt: skip
    assert results(tmp_path).load() == 0  # resumed again: nothing dropped, nothing logged
    assert len((tmp_path / INTERRUPTED_FILE).read_text().splitlines()) == 1


def test_a_crash_between_the_log_and_the_rewrite_counts_nothing_twice(tmp_path):
    row = failed("q2", 70, 9, seed=4)
    write(tmp_path / RESULTS_FILE, [finished("q1"), row])
    log_retried(tmp_path, [(fingerprint(encode_row(row)), row)])  # logged, then the crash
    assert read_ledger(tmp_path)["retried"] == []  # the row still counts it
    assert results(tmp_path).load() == 1  # the resume after the crash
    (entry,) = read_ledger(tmp_path)["retried"]
    assert (entry["seed"], entry["input_tokens"]) == (4, 70)
    assert len((tmp_path / INTERRUPTED_FILE).read_text().splitlines()) == 1


def test_identical_failed_lines_are_each_logged_once(tmp_path):
    row = failed("q2", 5, 1)
    write(tmp_path / RESULTS_FILE, [row, row])
    log_retried(tmp_path, [(fingerprint(encode_row(row)), row)])  # one of them, then a crash
    assert len(read_ledger(tmp_path)["retried"]) == 0  # both lines are still rows
    assert results(tmp_path).load() == 2
    assert [e["input_tokens"] for e in read_ledger(tmp_path)["retried"]] == [5, 5]


def test_finalize_logs_a_failed_row_a_finished_one_replaced(tmp_path):
    rows = [failed("q1", 40, 4), finished("q2"), finished("q1"), failed("q2", 30, 3),
            failed("q3", 20, 2)]  # fmt: skip
    write(tmp_path / RESULTS_FILE, rows)
    kept = results(tmp_path).finalize(lambda key: key[1])
    assert kept == [(("du", "q1", None), False), (("du", "q2", None), False),
                    (("du", "q3", None), True)]  # fmt: skip
    assert sorted(e["input_tokens"] for e in read_ledger(tmp_path)["retried"]) == [30, 40]
    file_rows = [json.loads(line) for line in (tmp_path / RESULTS_FILE).read_text().splitlines()]
    every = bill_of(file_rows)
    logged = read_ledger(tmp_path)["retried"]
    assert every["unkept_input_tokens"] + sum(e["input_tokens"] for e in logged) == 90
    assert every["input_tokens"] == 200


def test_force_discards_the_ledger_with_the_rows(tmp_path):
    write(tmp_path / RESULTS_FILE, [finished("q1")])
    (tmp_path / INTERRUPTED_FILE).write_text('{"cut_short": []}\n')
    check_manifest(tmp_path, {"dataset": "a"}, force=True)
    assert not (tmp_path / INTERRUPTED_FILE).exists()


def test_the_ledger_is_added_to_its_methods_bill(tmp_path):
    rows = [finished("q1"), finished("q2"), failed("q3", 30, 3)]
    prices = {"input": 0.5, "output": 2.0}
    summaries = summarize([*rows, {**finished("q1"), "method": "cot"}], prices)
    ledger = {
        "cut_short": [{"method": "du", "id": "q3", "input_tokens": 11, "output_tokens": 2,
                       "requests": 1, "failed_requests": 0},
                      {"method": "gone", "id": "q1", "input_tokens": 7, "output_tokens": 1,
                       "requests": 1, "failed_requests": 1}],
        "retried": [{"method": "du", "id": "q3", "input_tokens": 50, "output_tokens": 5,
                     "requests": 2, "failed_requests": 1}],
    }  # fmt: skip
    folded = fold_ledger([summaries], ledger, prices)
    du, cot = summaries["du"], summaries["cot"]
    assert du["bill"]["input_tokens"] == 200 and du["bill"]["output_tokens"] == 20
    assert (du["bill"]["unkept_input_tokens"], du["bill"]["unkept_output_tokens"]) == (91, 10)
    assert du["cost"] == 0.5 * (200 + 91) + 2.0 * (20 + 10) == 205.5
    assert du["cost_per_item"] == 205.5 / 2
    assert (du["requests"], du["failed_requests"]) == (7 + 3, 1 + 1)
    assert (du["wasted_tokens"], du["failed_item_tokens"]) == (33 + 13 + 55, 33 + 55)
    assert cot["cost"] == 0.5 * 100 + 2.0 * 10 and cot["bill"]["unkept_input_tokens"] == 0
    assert folded["unplaced"] == {"debates": 1, "input_tokens": 7, "output_tokens": 1,
                                  "requests": 1, "failed_requests": 1}  # fmt: skip
    assert ledger_words(folded) == (
        "interrupted.jsonl keeps the spend of 1 failed row(s) run again and 2 debate(s) cut "
        "short: 68 input and 8 output tokens in 4 requests, counted in the bill as paid, not "
        "kept (7 input and 1 output tokens of them belong to 1 debate(s) of methods with no "
        "row, in no table)."
    )


def test_an_empty_ledger_changes_nothing(tmp_path):
    summaries = summarize([finished("q1")])
    before = json.dumps(summaries, sort_keys=True, default=str)
    folded = fold_ledger([summaries], read_ledger(tmp_path))
    assert json.dumps(summaries, sort_keys=True, default=str) == before
    assert ledger_words(folded) == "" and summaries["du"]["cost"] is None
    assert not math.isnan(summaries["du"]["accuracy"])


def test_a_rows_spend_is_what_its_requests_were_billed():
    split = {"paid": {"calls": 1, "input_tokens": 40, "output_tokens": 4},
             "cached": {"calls": 1, "input_tokens": 60, "output_tokens": 6}}  # fmt: skip
    replayed = finished("q1", usage_by_source=split, wasted_input_tokens=3, requests=1)
    assert row_spend(replayed) == {"input_tokens": 43, "output_tokens": 4, "requests": 1,
                                   "failed_requests": 0}  # fmt: skip
    assert row_spend(finished("q1")) == {"input_tokens": 100, "output_tokens": 10,
                                         "requests": 2, "failed_requests": 0}  # fmt: skip
    assert row_spend(failed("q2", 30, 3)) == {"input_tokens": 30, "output_tokens": 3,
                                              "requests": 3, "failed_requests": 1}  # fmt: skip


def test_a_row_that_finishes_as_the_breaker_stops_the_run_notes_all_it_paid():
    sink: list = []
    breaker = Breaker(lambda row: None, streak=1, cut_short=sink)
    breaker.tripped = True
    breaker(finished("q1", wasted_input_tokens=5, seed=2))
    assert sink == [{"method": "du", "id": "q1", "seed": 2, "input_tokens": 105,
                     "output_tokens": 10, "requests": 2, "failed_requests": 0}]  # fmt: skip


def test_evals_closing_lines_count_the_ledger(tmp_path):
    out = tmp_path / "run"
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "2", "--agents",
            "2", "--rounds", "1", "--quiet", "--out", str(out)]  # fmt: skip
    args += ["--prices", "1000000,0"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    paid = sum(row.input_tokens or 0 for row in read_rows(out / RESULTS_FILE))
    assert f"| {paid / 2:.5f} |" in first.stdout  # $1 an input token, 2 items
    log_retried(out, [("f" * 64, failed("arith-0-0", 1000, 0))])
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert f"| {(paid + 1000) / 2:.5f} |" in again.stdout
    assert again.stdout.strip().splitlines()[-1] == (
        "interrupted.jsonl keeps the spend of 1 failed row(s) run again: 1,000 input and 0 "
        "output tokens in 3 requests, counted in the bill as paid, not kept."
    )
