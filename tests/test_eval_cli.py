"""``debategraph eval`` and ``debategraph report``; resume after killing a running eval."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from debategraph.cli import app

from .helpers import without_timings

runner = CliRunner()
ARGS = ["eval", "--method", "du", "--method", "cot", "--dataset", "arithmetic", "--limit", "4"]
ARGS += ["--agents", "2", "--rounds", "1", "--quiet"]


def rows(out: Path) -> list[dict]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return without_timings([json.loads(line) for line in lines])


def test_eval_resume_refusal_and_report(tmp_path):
    out = tmp_path / "run"
    first = runner.invoke(app, [*ARGS, "--out", str(out), "--prices", "0.15,0.60"])
    assert first.exit_code == 0, first.output
    assert "| du | 4 |" in first.stdout and "Cost $/item" in first.stdout
    assert re.search(r"\(0 resumed, 8 new, \d+\.\d s\)", first.stdout)
    again = runner.invoke(app, [*ARGS, "--out", str(out)])
    assert again.exit_code == 0 and "8 resumed, 0 new" in again.stdout
    other = runner.invoke(app, [*ARGS, "--out", str(out), "--seed", "3"])
    assert other.exit_code == 2
    assert "--force" in " ".join(other.stderr.split())
    report = runner.invoke(app, ["report", str(out), "--no-plots", "--prices", "1,2"])
    assert report.exit_code == 0, report.output
    text = (out / "report.md").read_text()
    assert "| du |" in text and "Cost $/item" in text


def test_eval_input_errors_exit_2(tmp_path):
    for args, message in [
        (["--method", "nope"], "unknown method"),
        (["--method", "du", "--dataset", "nope"], "unknown dataset"),
        (["--method", "du", "--prices", "1"], "--prices takes"),
        (["--method", "du", "--agents", "0"], "--agents must be 1 to 10000, got 0"),
        (["--method", "sc", "--match-budget", "calls"], "other than sc"),
    ]:
        out = runner.invoke(app, ["eval", *args, "--out", str(tmp_path / "x"), "--quiet"])
        assert out.exit_code == 2, (args, out.output)
        assert message in " ".join(out.stderr.split()), (args, out.stderr)
    missing = runner.invoke(app, ["report", str(tmp_path / "empty")])
    assert missing.exit_code == 2 and "no *.jsonl" in " ".join(missing.stderr.split())


@pytest.mark.slow
def test_killed_eval_resumes_to_the_same_file(tmp_path):
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "20", "--agents", "2"]
    args += ["--rounds", "1", "--model", "simulated:latency_s=0.03", "--concurrency", "2"]
    args += ["--quiet"]
    reference = tmp_path / "reference"
    assert runner.invoke(app, [*args, "--out", str(reference)]).exit_code == 0
    out = tmp_path / "killed"
    code = "from debategraph.cli import main; main()"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, "-c", code, *args, "--out", str(out)], env=env)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_with = results.read_bytes().count(b"\n")
    assert 3 <= killed_with < 20
    resumed = runner.invoke(app, [*args, "--out", str(out)])
    assert resumed.exit_code == 0, resumed.output
    assert f"{killed_with} resumed" in resumed.stdout
    assert rows(out) == rows(reference)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--limit", "0"], "--limit must be 1 to 100000000, got 0"),
        (["--rps", "-1"], "--rps must be above 0 and at most 1000000, got -1.0"),
        (["--rps", "0"], "--rps must be above 0"),
        (["--prices", "nan,inf"], "--prices takes IN,OUT"),
        (["--concurrency", "0"], "--concurrency must be 1 to 100000, got 0"),
        (["--model", "openai:"], "bad model spec 'openai:'"),
        (["--model", "x", "--base-url", "ftp://h/v1"], "base_url must be an http(s) URL"),
        (["--model", "simulated:skill=abc"], "must be a number"),
        (["--agents", "500"], "agents must be at most 64"),
    ],
)
def test_user_errors_exit_2_with_one_error_line_before_any_call(tmp_path, args, message):
    out = CliRunner().invoke(
        app,
        ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "2", "--out",
         str(tmp_path / "o"), "--quiet", *args],
    )  # fmt: skip
    assert out.exit_code == 2, out.output
    assert message in " ".join(out.stderr.split())
    assert out.stderr.count("error:") == 1
    assert not (tmp_path / "o" / "results.jsonl").exists()


def test_deeply_nested_json_in_a_question_set_is_a_line_error(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "1", "question": ' + "[" * 50000 + "]" * 50000 + "}\n")
    out = CliRunner().invoke(app, ["eval", "--method", "du", "--dataset", "jsonl",
                                   "--path", str(path), "--quiet"])  # fmt: skip
    assert out.exit_code == 2 and "line 1: JSON nested too deeply" in out.stderr


@pytest.mark.slow
def test_show_prints_a_stored_debate_as_run_does(tmp_path):
    out = tmp_path / "r"
    args = ["eval", "--method", "du", "--method", "cortex", "--dataset", "arithmetic",
            "--limit", "2", "--out", str(out), "--quiet"]  # fmt: skip
    assert runner.invoke(app, args).exit_code == 0
    row = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    shown = runner.invoke(app, ["show", str(out), row["id"], "--method", "du", "--show-text"])
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    assert "du · 3 agents · 2 debate rounds" in text and row["question"][:30] in text
    assert "round 2" in text and "r1:a1" in text and "answer:" in text
    assert row["turns"][0]["text"].splitlines()[0][:40] in text  # a reply's own words
    both = runner.invoke(app, ["show", str(out), row["id"]])
    assert both.stdout.count("agents ·") == 2  # du's and cortex's debates of the item
    missing = runner.invoke(app, ["show", str(out), "no-such-item"])
    assert missing.exit_code == 2 and "no stored debate of item 'no-such-item'" in missing.stderr


def test_rows_without_texts_still_show_the_debate(tmp_path):
    out = tmp_path / "r"
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "1", "--out",
            str(out), "--quiet", "--no-texts"]  # fmt: skip
    assert runner.invoke(app, args).exit_code == 0
    row = json.loads((out / "results.jsonl").read_text())
    assert "text" not in row["turns"][0] and row["turns"][0]["answer"] is not None
    shown = runner.invoke(app, ["show", str(out), row["id"], "--show-text"])
    assert shown.exit_code == 0 and "(reply text not kept)" in shown.stdout


def test_a_limit_above_the_question_sets_size_is_said(tmp_path):
    path = tmp_path / "q.jsonl"
    rows = [
        {"id": str(k), "question": f"What is {k} + 1?", "reference": str(k + 1)} for k in range(3)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = runner.invoke(app, ["eval", "--method", "cot", "--dataset", "jsonl", "--path", str(path),
                              "--limit", "5", "--out", str(tmp_path / "o"), "--quiet"])  # fmt: skip
    assert out.exit_code == 0, out.output
    said = " ".join(out.stderr.split())
    assert "--limit 5 is more than the 3 items of jsonl: all of them run" in said
