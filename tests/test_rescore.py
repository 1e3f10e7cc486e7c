"""Re-deciding stored debates with another rule gives what running with that rule gives."""

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.analysis.rescore import rescore, trajectory_of
from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.runner import Arm, evaluate

ITEMS = load_dataset("gsm8k", limit=8, seed=3)
KEEP = ("answer", "correct", "abstained")


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("rescore")
    arms = [
        Arm("du", "du", {"agents": 4, "rounds": 2}),
        Arm("du-freemad", "du", {"agents": 4, "rounds": 2, "decision": "freemad"}),
        Arm("reconcile", "reconcile", {"rounds": 1}),
        Arm("reconcile-vote", "reconcile", {"rounds": 1, "decision": "majority"}),
    ]
    return evaluate(ITEMS, arms, out, dataset="gsm8k").rows, out


def by(rows, label):
    return [r for r in rows if r["method"] == label]


@pytest.mark.parametrize(
    ("stored", "rule", "ran"),
    [("du", "freemad", "du-freemad"), ("reconcile", "majority", "reconcile-vote"),
     ("du-freemad", "majority", "du"), ("reconcile-vote", "reconcile", "reconcile")],
)  # fmt: skip
def test_rescoring_equals_running_with_the_rule(rows, stored, rule, ran):
    rescored = rescore(by(rows[0], stored), rule)
    assert [{k: r[k] for k in KEEP} for r in rescored] == [
        {k: r[k] for k in KEEP} for r in by(rows[0], ran)
    ]
    assert all(r["method"] == f"{stored} [{rule}]" for r in rescored)
    # The debates did not change: same tokens, calls and trajectories.
    assert [r["input_tokens"] for r in rescored] == [r["input_tokens"] for r in by(rows[0], ran)]


def test_trajectory_round_trips_answers_and_confidences(rows):
    row = by(rows[0], "reconcile")[0]
    path = trajectory_of(row)
    assert len(path.agents) == 3 and path.num_rounds == 2
    assert [list(c) for c in zip(*path.answers, strict=True)] == row["round_answers"]
    assert any(c is not None for agent in path.confidences for c in agent)
    with pytest.raises(ValueError, match="no round_answers"):
        trajectory_of({"method": "x", "id": "1"})
    with pytest.raises(ValueError, match="unknown decision rule"):
        rescore(by(rows[0], "du"), "dictator")


def test_report_compares_rules_on_one_set_of_debates(rows):
    out = rows[1]
    result = CliRunner().invoke(
        app, ["report", str(out), "--no-plots", "--decision", "majority", "--decision", "freemad"]
    )
    assert result.exit_code == 0, result.output
    text = (out / "report.md").read_text()
    for label in ("du [majority]", "du [freemad]", "reconcile [freemad]"):
        assert f"| {label} |" in text
