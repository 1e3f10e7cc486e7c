"""report --decision with the protocols: answer rules re-decide any row, ballot and judge rules
only rows that hold their ballots or judge's call."""

import json

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.analysis.rescore import rescore
from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.runner import Arm, evaluate

ITEMS = load_dataset("gsm8k", limit=6, seed=5)
KEEP = ("answer", "correct", "abstained", "decision")


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("protocols")
    arms = [
        Arm("du", "du", {"agents": 3, "rounds": 1}),
        Arm("du-unanimity", "du", {"agents": 3, "rounds": 1, "decision": "unanimity"}),
        Arm("du-ranked", "du", {"agents": 3, "rounds": 1, "decision": "ranked"}),
        Arm("du-judge", "du", {"agents": 3, "rounds": 1, "decision": "judge"}),
    ]
    return evaluate(ITEMS, arms, out, dataset="gsm8k").rows, out


def by(rows, label):
    return [r for r in rows if r["method"] == label]


def same(a, b):
    return [{k: r[k] for k in KEEP} for r in a] == [{k: r[k] for k in KEEP} for r in b]


def test_an_answer_rule_re_decides_like_running_with_it(rows):
    assert same(rescore(by(rows[0], "du"), "unanimity"), by(rows[0], "du-unanimity"))


def test_ballot_and_judge_rows_re_decide_as_they_were_decided(rows):
    ranked = by(rows[0], "du-ranked")
    assert all(t.get("ballot") for r in ranked for t in r["turns"] if t["round"] == 1)
    rescored = rescore(ranked, "ranked")
    assert same(rescored, ranked)
    judged = by(rows[0], "du-judge")
    assert [r["answer"] for r in rescore(judged, "judge")] == [r["answer"] for r in judged]
    # The judge's call is counted as a decision call in every judged row.
    for r in judged:
        decision_turn = [t for t in r["turns"] if t["kind"] == "decision"]
        assert len(decision_turn) == 1 and r["calls"] == 3 * 2 + 1
        assert r["tokens_by_kind"]["decision"]["input_tokens"] == decision_turn[0]["input_tokens"]


@pytest.mark.parametrize(
    ("stored", "rule", "message"),
    [
        ("du", "approval", "reads the agents' approval ballots, and the rows of du hold none"),
        ("du-ranked", "cumulative", "reads the agents' cumulative ballots"),
        ("du", "judge", "reads a judge's model call, and the rows of du hold none"),
    ],
)
def test_rows_without_what_a_rule_reads_are_refused_with_the_reason(rows, stored, rule, message):
    with pytest.raises(ValueError, match=message):
        rescore(by(rows[0], stored), rule)


def test_report_says_in_one_line_why_it_cannot(rows):
    out = rows[1]
    runner = CliRunner()
    refused = runner.invoke(app, ["report", str(out), "--no-plots", "--decision", "judge"])
    assert refused.exit_code == 2
    assert "run debategraph eval --decision judge instead" in refused.output
    done = runner.invoke(
        app,
        ["report", str(out), "--no-plots", "--decision", "supermajority"],
        catch_exceptions=False,
    )
    assert done.exit_code == 0, done.output
    summary = json.loads((out / "summary.json").read_text())
    assert "du [supermajority]" in json.dumps(summary)


def test_rules_lists_every_rule_and_what_it_reads():
    result = CliRunner().invoke(app, ["rules"])
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.strip()}
    expected = {
        "majority": "reads answers",
        "supermajority": "options: threshold",
        "unanimity": "reads answers; options: none",
        "approval": "reads approval ballots",
        "cumulative": "reads cumulative ballots; options: points",
        "ranked": "reads ranked ballots; options: count",
        "judge": "reads a judge call; options: judge_agent",
    }
    for name, words in expected.items():
        assert words in lines[name], lines[name]


def test_the_protocols_are_entry_points_of_debategraph():
    from debategraph.methods.registry import rule_plugins

    plugins, broken = rule_plugins()
    assert not broken
    sources = {p.name: p.source for p in plugins if p.builtin}
    for name in ("supermajority", "unanimity", "approval", "cumulative", "ranked", "judge"):
        assert sources[name].startswith(f"entry point {name} = debategraph.policies.protocols:")
