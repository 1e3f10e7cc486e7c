import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph

import debategraph as dg
from debategraph import DebateContext, build_debate_graph
from debategraph.api import DebateConfigError

from .helpers import Scripted, Tracker

ARITH = "What is the result of 3+4*5+6-7*2?"


@pytest.mark.parametrize(
    ("method", "agents", "rounds"),
    [("cot", 1, 0), ("sc", 5, 0), ("mav", 3, 0), ("du", 3, 2), ("ring", 6, 2)],
)
def test_every_method_runs_with_its_defaults(method, agents, rounds):
    r = dg.run(ARITH, method=method, seed=1)
    assert len(r.agents) == agents
    assert r.rounds == rounds
    assert len(r.turns) == agents * (rounds + 1)
    assert r.answer is not None


def test_du_turn_structure_who_read_what():
    r = dg.run(ARITH, method="du", agents=3, rounds=2, seed=0)
    assert [t["id"] for t in r.turns if t["round"] == 0] == ["r0:a1", "r0:a2", "r0:a3"]
    reads = {t["id"]: t["reads"] for t in r.turns}
    assert all(reads[f"r0:a{i}"] == [] for i in (1, 2, 3))
    assert reads["r1:a1"] == ["r0:a2", "r0:a3"]
    assert reads["r2:a3"] == ["r1:a1", "r1:a2"]
    # du agents keep their own chat history: round-2 prompt input grows past round 1's.
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r2:a1"]["input_tokens"] > by_id["r1:a1"]["input_tokens"]


def test_ring_reads_neighbours_only():
    r = dg.run(ARITH, method="ring", agents=5, rounds=1)
    reads = {t["id"]: t["reads"] for t in r.turns if t["round"] == 1}
    assert reads["r1:a1"] == ["r0:a5", "r0:a2"]
    assert reads["r1:a3"] == ["r0:a2", "r0:a4"]


def test_peers_anonymised_by_default_and_named_on_request():
    anon = dg.run(ARITH, method="du", agents=2, rounds=1)
    named = dg.run(ARITH, method="du", agents=2, rounds=1, anonymize=False)
    assert "from another agent" in anon.turns[-1]["prompt"] and "a1" not in anon.turns[-1]["prompt"]
    assert "Solution from a1" in named.turns[-1]["prompt"]


def test_reference_never_reaches_agents():
    r = dg.run(ARITH, method="du", agents=2, rounds=1, reference="424242")
    assert all("424242" not in t["prompt"] for t in r.turns)
    assert r.correct is False or r.answer == "424242"


def test_accounting_sums_per_turn_values():
    d = dg.run(ARITH, method="du", agents=4, rounds=2).to_dict()
    assert d["usage"]["input_tokens"] == sum(t["input_tokens"] for t in d["turns"])
    assert d["usage"]["output_tokens"] == sum(t["output_tokens"] for t in d["turns"])
    assert d["usage"]["total_tokens"] == d["usage"]["input_tokens"] + d["usage"]["output_tokens"]
    assert d["usage"]["calls"] == len(d["turns"]) == 12
    # 4 agents each read 3 peers in 2 debate rounds.
    assert d["ncomm"] == 4 * 3 * 2 == sum(len(t["reads"]) for t in d["turns"])


def test_json_contract():
    d = json.loads(json.dumps(dg.run(ARITH, method="du", agents=3, rounds=1).to_dict()))
    for key in (
        "method",
        "question",
        "answer",
        "decision",
        "rounds",
        "agents",
        "turns",
        "usage",
        "ncomm",
    ):
        assert key in d
    assert set(d["decision"]) == {"rule", "evidence"}
    assert {"input_tokens", "output_tokens", "total_tokens", "calls"} <= set(d["usage"])
    for t in d["turns"]:
        assert {
            "id",
            "agent",
            "round",
            "kind",
            "answer",
            "confidence",
            "reads",
            "input_tokens",
            "output_tokens",
        } <= set(t)


def test_abstentions_are_excluded_and_counted():
    models = [
        Scripted(replies=["no idea"]),
        Scripted(replies=["\\boxed{4}"]),
        Scripted(replies=["\\boxed{4}"]),
    ]
    r = dg.run("2+2?", method="mav", models=models)
    assert r.answer == "4"
    assert r.abstentions == 1 and r.parse_failures == 1
    assert r.to_dict()["parse_failure_rate"] == pytest.approx(1 / 3)
    # Usage was not reported by this model: estimated and marked.
    assert all(t["usage_estimated"] for t in r.turns)
    assert r.usage["estimated_calls"] == 3


def test_all_abstain_is_no_answer():
    r = dg.run("2+2?", method="mav", models=Scripted(replies=["hmm"]), agents=2)
    assert r.answer is None and r.correct is None


def test_agents_of_a_round_run_concurrently():
    tracker = Tracker()
    models = [Scripted(replies=["\\boxed{1}"], delay=0.05, tracker=tracker) for _ in range(6)]
    dg.run("q?", method="mav", models=models, agents=6)
    assert tracker.peak == 6


def test_max_concurrency_bounds_in_flight_calls():
    tracker = Tracker()
    models = [Scripted(replies=["\\boxed{1}"], delay=0.02, tracker=tracker) for _ in range(6)]
    dg.run("q?", method="mav", models=models, agents=6, config={"max_concurrency": 2})
    assert tracker.peak == 2


def test_the_context_bounds_one_debates_calls_as_studio_sets_it():
    tracker = Tracker()
    models = [Scripted(replies=["\\boxed{1}"], delay=0.02, tracker=tracker) for _ in range(4)]
    r = dg.run("q?", method="du", models=models, agents=4, rounds=1, max_concurrency=1)
    assert tracker.peak == 1 and r.usage["calls"] == 8
    # As Studio sends it: a context dict, on the synchronous path too.
    graph = build_debate_graph("mav", agents=[dg.Agent(f"a{i}", m) for i, m in enumerate(models)])
    tracker.peak = 0
    graph.compile().invoke({"question": "q?"}, context={"max_concurrency": 2})
    assert tracker.peak == 2
    with pytest.raises(dg.DebateConfigError, match="max_concurrency must be at least 1"):
        dg.DebateContext(max_concurrency=0)


def test_factory_returns_uncompiled_graph_that_users_compile():
    builder = build_debate_graph("du", agents=2)
    assert isinstance(builder, StateGraph)
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    out = graph.invoke({"question": ARITH}, config, context=DebateContext(rounds=1))
    assert out["decision"]["answer"] is not None
    assert out["agents"] == ["a1", "a2"] and len(out["turns"]) == 4
    assert graph.get_state(config).next == ()


def test_a_context_for_another_roster_is_refused_with_the_fix():
    graph = build_debate_graph("du", agents=3).compile()
    with pytest.raises(DebateConfigError, match=r"build_debate_graph\(method, agents=5\)"):
        graph.invoke({"question": ARITH}, context=DebateContext(agents=5))


def test_graph_shape_agents_are_nodes_of_the_round_subgraph():
    drawing = build_debate_graph("du", agents=["alice", "bob"]).compile().get_graph(xray=True)
    nodes = set(drawing.nodes)
    assert {"start", "round:plan", "round:alice", "round:bob", "round:observe", "decide"} <= nodes
    edges = {(e.source, e.target) for e in drawing.edges}
    assert {("round:plan", "round:alice"), ("round:alice", "round:observe")} <= edges
    assert ("round:observe", "round:plan") in edges


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"agents": 0}, "agents must be at least 1"),
        ({"rounds": -1}, "rounds must be 0 or more"),
        ({"method": "nope"}, "unknown method"),
        ({"models": "nosuch:model"}, "unknown model provider"),
        ({"models": "openai:gpt-4o-mini"}, "OPENAI_API_KEY"),
        ({"tie_policy": "coin"}, "tie policy"),
        ({"cut_off": ["a9"]}, "cut-off agents"),
        ({"decision": "dictator"}, "unknown decision rule"),
    ],
)
def test_bad_input_fails_before_any_call(kwargs, message):
    with pytest.raises(DebateConfigError, match=message):
        dg.run(ARITH, **kwargs)


def test_empty_question_rejected():
    with pytest.raises(DebateConfigError, match="empty"):
        dg.run("   ")


def test_same_seed_same_debate_different_seed_differs():
    a = dg.run(ARITH, method="du", agents=4, rounds=2, seed=5).to_dict(include_text=True)
    b = dg.run(ARITH, method="du", agents=4, rounds=2, seed=5).to_dict(include_text=True)
    c = dg.run(ARITH, method="du", agents=4, rounds=2, seed=6).to_dict(include_text=True)
    strip = lambda d: [(t["id"], t["text"]) for t in d["turns"]]  # noqa: E731
    assert strip(a) == strip(b)
    assert strip(a) != strip(c)


@pytest.mark.parametrize("rule", ["majority", "freemad", "reconcile"])
def test_any_decision_rule_with_any_method(rule):
    r = dg.run(ARITH, method="du", agents=3, rounds=1, decision=rule)
    assert (
        r.decision["rule"]
        == {"majority": "majority", "freemad": "freemad_score", "reconcile": "reconcile_weighted"}[
            rule
        ]
    )
    assert r.answer is not None
