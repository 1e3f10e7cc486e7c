"""The gate from every place a method is chosen: names, run, eval, sweep files."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.eval.run.sweep import SweepError, load_sweep
from debategraph.methods.registry import PluginError

runner = CliRunner()
ARITH = "What is the result of 3+4*5+6-7*2?"


def test_a_gated_method_has_a_name_every_lookup_understands():
    for name, rule in (("du+gate-unanimous", "unanimous"), ("du+gate-entropy-0.5", "entropy<0.5"),
                       ("svr+gate-confidence-0.8", "confidence>0.8")):  # fmt: skip
        method = dg.get_method(name)
        assert method.name == name and str(method._gate) == rule  # type: ignore[attr-defined]
    with pytest.raises(PluginError, match="gate rule 'often' is not understood"):
        dg.get_method("du+gate-often")
    with pytest.raises(PluginError, match="cot cannot be gated"):
        dg.get_method("cot+gate-unanimous")
    r = dg.run(ARITH, method="du+gate-unanimous", agents=3)
    assert r.method == "du+gate-unanimous" and "gate" in r.method_state


def test_run_takes_a_gate_and_refuses_a_bad_one():
    done = runner.invoke(app, ["run", "--method", "du", "--gate", "unanimous", "--json", ARITH])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["method"] == "du+gate-unanimous"
    assert result["method_state"]["gate"]["rule"] == "unanimous"
    for args, message in (
        (["--method", "du", "--gate", "entropy<0"], "entropy<H needs H > 0"),
        (["--method", "cot", "--gate", "unanimous"], "cot cannot be gated"),
    ):
        bad = runner.invoke(app, ["run", *args, ARITH])
        assert bad.exit_code == 2 and message in " ".join(bad.stderr.split()), bad.output


def test_eval_gates_every_method_that_debates_and_the_rows_say_whether_it_fired(tmp_path):
    out = tmp_path / "run"
    args = ["eval", "--method", "du", "--method", "cot", "--dataset", "gsm8k", "--limit", "12",
            "--gate", "entropy<1", "--out", str(out), "--quiet"]  # fmt: skip
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {r["method"] for r in rows} == {"du+gate-entropy-1", "cot"}
    gated = [r for r in rows if r["method"] == "du+gate-entropy-1"]
    assert all(r["gate"]["rule"] == "entropy<1" for r in gated)
    # A debated item ran past round 0; a settled one stopped there.
    assert all((r["rounds"] > 0) == r["gate"]["fired"] for r in gated)
    fired = sum(r["gate"]["fired"] for r in gated)
    assert 0 < fired < 12
    again = runner.invoke(app, args)
    assert "24 resumed, 0 new" in again.stdout
    report = runner.invoke(app, ["report", str(out), "--no-plots"])
    assert report.exit_code == 0
    text = (out / "report.md").read_text()
    assert "du+gate-entropy-1: debated" in text
    summary = json.loads((out / "summary.json").read_text())
    gates = [m["gate"] for g in summary["groups"] for m in g["methods"].values() if m["gate"]]
    assert sum(g["debated"] for g in gates) == fired and sum(g["items"] for g in gates) == 12
    nothing = runner.invoke(app, ["eval", "--method", "cot", "--gate", "unanimous", "--out",
                                  str(tmp_path / "x"), "--quiet"])  # fmt: skip
    assert nothing.exit_code == 2 and "nothing to gate" in " ".join(nothing.stderr.split())


def test_a_sweep_arm_takes_a_gate(tmp_path):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('dataset = "arithmetic"\nlimit = 2\n[arms.du-gated]\nmethod = "du"\n'
                     'gate = "unanimous"\n[arms.plain]\nmethod = "du"\n')  # fmt: skip
    arms = load_sweep(sweep).arms
    assert [(a.label, a.method) for a in arms] == [
        ("du-gated", "du+gate-unanimous"), ("plain", "du"),
    ]  # fmt: skip
    assert "gate" not in arms[0].settings
    sweep.write_text('dataset = "arithmetic"\n[arms.x]\nmethod = "cot"\ngate = "unanimous"\n')
    with pytest.raises(SweepError, match=r"arms.x.gate: .*cot cannot be gated"):
        load_sweep(sweep)
