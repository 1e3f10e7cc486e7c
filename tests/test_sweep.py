"""Sweeps: named arms with shared settings from a TOML file, resumable like one evaluation."""

import json

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.run.sweep import SweepError, load_sweep

runner = CliRunner()

SWEEP = """
dataset = "arithmetic"
limit = 3
seed = 2
concurrency = 8

[settings]
rounds = 1
agents = 3

[arms.du]
method = "du"

[arms.cortex-all]
method = "cortex"
options = { prune = "all", k = 2 }

[arms.du-freemad]
method = "du"
decision = "freemad"
rounds = 2
"""


def test_a_sweep_runs_its_arms_and_resumes(tmp_path):
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP)
    out = tmp_path / "out"
    first = runner.invoke(app, ["eval", "--config", str(config), "--out", str(out), "--quiet"])
    assert first.exit_code == 0, first.output
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["method"] for r in rows] == ["du"] * 3 + ["cortex-all"] * 3 + ["du-freemad"] * 3
    assert {r["rounds"] for r in rows if r["method"] == "du-freemad"} == {2}
    assert all(r["settings"]["options"]["prune"] == "all" for r in rows[3:6])
    arms = json.loads((out / "run.json").read_text())["settings"]["arms"]
    assert arms[1]["settings"] == {"agents": 3, "options": {"prune": "all", "k": 2}, "rounds": 1}
    again = runner.invoke(app, ["eval", "--config", str(config), "--out", str(out), "--quiet"])
    assert again.exit_code == 0 and "(9 resumed, 0 new, " in again.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("limit = 3\n[arms.du]\nmethod='du'", "'dataset' is required"),
        ("dataset='gsm8k'", "add at least one arm"),
        ("dataset='gsm8k'\nlimits=3\n[arms.du]\nmethod='du'", "unknown key(s) limits"),
        (
            "dataset='gsm8k'\n[arms.x]\nmethod='nope'",
            "arms.x.method: unknown method 'nope'; choose one of",
        ),
        ("dataset='gsm8k'\n[arms.x]\nmethod='du'\nround=2", "unknown setting(s) round"),
        ("dataset='gsm8k'\n[arms.x]\nmethod='cortex'\noptions={prune='best'}", "prune must be"),
        ("dataset='gsm8k'\nlimit='ten'\n[arms.x]\nmethod='du'", "limit must be int"),
        ("dataset = [", "not valid TOML"),
    ],
)
def test_bad_sweep_files_name_the_key_and_the_fix(tmp_path, text, message):
    config = tmp_path / "s.toml"
    config.write_text(text)
    with pytest.raises(SweepError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_sweep(config)
    out = runner.invoke(app, ["eval", "--config", str(config), "--quiet"])
    assert out.exit_code == 2 and "error:" in out.stderr


def test_settings_flags_with_a_config_are_refused(tmp_path):
    config = tmp_path / "s.toml"
    config.write_text(SWEEP)
    out = runner.invoke(app, ["eval", "--config", str(config), "--rounds", "3"])
    assert out.exit_code == 2 and "put --rounds in the sweep file" in out.stderr
    out = runner.invoke(app, ["eval", "--config", str(config), "--dataset", "mmlu"])
    assert out.exit_code == 2 and "put --dataset in the sweep file (top level)" in out.stderr
    out = runner.invoke(app, ["eval", "--config", str(config), "--seed", "3"])
    assert out.exit_code == 2 and "top level for the sample, [settings]" in out.stderr
    out = runner.invoke(app, ["eval"])
    assert out.exit_code == 2 and "or a sweep --config" in out.stderr


def test_the_top_level_seed_picks_the_sample_and_settings_seed_the_debates(tmp_path):
    one = "[arms.du]\nmethod = 'du'\n"
    top = 'dataset = "arithmetic"\nlimit = 3\nseed = 7\n[settings]\nrounds = 1\n'
    runs = {}
    for name, text in [("top", top), ("both", top + "seed = 4\n")]:
        config = tmp_path / f"{name}.toml"
        config.write_text(text + one)
        out = tmp_path / name
        done = runner.invoke(app, ["eval", "--config", str(config), "--out", str(out), "--quiet"])
        assert done.exit_code == 0, done.output
        runs[name] = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    plain = tmp_path / "plain"
    flags = ["--dataset", "arithmetic", "--limit", "3", "--seed", "7", "--rounds", "1"]
    done = runner.invoke(app, ["eval", *flags, "--method", "du", "--out", str(plain), "--quiet"])
    assert done.exit_code == 0, done.output
    sample = [json.loads(line)["id"] for line in (plain / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in runs["top"]] == [r["id"] for r in runs["both"]] == sample
    assert {r["settings"]["seed"] for r in runs["top"]} == {0}  # the debates' default
    assert {r["settings"]["seed"] for r in runs["both"]} == {4}


def test_retry_settings_in_a_sweep_reach_the_arms_and_bad_ones_are_refused(tmp_path):
    config = tmp_path / "s.toml"
    config.write_text(SWEEP.replace("agents = 3\n", "agents = 3\nmax_attempts = 2\n")
                      + 'retry_backoff = 0.5\n')  # fmt: skip
    arms = {arm.label: arm.settings for arm in load_sweep(config).arms}
    assert {a["max_attempts"] for a in arms.values()} == {2}
    assert arms["du-freemad"]["retry_backoff"] == 0.5 and "retry_backoff" not in arms["du"]
    out = runner.invoke(app, ["eval", "--config", str(config), "--out", str(tmp_path / "o"),
                              "--quiet"])  # fmt: skip
    assert out.exit_code == 0, out.output
    manifest = json.loads((tmp_path / "o" / "run.json").read_text())["settings"]["arms"]
    assert [a["settings"]["max_attempts"] for a in manifest] == [2, 2, 2]
    config.write_text(SWEEP.replace("agents = 3\n", "agents = 3\nmax_attempts = 0\n"))
    bad = runner.invoke(app, ["eval", "--config", str(config), "--out", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "max_attempts" in bad.stderr
    assert not (tmp_path / "b" / "results.jsonl").exists()
