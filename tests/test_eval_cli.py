"""``debategraph eval`` and ``debategraph report``; resume after killing a running eval."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from debategraph.cli import app

runner = CliRunner()
ARGS = ["eval", "--method", "du", "--method", "cot", "--dataset", "arithmetic", "--limit", "4"]
ARGS += ["--agents", "2", "--rounds", "1", "--quiet"]


def rows(out: Path) -> list[dict]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k != "wall_s"} for line in lines]


def test_eval_resume_refusal_and_report(tmp_path):
    out = tmp_path / "run"
    first = runner.invoke(app, [*ARGS, "--out", str(out), "--prices", "0.15,0.60"])
    assert first.exit_code == 0, first.output
    assert "| du | 4 |" in first.stdout and "Cost $/item" in first.stdout
    assert "0 resumed, 8 new" in first.stdout
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
        (["--method", "du", "--agents", "0"], "agents must be at least 1"),
        (["--method", "sc", "--match-budget"], "other than sc"),
    ]:
        out = runner.invoke(app, ["eval", *args, "--out", str(tmp_path / "x"), "--quiet"])
        assert out.exit_code == 2, (args, out.output)
        assert message in " ".join(out.stderr.split()), (args, out.stderr)
    missing = runner.invoke(app, ["report", str(tmp_path / "empty")])
    assert missing.exit_code == 2 and "no *.jsonl" in " ".join(missing.stderr.split())


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
