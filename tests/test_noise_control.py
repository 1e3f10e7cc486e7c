"""The noise-control arm: the same debate, its peers' words taken from other items."""

from __future__ import annotations

import pytest

import debategraph as dg
from debategraph.eval.datasets.items import Item
from debategraph.eval.run.arms import Arm, noise_arms
from debategraph.methods.noise import noise_method
from debategraph.methods.registry import get_method
from debategraph.policies.noise import noise_rationale
from debategraph.testing import ScriptedChatModel

Q = "What is the result of 3+4*5+6-7*2?"
POOL = [
    (Q, "This question's own worked solution."),
    ("How many legs do 3 spiders have?", "Each spider has 8 legs, so 3 * 8 = 24."),
    ("What is 10 - 4?", "Take 4 from 10 and 6 is left."),
]


def test_the_draw_never_takes_the_question_itself_and_is_seeded():
    drawn = {noise_rationale(POOL, Q, f"0|a1|1|r0:a{i}") for i in range(40)}
    assert drawn == {POOL[1][1], POOL[2][1]}  # both others, never this question's own
    assert noise_rationale(POOL, Q, "k") == noise_rationale(POOL, Q, "k")
    with pytest.raises(ValueError, match="rationales of other items"):
        noise_rationale(POOL[:1], Q, "k")


def test_every_peer_turn_is_replaced_and_the_own_answer_kept():
    model = ScriptedChatModel(replies=["Worked it out: \\boxed{15}"])
    method = noise_method(get_method("du"), POOL, seed=1)
    r = dg.run(Q, method=method, agents=3, rounds=1, models=model)
    plain_model = ScriptedChatModel(replies=["Worked it out: \\boxed{15}"])
    plain = dg.run(Q, method="du", agents=3, rounds=1, models=plain_model)
    assert method.name == "du+noise"
    # The same plan: the same calls, each reading the same turn ids.
    assert [(t["id"], t["reads"]) for t in r.turns] == [(t["id"], t["reads"]) for t in plain.turns]
    assert r.usage["calls"] == plain.usage["calls"] == 6
    for turn in r.turns[3:]:
        prompt = turn["prompt"]
        shown = sum(prompt.count(text) for _, text in POOL[1:])
        assert shown == 2, prompt  # both peers' words come from the other items
        assert POOL[0][1] not in prompt
    # du keeps each agent's own round-0 answer in its chat history, untouched.
    for sent in model.calls[3:]:
        assert ("ai", "Worked it out: \\boxed{15}") in sent["messages"]
        assert "Worked it out" not in sent["prompt"]
    again = dg.run(Q, method=noise_method(get_method("du"), POOL, seed=1), agents=3, rounds=1,
                   models=ScriptedChatModel(replies=["Worked it out: \\boxed{15}"]))  # fmt: skip
    assert [t["prompt"] for t in again.turns] == [t["prompt"] for t in r.turns]


def test_noise_arms_take_the_datasets_rationales_and_skip_what_does_not_debate():
    items = [Item(id=f"i{k}", question=q, reference="1", metadata={"rationale": text})
             for k, (q, text) in enumerate(POOL)]  # fmt: skip
    arms = noise_arms([Arm("du", "du", {"rounds": 1}), Arm("cot", "cot")], items, seed=2)
    assert [a.label for a in arms] == ["du+noise"] and arms[0].settings == {"rounds": 1}
    assert isinstance(arms[0].method, dg.methods.Method) and arms[0].method.debates
    with pytest.raises(ValueError, match=r"rationales .* of at least two items"):
        noise_arms([Arm("du", "du")], items[:1])
    with pytest.raises(ValueError, match="needs a debating method"):
        noise_arms([Arm("cot", "cot")], items)
    with pytest.raises(dg.DebateConfigError, match="does not debate"):
        noise_method(get_method("cot"), POOL)


def test_a_noise_arm_runs_in_an_evaluation_beside_its_debate(tmp_path):
    import json

    from debategraph.eval.datasets import load_dataset
    from debategraph.eval.run.arms import arms_for
    from debategraph.eval.run.runner import evaluate

    items = load_dataset("gsm8k", limit=2)
    arms = arms_for(["du"], {"rounds": 1})
    evaluate(items, arms + noise_arms(arms, items, seed=0), tmp_path, dataset="gsm8k")
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    calls = {(r["method"], r["id"]): r["calls"] for r in rows}
    assert sorted({m for m, _ in calls}) == ["du", "du+noise"]
    for item in items:  # the same calls on every item: budget-matched by construction
        assert calls[("du", item.id)] == calls[("du+noise", item.id)] == 6


def test_eval_noise_control_flag_and_sweep_key_add_the_arm(tmp_path):
    import json

    from typer.testing import CliRunner

    from debategraph.cli import app

    out = tmp_path / "flag"
    args = ["eval", "--method", "du", "--dataset", "gsm8k", "--limit", "2", "--quiet"]
    made = CliRunner().invoke(app, [*args, "--noise-control", "--out", str(out)])
    assert made.exit_code == 0, made.output
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted({r["method"] for r in rows}) == ["du", "du+noise"]
    calls = {r["method"]: sum(x["calls"] for x in rows if x["method"] == r["method"]) for r in rows}
    assert calls["du"] == calls["du+noise"]  # matched in calls by construction
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        f'dataset = "gsm8k"\nlimit = 2\nnoise_control = true\nout = "{tmp_path / "sweep"}"\n'
        '[arms.du]\nmethod = "du"\n'
    )
    made = CliRunner().invoke(app, ["eval", "--config", str(sweep), "--quiet"])
    assert made.exit_code == 0, made.output
    assert "du+noise" in (tmp_path / "sweep" / "results.jsonl").read_text()
    refused = CliRunner().invoke(app, ["eval", "--method", "cot", *args[3:], "--noise-control"])
    assert refused.exit_code == 2 and "needs a debating method" in refused.output
