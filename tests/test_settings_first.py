"""Every setting is checked before the first model call: one error line, exit status 2."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.testing import ScriptedChatModel

ARITH = "What is the result of 3+4*5+6-7*2?"
runner = CliRunner()


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"decision_options": {"nokey": 1}}, "does not take 'nokey'"),
        ({"decision": "freemad", "decision_options": {"weights": [1, 2]}}, "decision rule"),
        ({"decision_options": {"group_by_meaning": 3}}, "group_by_meaning must be"),
        ({"temperature": 1e9}, "temperature must be between 0 and 2"),
        ({"temperature": float("nan")}, "temperature must be a finite number"),
        ({"top_p": 2}, "top_p must be above 0 and at most 1"),
        ({"top_p": 0}, "top_p must be above 0"),
        ({"timeout": float("inf")}, "timeout must be a finite number"),
        ({"timeout": -1}, "timeout must be more than 0"),
        ({"stop": [""]}, "stop sequences must be non-empty"),
        ({"base_url": "http://127.0.0.1:99999/v1"}, "bad port"),
    ],
)
def test_bad_settings_fail_before_any_call(settings, message):
    model = ScriptedChatModel(replies=["\\boxed{15}"])
    with pytest.raises(dg.DebateConfigError, match=message):
        dg.run(ARITH, method="du", models=model, **settings)
    assert model.calls == []


def test_large_temperature_and_whitespace_stops_are_allowed_when_asked():
    model = ScriptedChatModel(replies=["\\boxed{15}"])
    r = dg.run(ARITH, method="cot", models=model, temperature=3.0, allow_large=True,
               stop=["\n\n"])  # fmt: skip
    assert r.answer == "15" and model.calls[0]["kwargs"]["temperature"] == 3.0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--decision-option", "nokey=1", ARITH], "does not take 'nokey'"),
        (["run", "--top-p", "2", ARITH], "--top-p must be above 0 and at most 1"),
        (["run", "--agents", "many", ARITH], "Invalid value for '--agents'"),
        (["run", "--graph-png", "/proc/forbidden/x", ARITH], "--graph-png"),
        (
            [
                "eval",
                "--method",
                "du",
                "--dataset",
                "arithmetic",
                "--limit",
                "99999999999999999999",
            ],
            "--limit must be 1 to 100000000",
        ),
    ],
)
def test_the_command_line_says_what_is_wrong_in_one_line(args, message):
    proc = subprocess.run(
        [sys.executable, "-m", "debategraph", *args], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], lines


def test_a_cache_that_cannot_be_used_fails_before_any_item(tmp_path):
    start = time.perf_counter()
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "2"]
    out = runner.invoke(app, [*args, "--cache", str(tmp_path), "--out", str(tmp_path / "o")])
    assert out.exit_code == 2 and "is a directory" in out.stderr
    assert not (tmp_path / "o" / "results.jsonl").exists()
    assert time.perf_counter() - start < 10


def test_a_corrupt_manifest_and_too_many_open_files_are_one_line_each(tmp_path, monkeypatch):
    import errno

    import debategraph.eval.run.runner as runner_module

    args = ["eval", "--method", "cot", "--dataset", "arithmetic", "--limit", "2", "--quiet"]
    assert CliRunner().invoke(app, [*args, "--out", str(tmp_path / "bad")]).exit_code == 0
    (tmp_path / "bad" / "run.json").write_text("{not json")  # results whose settings are lost
    corrupt = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "bad")])
    assert corrupt.exit_code == 2 and corrupt.stderr.startswith("error:"), corrupt.stderr
    assert "run.json" in corrupt.stderr and len(corrupt.stderr.strip().splitlines()) == 1

    async def exhausted(*_args, **_kwargs):
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(runner_module, "run_eval", exhausted)
    full = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "full")])
    said = " ".join(full.stderr.split())
    assert full.exit_code == 2 and said.startswith("error: too many open files: raise")
    assert "ulimit -n" in said and "run the same command again to resume" in said
