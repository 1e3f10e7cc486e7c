"""The ledger's guards: its spend stays with its settings, each failed attempt is billed, a
damaged line is named, never a traceback, and rows the run leaves unwritten keep their spend."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.analysis.ledger_bill import fold_ledger
from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.datasets.items import Item
from debategraph.eval.log.files import INTERRUPTED_FILE, MANIFEST_FILE, RESULTS_FILE
from debategraph.eval.log.ledger import fingerprint, log_retried, read_ledger
from debategraph.eval.log.rows import error_row
from debategraph.eval.log.spend import SpendMeter
from debategraph.eval.log.store import (
    ResultsFile,
    SettingsMismatchError,
    check_manifest,
    encode_row,
    read_rows,
)
from debategraph.eval.run.breaker import UNREACHABLE_FIELD
from debategraph.eval.run.cut_short import CUT_SHORT, log_cut_short
from debategraph.eval.run.executors.base import Deliver, Job, Work
from debategraph.eval.run.runner import Arm, _Writer, evaluate

CUT = {"method": "du", "id": "q1", "input_tokens": 10, "output_tokens": 1, "requests": 1,
       "failed_requests": 0}  # fmt: skip


def finished(item: str) -> dict[str, Any]:
    return {"method": "du", "id": item, "answer": "2", "correct": True, "input_tokens": 100,
            "output_tokens": 10, "calls": 2, "round_answers": [], "requests": 2,
            "failed_requests": 0, "wasted_input_tokens": 0, "wasted_output_tokens": 0}  # fmt: skip


def test_a_ledger_without_rows_is_refused_to_a_run_with_other_settings(tmp_path):
    check_manifest(tmp_path, {"dataset": "a", "model": "cheap"})
    log_cut_short(tmp_path, [CUT])  # Ctrl-C before the first row
    with pytest.raises(SettingsMismatchError) as refused:
        check_manifest(tmp_path, {"dataset": "a", "model": "dear"})
    assert str(refused.value) == (
        f'{tmp_path} holds results of a run with other settings (model: "cheap" -> '
        '"dear"): use another --out, or --force to discard those results and start over'
    )
    assert read_ledger(tmp_path)["cut_short"] == [CUT]  # nothing lost
    assert check_manifest(tmp_path, {"dataset": "a", "model": "cheap"}) is True  # resumed
    assert check_manifest(tmp_path, {"dataset": "a", "model": "dear"}, force=True) is False
    assert not (tmp_path / INTERRUPTED_FILE).exists()


def test_a_ledger_without_run_json_is_refused_as_of_unknown_settings(tmp_path):
    log_cut_short(tmp_path, [CUT])
    with pytest.raises(SettingsMismatchError, match=r"holds interrupted\.jsonl but no run\.json"):
        check_manifest(tmp_path, {"dataset": "a"})
    assert not (tmp_path / MANIFEST_FILE).exists()


def test_a_directory_with_run_json_alone_takes_new_settings(tmp_path):
    check_manifest(tmp_path, {"dataset": "a", "model": "cheap"})  # stopped before any spend
    assert check_manifest(tmp_path, {"dataset": "a", "model": "dear"}) is False
    assert json.loads((tmp_path / MANIFEST_FILE).read_text())["settings"]["model"] == "dear"


def test_the_same_failure_on_two_resumes_is_logged_and_billed_twice(tmp_path):
    arm, item = Arm("du", "du", {"agents": 2}), Item("q1", "1 + 1?", "2")
    meter = SpendMeter()
    meter.input_tokens, meter.output_tokens, meter.requests, meter.failed = 50, 5, 2, 1
    results = ResultsFile(tmp_path / RESULTS_FILE, keep_spend=partial(log_retried, tmp_path))
    rows = []
    for _ in range(2):  # each resume drops the failed row and the item fails again alike
        row = error_row(arm, item, "APIError: boom", wall_s=0.0, dataset="a", spend=meter)
        rows.append(row)
        results.append(row)
        results.close()
        assert results.load() == 1
    assert rows[0]["wall_s"] == rows[1]["wall_s"] and rows[0]["error"] == rows[1]["error"]
    logged = read_ledger(tmp_path)["retried"]
    assert [(e["input_tokens"], e["output_tokens"], e["requests"]) for e in logged] == [
        (50, 5, 2),
        (50, 5, 2),
    ]
    assert [e["row_sha256"] for e in logged] == [fingerprint(encode_row(r)) for r in rows]
    summaries = summarize([finished("q1")])
    folded = fold_ledger([summaries], read_ledger(tmp_path))
    bill = summaries["du"]["bill"]
    assert (bill["unkept_input_tokens"], bill["unkept_output_tokens"]) == (100, 10)
    assert folded["retried"]["debates"] == 2
    for row in rows:
        stamp = row["failed_at"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00", stamp)
        assert datetime.fromisoformat(stamp).tzinfo == UTC


DAMAGED = [
    json.dumps({"at": "t", "cut_short": [CUT]}),
    "not json{",
    json.dumps({"cut_short": [{**CUT, "id": "q2", "input_tokens": "5"}, {**CUT, "id": "q3"}]}),
    json.dumps({"retried": [{**CUT, "id": "q4"}]}),
    json.dumps({"cut_short": 7}),
    "[1, 2]",
    json.dumps({"at": "t"}),
    json.dumps({"cut_short": [{**CUT, "input_tokens": True}, {"method": 3}]}),
    "",
    json.dumps({"cut_short": [{**CUT, "requests": -1}], "retried": [{**CUT, "row_sha256": "ab"}]}),
]
PROBLEMS = [
    "interrupted.jsonl, line 2: not a JSON object: its spend is left out",
    "interrupted.jsonl, line 3: cut_short entry 1: 'input_tokens' is str, not int: its spend "
    "is left out",
    "interrupted.jsonl, line 4: retried entry 1: no 'row_sha256' field: its spend is left out",
    "interrupted.jsonl, line 5: 'cut_short' is int, not a list: its spend is left out",
    "interrupted.jsonl, line 6: not a JSON object: its spend is left out",
    "interrupted.jsonl, line 7: no cut_short or retried list: its spend is left out",
    "interrupted.jsonl, line 8: cut_short entry 1: 'input_tokens' is bool, not int (and 1 "
    "more): its spend is left out",
    "interrupted.jsonl, line 10: cut_short entry 1: 'requests' is negative: its spend is left out",
]


def damage(out):
    torn = '{"cut_short": [{"method": "du"'  # a crash while the last line was written
    (out / INTERRUPTED_FILE).write_text("\n".join(DAMAGED) + "\n" + torn, encoding="utf-8")


def test_damaged_ledger_lines_are_left_out_and_named_by_line(tmp_path):
    damage(tmp_path)
    problems: list[str] = []
    found = read_ledger(tmp_path, problems)
    assert problems == PROBLEMS
    assert found == {
        "cut_short": [CUT, {**CUT, "id": "q3"}],
        "retried": [{**CUT, "row_sha256": "ab"}],
        "noted": [],
        "unanswered": [],
    }


def test_report_and_eval_name_a_damaged_ledger_without_a_traceback(tmp_path):
    out = tmp_path / "run"
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "2", "--agents",
            "2", "--rounds", "1", "--quiet", "--out", str(out)]  # fmt: skip
    assert CliRunner().invoke(app, args).exit_code == 0
    damage(out)
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    for problem in PROBLEMS:
        assert problem in again.output
    report = CliRunner().invoke(app, ["report", str(out), "--no-plots"])
    assert report.exit_code == 0, report.output
    text = (out / "report.md").read_text()
    assert all(problem in text for problem in PROBLEMS)
    assert "keeps the spend of 1 failed row(s) run again and 2 debate(s) cut short" in text


def test_a_row_written_twice_keeps_the_second_runs_spend(tmp_path):
    sink: list[dict[str, Any]] = []
    writer = _Writer(ResultsFile(tmp_path / RESULTS_FILE), None, [], cut_short=sink)
    writer({**finished("q1"), "seed": 3})
    writer({**finished("q1"), "wasted_input_tokens": 4, "seed": 3})  # a worker died: ran again
    writer.results.close()
    assert writer.repeated == 1 and len(list(read_rows(tmp_path / RESULTS_FILE))) == 1
    assert sink == [{"method": "du", "id": "q1", "seed": 3, "input_tokens": 104,
                     "output_tokens": 10, "requests": 2, "failed_requests": 0}]  # fmt: skip


class HeldThenStopped:
    """An executor whose first row the breaker holds (no connection), then Ctrl-C."""

    def check(self, job: Job) -> None:
        pass

    async def run(self, job: Job, work: Iterator[Work], deliver: Deliver) -> int:
        unit = next(work)
        row = {"method": "du", "id": unit.item.id, "error": "APIConnectionError: refused",
               "requests": 2, "failed_requests": 2, "wasted_input_tokens": 15,
               "wasted_output_tokens": 0,
               UNREACHABLE_FIELD: {"url": "http://127.0.0.1:9", "reason": "refused"}}  # fmt: skip
        deliver(row)
        raise KeyboardInterrupt


def test_rows_the_breaker_holds_when_the_run_stops_keep_their_spend(tmp_path):
    items = [Item("q1", "1 + 1?", "2"), Item("q2", "2 + 2?", "4")]
    with pytest.raises(KeyboardInterrupt):
        evaluate(items, [Arm("du", "du", {"agents": 2})], tmp_path, dataset="a",
                 executor=HeldThenStopped())  # fmt: skip
    assert CUT_SHORT.get() is None
    assert not list(read_rows(tmp_path / RESULTS_FILE))  # resume runs it again
    assert read_ledger(tmp_path)["cut_short"] == [
        {"method": "du", "id": "q1", "input_tokens": 15, "output_tokens": 0, "requests": 2,
         "failed_requests": 2}
    ]  # fmt: skip


def test_finalize_reads_a_replaced_failed_row_again_from_its_place(tmp_path):
    lines = [encode_row(r) for r in ({**finished("q2"), "error": "x"}, finished("q1"))]
    lines.insert(1, encode_row({"method": "du", "id": "q1", "error": "APIError: boom",
                                "requests": 1, "wasted_input_tokens": 9}))  # fmt: skip
    lines.append(encode_row(finished("q2")))
    (tmp_path / RESULTS_FILE).write_bytes(b"".join(lines))
    handed: list[tuple[str, dict[str, Any]]] = []
    results = ResultsFile(tmp_path / RESULTS_FILE, keep_spend=handed.extend)
    kept = results.finalize(lambda key: key[1])
    assert kept == [(("du", "q1", None), False), (("du", "q2", None), False)]
    assert handed == [  # in the order the finished rows replaced them
        (fingerprint(lines[1]), json.loads(lines[1])),
        (fingerprint(lines[0]), json.loads(lines[0])),
    ]
    assert (tmp_path / RESULTS_FILE).read_bytes() == lines[2] + lines[3]


def test_a_line_appended_after_a_torn_one_starts_a_line_of_its_own(tmp_path):
    log_cut_short(tmp_path, [CUT])
    with open(tmp_path / INTERRUPTED_FILE, "a", encoding="utf-8") as ledger:
        ledger.write('{"at": "2026-11-26T00:00:00Z", "cut_sh')  # a crash mid-line
    log_cut_short(tmp_path, [{**CUT, "id": "q2"}])
    problems: list[str] = []
    assert read_ledger(tmp_path, problems)["cut_short"] == [CUT, {**CUT, "id": "q2"}]
    assert (tmp_path / INTERRUPTED_FILE).read_text(encoding="utf-8").count("\n") == 3
