"""--only-contested: a round-0 screen first; methods run only where it finds disagreement."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from debategraph.api import DebateConfigError
from debategraph.eval.analysis.dynamics import settled_at_round0
from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.datasets import load_dataset
from debategraph.eval.log.store import RESULTS_FILE
from debategraph.eval.report.writer import write_report
from debategraph.eval.run.arms import SCREEN_LABEL, Arm, arms_for, check_arms, screen_arm
from debategraph.eval.run.runner import evaluate

ITEMS = load_dataset("arithmetic", limit=12)
SETTINGS = {"agents": 3, "rounds": 1, "models": "simulated", "seed": 2}


def rows_of(path):
    return [json.loads(line) for line in (path / RESULTS_FILE).read_text().splitlines()]


@pytest.mark.parametrize(
    ("first", "settled"),
    [
        (["12", "12", "12"], True),
        (["12", "13", "12"], False),
        (["12", None, "12"], False),  # an abstention is a disagreement
        ([None, None], False),
        (["12"], False),  # one agent settles nothing
        ([], False),
    ],
)
def test_settled_means_every_agent_gave_the_same_answer(first, settled):
    row = {"method": "du", "id": "q1", "round_answers": [first, ["1"] * len(first)]}
    assert settled_at_round0(row) is settled


def test_the_screen_is_the_first_debating_arms_round_zero():
    arms = arms_for(["cot", "du", "mav"], {**SETTINGS, "temperature": 0.3}, only_contested=True)
    screen = arms[0]
    assert [a.label for a in arms] == [SCREEN_LABEL, "cot", "du", "mav"]
    assert screen.screens and screen.method == "du" and screen.to_json()["screens"] is True
    assert screen.settings == {"agents": 3, "rounds": 0, "models": "simulated", "seed": 2,
                               "temperature": 0.3}  # fmt: skip
    assert screen_arm([Arm("g", "groupdebate", {})]).settings["agents"] == 5  # its default
    with pytest.raises(ValueError, match="needs a method that debates"):
        screen_arm(arms_for(["cot", "mav"], SETTINGS))
    with pytest.raises(ValueError, match=r"give it 2 or more \(--agents"):
        screen_arm([Arm("du", "du", {"agents": 1})])
    with pytest.raises(DebateConfigError, match="must be the first arm"):
        check_arms([arms[1], screen])


def test_the_screen_carries_the_first_debating_arms_personas(tmp_path):
    personas = {"a1": "You are a careful accountant.", "a3": "You check every sum twice."}
    arms = arms_for(["du"], {**SETTINGS, "personas": personas}, only_contested=True)
    assert arms[0].settings["personas"] == personas
    evaluate(ITEMS[:2], arms[:1], tmp_path, dataset="arithmetic")
    assert [r["settings"]["personas"] for r in rows_of(tmp_path)] == [personas] * 2
    # Budget-matched votes sample the plain model: an agent's role prompt maps to no sample.
    matched = arms_for(["du"], {**SETTINGS, "personas": personas}, match_budget=True)
    assert "personas" not in matched[1].settings


def test_methods_run_only_on_contested_items_and_the_count_is_reported(tmp_path):
    arms = arms_for(["du", "mav"], SETTINGS, only_contested=True)
    outcome = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    rows = rows_of(tmp_path)
    screens = {r["id"]: r for r in rows if r["method"] == SCREEN_LABEL}
    assert set(screens) == {item.id for item in ITEMS}
    contested = {i for i, r in screens.items() if not settled_at_round0(r)}
    assert 0 < len(contested) < len(ITEMS)  # the fixture has both kinds
    for label in ("du", "mav"):
        assert {r["id"] for r in rows if r["method"] == label} == contested
    assert all(r["screen"] == {"settled": i not in contested} for i, r in screens.items())
    assert outcome.settled == len(ITEMS) - len(contested)
    assert outcome.count == len(rows) == len(ITEMS) + 2 * len(contested)
    screen = summarize(rows)[SCREEN_LABEL]["screen"]
    right = sum(screens[i]["correct"] for i in contested)
    assert screen == {"items": len(ITEMS), "settled": outcome.settled,
                      "contested_accuracy": right / len(contested)}  # fmt: skip
    report = write_report(tmp_path, plots=False).read_text()
    assert f"{outcome.settled} were settled" in report
    assert f"the {len(contested)} contested ones" in report


def test_a_resumed_run_skips_the_settled_items_it_screened_before(tmp_path):
    arms = arms_for(["du"], SETTINGS, only_contested=True)
    full = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    screens = [r for r in rows_of(tmp_path) if r["method"] == SCREEN_LABEL]
    (tmp_path / RESULTS_FILE).write_text("".join(json.dumps(r) + "\n" for r in screens))
    again = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    assert (again.resumed, again.written) == (len(ITEMS), len(ITEMS) - full.settled)
    assert again.settled == full.settled and again.count == full.count
    last = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    assert (last.written, last.settled, last.count) == (0, full.settled, full.count)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_finished_read_only_run_counts_only_the_contested_rows(tmp_path):
    arms = arms_for(["du"], SETTINGS, only_contested=True)
    full = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    tmp_path.chmod(0o555)
    try:
        again = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    finally:
        tmp_path.chmod(0o755)
    assert (again.written, again.settled, again.count) == (0, full.settled, full.count)


class Recorder:
    def __init__(self):
        self.totals, self.seen = {}, []

    def start(self, totals, done):
        self.totals = dict(totals)
        self.seen += list(done)

    def advance(self, row):
        self.seen.append(dict(row))

    def stop(self):
        pass


def test_progress_hears_of_every_skipped_item_so_each_arm_reaches_its_total(tmp_path):
    arms = arms_for(["du"], SETTINGS, only_contested=True)
    progress = Recorder()
    outcome = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic", progress=progress)
    assert Counter(r["method"] for r in progress.seen) == progress.totals
    skipped = [r for r in progress.seen if r.get("skipped")]
    assert len(skipped) == outcome.settled and {r["method"] for r in skipped} == {"du"}
    resumed = Recorder()  # resumed: the markers come with the finished rows
    evaluate(ITEMS, arms, tmp_path, dataset="arithmetic", progress=resumed)
    assert Counter(r["method"] for r in resumed.seen) == resumed.totals


def run_cli(*args, cwd):
    code = "from debategraph.cli import main; main()"
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


@pytest.mark.slow
def test_the_command_line_and_a_sweep_file_screen_alike(tmp_path):
    flags = ["--dataset", "arithmetic", "--limit", "12", "--quiet"]
    cli = run_cli("eval", *flags, "--method", "du", "--agents", "3", "--rounds", "1",
                  "--seed", "2", "--only-contested", "--out", "cli", cwd=tmp_path)  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    settled = sum(r["screen"]["settled"] for r in rows_of(tmp_path / "cli") if "screen" in r)
    assert f"--only-contested: {settled} of 12 items settled (all 3 agents" in cli.stdout
    assert f"on the {12 - settled} contested ones, vote@r0's vote scores" in cli.stdout
    (tmp_path / "sweep.toml").write_text(
        'dataset = "arithmetic"\nlimit = 12\nseed = 2\nonly_contested = true\nout = "swept"\n'
        '[settings]\nagents = 3\nrounds = 1\nseed = 2\n[arms.du]\nmethod = "du"\n'
    )
    swept = run_cli("eval", "--config", "sweep.toml", "--quiet", cwd=tmp_path)
    assert swept.returncode == 0, swept.stderr
    assert f"{settled} of 12 items settled" in swept.stdout
    refused = run_cli("eval", "--config", "sweep.toml", "--only-contested", cwd=tmp_path)
    assert refused.returncode == 2 and "only_contested = true" in refused.stderr
