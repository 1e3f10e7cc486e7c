"""Mixture-of-Agents: layers by hand, the aggregator's decision, tokens, a golden transcript."""

from __future__ import annotations

import pytest

import debategraph as dg
from debategraph.methods import FORMATS
from debategraph.methods.moa import MOA, SYNTHESIS
from debategraph.methods.moa import decide_moa as decide
from debategraph.methods.moa import plan_moa as plan
from debategraph.methods.moa import stop_moa as stop
from debategraph.policies.accounting import ncomm
from debategraph.policies.tokens import estimate_tokens
from debategraph.testing import ScriptedChatModel, make_turn, make_view

from .fixed_length import FixedLength

Q = "What is the result of 3+4*5+6-7*2?"


def layer(round_, answers, agent="a"):
    return [make_turn(f"r{round_}:{agent}{i}", answer=a) for i, a in enumerate(answers, 1)]


def test_each_layer_reads_all_of_the_previous_layer_and_the_aggregator_ends_it():
    first = plan(make_view(MOA, agents=3))
    assert [(c["id"], c["reads"], c["template"]) for c in first] == [
        ("r0:a1", [], "initial"), ("r0:a2", [], "initial"), ("r0:a3", [], "initial"),
    ]  # fmt: skip
    turns = layer(0, ["1", "2", "3"])
    second = plan(make_view(MOA, turns=turns, round=1, agents=3))
    assert [(c["speaker"], c["reads"], c["template"], c["history"]) for c in second] == [
        (a, ["r0:a1", "r0:a2", "r0:a3"], "synthesize", False) for a in ("a1", "a2", "a3")
    ]
    turns += layer(1, ["2", "2", "3"])
    last = plan(make_view(MOA, turns=turns, round=2, agents=3))
    assert [(c["id"], c["speaker"], c["kind"], c["reads"]) for c in last] == [
        ("r2:aggregator", "aggregator", "answer", ["r1:a1", "r1:a2", "r1:a3"])
    ]
    assert not stop(make_view(MOA, turns=turns, round=1, agents=3))
    assert stop(make_view(MOA, turns=turns, round=2, agents=3))
    # MoA-Lite: two layers, the aggregator reads the first answers.
    lite = plan(make_view(MOA, turns=layer(0, ["1", "2"]), round=1, agents=2,
                          options={"layers": 2}))  # fmt: skip
    assert [(c["speaker"], c["reads"]) for c in lite] == [("aggregator", ["r0:a1", "r0:a2"])]


def test_the_decision_is_the_aggregators_answer_unless_a_rule_is_named():
    turns = layer(0, ["1", "2", "3"]) + layer(1, ["2", "2", "3"])
    turns.append(make_turn("r2:aggregator", answer="3"))
    decision = decide(make_view(MOA, turns=turns, round=2, agents=3))
    assert decision.answer == "3" and decision.rule == "aggregator"
    assert decision.evidence == {"aggregator": "r2:aggregator", "proposals": ["2", "2", "3"]}
    # A named rule votes over the proposers' last answers (the aggregator is no agent).
    voted = decide(make_view(MOA, turns=turns, round=2, agents=3,
                             context={"decision": "majority"}))  # fmt: skip
    assert voted.answer == "2" and voted.rule == "majority"
    silent = decide(make_view(MOA, turns=turns[:-1], round=2, agents=3))
    assert silent.answer is None and silent.evidence["aggregator"] is None


def test_options_are_checked():
    with pytest.raises(dg.DebateConfigError, match="layers must be at least 2"):
        dg.run(Q, method="moa", options={"layers": 1})


@pytest.mark.parametrize(("agents", "layers"), [(6, 3), (3, 2), (2, 4)])
def test_calls_and_tokens_per_layer(agents, layers):
    r = dg.run(Q, method="moa", agents=agents, models=FixedLength(),
               options={"layers": layers})  # fmt: skip
    assert r.usage["calls"] == agents * (layers - 1) + 1
    assert r.usage["output_tokens"] == 12 * r.usage["calls"]
    # Tokens never span whitespace, so a prompt's count is the sum of its pieces' counts:
    # the instruction, each response block of the previous layer, the question, the format.
    q = estimate_tokens(f"Question: {Q}") + estimate_tokens(FORMATS["number"])
    response = estimate_tokens("Response 1:\n```\n" + FixedLength().reply(False) + "\n```")
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r0:a1"]["input_tokens"] == estimate_tokens("Solve this problem step by step.") + q
    aggregate = estimate_tokens(SYNTHESIS + " Yours is the final answer.") + agents * response + q
    assert by_id[f"r{layers - 1}:aggregator"]["input_tokens"] == aggregate
    if layers > 2:
        assert by_id["r1:a1"]["input_tokens"] == estimate_tokens(SYNTHESIS) + agents * response + q
    expected = agents * (estimate_tokens("Solve this problem step by step.") + q)
    expected += agents * (layers - 2) * (estimate_tokens(SYNTHESIS) + agents * response + q)
    assert r.usage["input_tokens"] == expected + aggregate
    assert r.usage["input_tokens"] == sum(estimate_tokens(t["prompt"]) for t in r.turns)
    # NComm: each proposer of a later layer reads the n - 1 others; the aggregator reads all n.
    assert ncomm(r.turns) == agents * (agents - 1) * (layers - 2) + agents


def test_heterogeneous_proposers_and_the_aggregator_on_the_first_agents_model():
    strong = ScriptedChatModel(respond=lambda p: "\\boxed{15}", label="strong")
    weak = ScriptedChatModel(respond=lambda p: "\\boxed{14}", label="weak")
    agents = [dg.Agent("a1", strong), dg.Agent("a2", weak), dg.Agent("a3", weak)]
    r = dg.run(Q, method="moa", agents=agents, options={"layers": 2})
    assert [t["answer"] for t in r.turns] == ["15", "14", "14", "15"]
    assert len(strong.calls) == 2 and len(weak.calls) == 2
    assert strong.calls[-1]["prompt"].count("Response ") == 3
    assert r.answer == "15" and r.decision["rule"] == "aggregator"
    named = dg.run(Q, method="moa", agents=agents, options={"layers": 2},
                   role_models={"aggregator": "simulated"})  # fmt: skip
    assert named.turns[-1]["model"].startswith("simulated") and len(strong.calls) == 3


def test_golden_transcript_on_the_simulated_debaters():
    r = dg.run(Q, method="moa", seed=1)
    assert [(t["id"], t["answer"]) for t in r.turns] == [
        ("r0:a1", "15"), ("r0:a2", "15"), ("r0:a3", "15"), ("r0:a4", "14"), ("r0:a5", "15"),
        ("r0:a6", "15"),
        ("r1:a1", "15"), ("r1:a2", "15"), ("r1:a3", "15"), ("r1:a4", "15"), ("r1:a5", "15"),
        ("r1:a6", "15"),
        ("r2:aggregator", "15"),
    ]  # fmt: skip
    assert r.answer == "15" and r.usage["calls"] == 13


def test_a_rounds_setting_caps_the_layers():
    capped = dg.run(Q, method="moa", agents=2, rounds=1, models=FixedLength())
    assert [t["id"] for t in capped.turns] == ["r0:a1", "r0:a2", "r1:aggregator"]
    with pytest.raises(dg.DebateConfigError, match="moa needs at least one round"):
        dg.run(Q, method="moa", rounds=0)


def test_a_cut_off_proposer_reads_only_its_own_last_response():
    turns = layer(0, ["1", "2", "3"])
    calls = plan(make_view(MOA, turns=turns, round=1, agents=3, cut_off=["a2"]))
    assert [c["reads"] for c in calls] == [
        ["r0:a1", "r0:a2", "r0:a3"], ["r0:a2"], ["r0:a1", "r0:a2", "r0:a3"],
    ]  # fmt: skip
