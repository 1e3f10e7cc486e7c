"""Exports claim no more than the run holds (issue 40): missing, failed and unreadable items,
a damaged ``run.json``, an arm without rows; and what the Inspect log carries of each call
(every declared generation setting, the model's thinking)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.model import ContentReasoning, ContentText
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.export import inspect as inspect_export
from debategraph.state import settings_table
from debategraph.state.setting import Setting
from tests.test_export_inspect import HAND_ROW
from tests.test_export_langsmith import langsmith  # noqa: F401 - the stand-in's fixture

runner = CliRunner()
EVAL = ["eval", "--dataset", "arithmetic", "--limit", "3", "--agents", "2", "--rounds", "1"]
EVAL += ["--quiet", "--method", "du", "--method", "cot"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("truth") / "run"
    made = runner.invoke(app, [*EVAL, "--out", str(out)])
    assert made.exit_code == 0, made.output
    return out


def copy_of(finished: Path, tmp_path: Path) -> tuple[Path, list[dict]]:
    run = tmp_path / "run"
    shutil.copytree(finished, run, ignore=shutil.ignore_patterns("*.index", "inspect", ".lock"))
    lines = (run / "results.jsonl").read_text().splitlines()
    return run, [json.loads(line) for line in lines]


def write_rows(run: Path, rows: list[object]) -> None:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)
    (run / "results.jsonl").write_text(text)


def export(run: Path, logs: Path) -> tuple[dict[str, object], list[str]]:
    """The logs by arm, and the warning lines the export printed."""
    done = runner.invoke(app, ["export", str(run), "--to", "inspect", "--out", str(logs)])
    assert done.exit_code == 0, done.output
    read = [read_eval_log(str(p), resolve_attachments=True) for p in sorted(logs.glob("*.eval"))]
    warnings = [line for line in done.output.splitlines() if line.startswith("warning:")]
    return {log.eval.metadata["arm"]: log for log in read}, warnings


def test_a_finished_run_exports_as_a_success_without_a_warning(finished, tmp_path):
    run, _ = copy_of(finished, tmp_path)
    logs, warnings = export(run, tmp_path / "logs")
    assert warnings == []
    assert {arm: log.status for arm, log in logs.items()} == {"du": "success", "cot": "success"}


def test_a_run_stopped_early_is_started_with_its_missing_items_not_run(finished, tmp_path):
    run, rows = copy_of(finished, tmp_path)
    dropped = next(r for r in rows if r["method"] == "du")
    write_rows(run, [r for r in rows if r is not dropped])
    logs, warnings = export(run, tmp_path / "logs")
    assert len(warnings) == 1
    assert "1 of 6 planned rows are missing (du 1; items such as " + dropped["id"] in warnings[0]
    du, cot = logs["du"], logs["cot"]
    assert (du.status, cot.status) == ("started", "success")
    (not_run,) = [s for s in du.samples if s.error is not None]
    assert not_run.id == dropped["id"] and "not run" in not_run.error.message
    assert not_run.input == dropped["question"]  # from the other arm's row of the item
    assert len(du.samples) == 3 and du.results.scores[0].scored_samples == 2


def test_an_arm_without_rows_is_exported_and_an_arm_that_only_failed_has_no_accuracy(
    finished, tmp_path
):
    run, rows = copy_of(finished, tmp_path)
    failed = [
        {"method": "du", "id": r["id"], "dataset": "arithmetic", "error": "HTTP 500: down"}
        for r in rows
        if r["method"] == "du"
    ]
    write_rows(run, failed)  # cot has no row at all; du failed every item
    logs, warnings = export(run, tmp_path / "logs")
    assert set(logs) == {"du", "cot"}
    du, cot = logs["du"], logs["cot"]
    assert du.status == "error" and "3 of 3 samples failed" in du.error.message
    assert cot.status == "started" and [s.error.message[:7] for s in cot.samples] == ["not run"] * 3
    for log in (du, cot):
        assert log.results.scores == []  # no accuracy, not 0.0
    # The questions come from the dataset run.json names: no stored row keeps them.
    questions = {r["id"]: r["question"] for r in rows}
    assert {s.id: s.input for s in du.samples} == questions
    assert len(warnings) == 1 and "3 of 6 planned rows are missing (cot 3;" in warnings[0]


def test_a_damaged_run_json_is_one_warning_and_an_error_status(finished, tmp_path):
    run, _ = copy_of(finished, tmp_path)
    (run / "run.json").write_text('{"format": 3, "settings": {"arms": [')
    logs, warnings = export(run, tmp_path / "logs")
    assert len(warnings) == 1 and "run.json is damaged" in warnings[0]
    assert {log.status for log in logs.values()} == {"error"}
    assert all("run.json is damaged" in log.error.message for log in logs.values())


def test_hostile_and_malformed_rows_are_one_line_naming_the_file_and_line(finished, tmp_path):
    run, rows = copy_of(finished, tmp_path)
    rows[1] = {**rows[1], "turns": [5, "x"]}  # well formed as a row, not as its turns
    rows[0] = {**rows[0], "agent_names": 7}  # the first row of its arm: the log's roles
    write_rows(run, [*rows[:3], "{torn", *rows[3:]])
    done = runner.invoke(app, ["export", str(run), "--to", "inspect", "--out", str(tmp_path / "l")])
    assert done.exit_code == 0, done.output
    assert "Traceback" not in done.output and "AttributeError:" not in done.output.split(": ")[0]
    (line,) = [x for x in done.output.splitlines() if x.startswith("warning: 3 line(s)")]
    assert "results.jsonl, line 4: not valid JSON" in line and line.endswith("(and 2 more)")
    logs = {
        log.eval.metadata["arm"]: log
        for log in map(read_eval_log, map(str, sorted((tmp_path / "l").glob("*.eval"))))
    }
    hostile = next(s for s in logs[rows[1]["method"]].samples if s.id == rows[1]["id"])
    assert hostile.error is not None  # the row's declaration names the field it refused
    assert "results.jsonl, line 2: not a row (Expected `object`" in hostile.error.message
    assert "$.turns[0]" in hostile.error.message


def test_a_turns_thinking_is_reasoning_content_before_the_answer(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    turns = [{**HAND_ROW["turns"][0], "reasoning": "3 plus 4... is 7?", "text": "Answer: 6"}]
    write_rows(run, [{**HAND_ROW, "turns": turns}])
    logs, _ = export(run, tmp_path / "logs")
    (event,) = [e for e in logs["du"].samples[0].events if e.event == "model"]
    thinking, answer = event.output.message.content
    assert isinstance(thinking, ContentReasoning) and thinking.reasoning == "3 plus 4... is 7?"
    assert isinstance(answer, ContentText) and answer.text == "Answer: 6"
    assert event.output.completion == "Answer: 6"


VALUES = {
    "temperature": 0.3, "top_p": 0.9, "top_k": 5, "max_tokens": 300, "stop": ["END"],
    "frequency_penalty": 0.25, "reasoning_effort": "low", "min_p": 0.05,
}  # fmt: skip
"""A value of each generation setting sent with every call (and of one declared here)."""


def test_every_declared_generation_setting_reaches_the_logs_config(tmp_path, monkeypatch):
    declared = settings_table.declared()
    newly = Setting("generation", name="min_p", help="Min-p sampling.", sent=True)
    monkeypatch.setattr(settings_table, "declared", lambda: (*declared, newly))
    inspect_export.sent_settings.cache_clear()
    try:
        run = tmp_path / "run"
        run.mkdir()
        names = inspect_export.sent_settings()
        assert "min_p" in names and "temperature" in names
        assert set(names) <= set(VALUES), "give the newly declared setting a value here"
        values = {name: VALUES[name] for name in names}
        old = {**HAND_ROW, "settings": dict(values)}  # rows before generation was nested
        nested = {**HAND_ROW, "id": "q-2", "settings": {"generation": dict(values)}}
        write_rows(run, [old, nested])
        logs, _ = export(run, tmp_path / "logs")
    finally:
        inspect_export.sent_settings.cache_clear()
    log = logs["du"]
    configs = [e.config for s in log.samples for e in s.events if e.event == "model"]
    for config in [log.eval.model_generate_config, *configs]:
        given = config.model_dump(exclude_none=True)
        extra = given.pop("extra_body", {})
        found = {**given, **extra, "stop": given.get("stop_seqs")}
        for name in names:
            assert found.get(name) == VALUES[name], name
        assert extra["min_p"] == 0.05


def upload(run: Path) -> str:
    done = runner.invoke(app, ["export", str(run), "--to", "langsmith"])
    assert done.exit_code == 0, done.output
    return done.output


def test_langsmith_gets_every_item_failed_and_not_run_ones_with_their_error(
    finished,
    tmp_path,
    langsmith,  # noqa: F811 - the fixture
):
    run, rows = copy_of(finished, tmp_path)
    failed = [
        {"method": "du", "id": r["id"], "dataset": "arithmetic", "error": "HTTP 500: down"}
        for r in rows
        if r["method"] == "du"
    ]
    write_rows(run, failed)  # every du item failed, cot never ran: no row keeps a question
    printed = upload(run)
    assert "3 of 6 planned rows are missing" in printed
    bodies = {r["body"]["experiment_metadata"]["arm"]: r["body"] for r in langsmith.taken}
    questions = {r["id"]: r["question"] for r in rows}
    for arm, error in (("du", "HTTP 500: down"), ("cot", "not run")):
        results = bodies[arm]["results"]
        assert {r["inputs"]["item_id"]: r["inputs"]["question"] for r in results} == questions
        assert all(r["error"].startswith(error) and "evaluation_scores" not in r for r in results)
        assert bodies[arm]["experiment_metadata"]["failed_items"] == 3


def test_a_second_upload_of_the_same_rows_skips_what_langsmith_holds(
    finished,
    tmp_path,
    langsmith,  # noqa: F811 - the fixture
):
    run, _ = copy_of(finished, tmp_path)
    langsmith.refuse_after = 1  # the first upload stops after one experiment
    runner.invoke(app, ["export", str(run), "--to", "langsmith"])
    langsmith.refuse_after = None
    printed = upload(run)
    names = [r["body"]["experiment_name"] for r in langsmith.taken]
    assert len(names) == len(set(names)) == 2  # each arm once: no duplicate
    assert printed.count("skipped experiment") == 1 and printed.count("uploaded experiment") == 1
    again = upload(run)
    assert again.count("skipped experiment") == 2 and len(langsmith.taken) == 2


def test_a_hostile_row_is_an_error_row_in_langsmith_and_one_line(
    finished,
    tmp_path,
    langsmith,  # noqa: F811 - the fixture
):
    run, rows = copy_of(finished, tmp_path)
    rows[0] = {**rows[0], "wall_s": "soon"}
    write_rows(run, rows)
    printed = upload(run)
    (line,) = [x for x in printed.splitlines() if x.startswith("warning: 1 line(s)")]
    assert "results.jsonl, line 1: not a row (Expected `float`, got `str` - at `$.wall_s`)" in line
    bodies = {r["body"]["experiment_metadata"]["arm"]: r["body"] for r in langsmith.taken}
    (broken,) = [r for r in bodies[rows[0]["method"]]["results"] if "error" in r]
    assert broken["inputs"]["item_id"] == rows[0]["id"]
    assert broken["error"].startswith("results.jsonl, line 1: not a row")
