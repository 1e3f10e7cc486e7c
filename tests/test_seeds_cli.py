"""``debategraph eval --seeds`` and a sweep file's ``seeds``: runs, refusals, the printed table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.run.sweep import SweepError, load_sweep

runner = CliRunner()
ARGS = ["eval", "--method", "du", "--method", "cot", "--dataset", "arithmetic", "--limit", "3"]
ARGS += ["--agents", "2", "--rounds", "1", "--quiet"]

SWEEP = """
dataset = "arithmetic"
limit = 2
seed = 2
seeds = [4, 5]

[settings]
rounds = 1
agents = 2

[arms.du]
method = "du"
"""


def rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_seeds_run_every_method_per_seed_and_print_the_spread(tmp_path):
    out = tmp_path / "run"
    first = runner.invoke(app, [*ARGS, "--seeds", "0,1,2", "--seed", "3", "--out", str(out)])
    assert first.exit_code == 0, first.output
    written = rows(out)
    assert len(written) == 18
    assert [(r["method"], r["seed"]) for r in written[::3]] == [
        ("du", 0), ("du", 1), ("du", 2), ("cot", 0), ("cot", 1), ("cot", 2)
    ]  # fmt: skip
    assert {r["settings"]["seed"] for r in written} == {0, 1, 2}
    # --seed picks the sample, --seeds the debates: the arms record no seed of their own.
    settings = json.loads((out / "run.json").read_text())["settings"]
    assert settings["selection"]["seed"] == 3 and settings["seeds"] == [0, 1, 2]
    assert all("seed" not in arm["settings"] for arm in settings["arms"])
    ids = [r["id"] for r in written if r["method"] == "cot"]
    assert ids == ids[:3] * 3  # the same items under each seed
    assert "Accuracy over seeds" in first.stdout and "| du | 3 |" in first.stdout
    again = runner.invoke(app, [*ARGS, "--seeds", "0,1,2", "--seed", "3", "--out", str(out)])
    assert again.exit_code == 0 and "18 resumed, 0 new" in again.stdout


@pytest.mark.parametrize(
    ("seeds", "message"),
    [
        ("", "--seeds takes integers separated by commas (e.g. 0,1,2,3,4), got ''"),
        ("a,b", "--seeds takes integers separated by commas (e.g. 0,1,2,3,4), got 'a,b'"),
        ("1,,2", "got '1,,2'"),
        ("0,1,0", "--seeds: seed(s) given more than once: 0"),
    ],
)
def test_bad_seeds_are_refused_in_one_line_before_anything(tmp_path, seeds, message):
    out = runner.invoke(app, [*ARGS, "--seeds", seeds, "--out", str(tmp_path / "x")])
    assert out.exit_code == 2, out.output
    assert message in one_line(out.stderr)
    assert len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_a_sweeps_seeds_run_and_resume(tmp_path):
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP)
    out = tmp_path / "out"
    first = runner.invoke(app, ["eval", "--config", str(config), "--out", str(out), "--quiet"])
    assert first.exit_code == 0, first.output
    assert [(r["id"], r["seed"]) for r in rows(out)] == [
        (r["id"], seed) for seed in (4, 5) for r in rows(out)[:2]
    ]
    assert json.loads((out / "run.json").read_text())["settings"]["selection"]["seed"] == 2
    again = runner.invoke(app, ["eval", "--config", str(config), "--out", str(out), "--quiet"])
    assert again.exit_code == 0 and "(4 resumed, 0 new, " in again.output
    flag = runner.invoke(app, ["eval", "--config", str(config), "--seeds", "1,2"])
    assert flag.exit_code == 2
    assert "put --seeds in the sweep file (top level)" in one_line(flag.stderr)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("seeds = [4, 5]", "seeds = []"), "seeds is empty"),
        (("seeds = [4, 5]", "seeds = [4, 4]"), "seed(s) given more than once: 4"),
        (("seeds = [4, 5]", 'seeds = ["a"]'), "seeds must be integers, got 'a'"),
        (("seeds = [4, 5]", "seeds = 4"), "seeds must be list, got 4"),
        (("agents = 2", "agents = 2\nseed = 1"), "drop seed from [settings]"),
        (('method = "du"', 'method = "du"\nseed = 1'), "drop seed from arms.du"),
    ],
)
def test_bad_sweep_seeds_name_the_key_and_the_fix(tmp_path, change, message):
    config = tmp_path / "s.toml"
    config.write_text(SWEEP.replace(*change))
    escaped = message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
    with pytest.raises(SweepError, match=escaped.replace("]", r"\]")):
        load_sweep(config)


def test_only_contested_counts_item_seed_pairs(tmp_path):
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "6", "--agents", "3"]
    out = runner.invoke(app, [*args, "--rounds", "1", "--only-contested", "--seeds", "0,1",
                              "--out", str(tmp_path / "oc"), "--quiet"])  # fmt: skip
    assert out.exit_code == 0, out.output
    written = rows(tmp_path / "oc")
    settled = sum(r["screen"]["settled"] for r in written if r["method"] == "vote@r0")
    assert f"--only-contested: {settled} of 12 (item, seed) pairs settled" in one_line(out.stdout)
    assert len(written) == 12 + (12 - settled)
