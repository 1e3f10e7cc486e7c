"""Graph-level tests of the freemad-n, freemad-c and reconcile methods."""

import json

import pytest
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.policies.tokens import estimate_tokens
from debategraph.policies.voting import derive_seed
from debategraph.prompts.common import INDEPENDENCE_CUE

from .helpers import Scripted

ARITH = "What is the result of 3+4*5+6-7*2?"
runner = CliRunner()


def debate_prompts(result):
    return [t["prompt"] for t in result.turns if t["round"] >= 1]


@pytest.mark.parametrize(
    ("method", "agents", "rule"),
    [("freemad-n", 4, "freemad_score"), ("freemad-c", 4, "freemad_score")],
)
def test_freemad_methods_run_with_their_defaults(method, agents, rule):
    r = dg.run(ARITH, method=method, seed=1)
    assert len(r.agents) == agents and r.rounds == 1
    assert len(r.turns) == agents * 2
    assert r.decision["rule"] == rule
    assert r.answer is not None
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r1:a1"]["reads"] == ["r0:a2", "r0:a3", "r0:a4"]
    # Society of mind: agents keep their own history, so round 1 sees round 0's exchange.
    assert by_id["r1:a1"]["input_tokens"] > by_id["r0:a1"]["input_tokens"] + 100


def test_anti_conformity_cue_only_in_freemad_n_debate_prompts():
    n = dg.run(ARITH, method="freemad-n", rounds=2, seed=0)
    c = dg.run(ARITH, method="freemad-c", rounds=2, seed=0)
    assert all(INDEPENDENCE_CUE in p for p in debate_prompts(n))
    assert all("concrete error" in p for p in debate_prompts(n))
    assert not any(INDEPENDENCE_CUE in t["prompt"] for t in n.turns if t["round"] == 0)
    assert not any(INDEPENDENCE_CUE in t["prompt"] for t in c.turns)
    assert debate_prompts(c)[0] == dg.run(ARITH, method="du", agents=4, rounds=2).turns[4]["prompt"]


def test_freemad_n_decision_evidence_holds_scores():
    r = dg.run(ARITH, method="freemad-n", seed=3)
    evidence = r.decision["evidence"]
    assert evidence["weights"] == [20.0, 25.0, 30.0, 20.0]
    # Ties are seeded per item: the run's seed and the question.
    assert evidence["debate_rounds"] == 1 and evidence["seed"] == derive_seed(3, ARITH)
    assert r.answer in evidence["scores"]
    assert evidence["scores"][r.answer] == max(evidence["scores"].values())
    # Four initial answers earn 20 each; round 1 moves add 15, cost 12.5 or keep 10.
    total = sum(evidence["scores"].values())
    assert 4 * 20 + 4 * 2.5 <= total <= 4 * 20 + 4 * 10


def test_freemad_score_is_over_the_whole_trajectory():
    # a1 keeps 1; a2 and a3 move 2 -> 1; a4 keeps 3. Scores: 1 = 20 + 10 + 2*15, 2 = 40 - 25.
    answers = [["1"], ["2", "1"], ["2", "1"], ["3"]]
    models = [Scripted(replies=[f"\\boxed{{{a}}}" for a in row]) for row in answers]
    r = dg.run("q?", method="freemad-n", models=models)
    assert r.decision["evidence"]["scores"] == {"1": 60.0, "2": 15.0, "3": 30.0}
    assert r.answer == "1"


@pytest.mark.parametrize("method", ["freemad-n", "freemad-c"])
def test_ablation_baselines_debate_then_majority_vote(method):
    r = dg.run(ARITH, method=method, decision="majority", seed=2)
    assert r.decision["rule"] == "majority"
    assert "votes" in r.decision["evidence"]
    same_debate = dg.run(ARITH, method=method, seed=2)
    assert [t["text"] for t in r.turns] == [t["text"] for t in same_debate.turns]
    cue = INDEPENDENCE_CUE in debate_prompts(r)[0]
    assert cue is (method == "freemad-n")


@pytest.mark.parametrize("method", ["freemad-n", "freemad-c"])
def test_cli_ablation_baselines(method):
    out = runner.invoke(app, ["run", "--method", method, "--decision", "majority", "--json", ARITH])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["method"] == method and d["decision"]["rule"] == "majority"
    assert len(d["agents"]) == 4 and d["rounds"] == 1


def test_reconcile_runs_on_the_simulated_model():
    r = dg.run(ARITH, method="reconcile", seed=0, stop_on_consensus=False)
    assert len(r.agents) == 3 and r.rounds == 2
    assert r.decision["rule"] == "reconcile_weighted"
    assert all(t["confidence"] is not None for t in r.turns)
    assert r.answer is not None


def confident(answer, conf):
    return f"My reasoning. \\boxed{{{answer}}}\nConfidence: {conf}"


def test_reconcile_prompt_groups_answers_with_counts_including_own():
    models = [
        Scripted(replies=[confident(9, 0.7), confident(7, 0.8)]),
        Scripted(replies=[confident(7, 0.9)]),
        Scripted(replies=[confident(7, 0.85)]),
    ]
    r = dg.run("q?", method="reconcile", models=models)
    by_id = {t["id"]: t for t in r.turns}
    first = by_id["r1:a1"]
    assert first["reads"] == ["r0:a1", "r0:a2", "r0:a3"]
    prompt = first["prompt"]
    assert prompt.index("2 agents answered 7.") < prompt.index("1 agent answered 9.")
    assert "confidence 0.90" in prompt and "confidence 0.85" in prompt
    own = prompt[prompt.index("1 agent answered 9.") :]
    assert "confidence 0.70" in own and "\\boxed{9}" in own
    assert prompt.count("```") == 6
    assert "Confidence:" in prompt.split("Question:")[-1]
    # Stateless and anonymous: the prompt is the whole input, the same for every agent.
    assert first["input_tokens"] == estimate_tokens(prompt)
    assert by_id["r1:a2"]["prompt"] == prompt
    # Everyone agrees after round 1: no second round.
    assert r.rounds == 1 and r.answer == "7"
    assert r.decision["evidence"]["recalibrated"] == [0.5, 0.8, 0.5]


def test_reconcile_stops_at_consensus_after_the_initial_round():
    models = [Scripted(replies=[confident(5, 0.9)]) for _ in range(3)]
    r = dg.run("q?", method="reconcile", models=models)
    assert r.rounds == 0 and len(r.turns) == 3
    assert all(m.calls == 1 for m in models)


def test_reconcile_runs_all_rounds_without_consensus():
    models = [Scripted(replies=[confident(i, 0.9)]) for i in range(3)]
    r = dg.run("q?", method="reconcile", models=models)
    assert r.rounds == 2 and len(r.turns) == 9


def test_reconcile_cut_off_agent_sees_only_its_own_answer():
    r = dg.run(ARITH, method="reconcile", cut_off=["a2"], stop_on_consensus=False, seed=1)
    for k in (1, 2):
        turns = {t["agent"]: t for t in r.turns if t["round"] == k}
        assert turns["a2"]["reads"] == [f"r{k - 1}:a2"]
        assert "Go over your previous answer" in turns["a2"]["prompt"]
        assert f"r{k - 1}:a2" in turns["a1"]["reads"]
    assert r.ncomm == 2 * 2 * 2
