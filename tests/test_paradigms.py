"""MALLM's discussion paradigms: plans per phase and turn order, accounting, golden transcripts."""

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

import debategraph as dg
from debategraph.methods import DebateConfigError, PromptInput, get_method
from debategraph.methods.paradigms import MAX_SPEAKERS, prompts
from debategraph.methods.paradigms.turns import paradigm_cost, peer_reads, speaking_phases
from debategraph.policies.tokens import estimate_tokens
from debategraph.testing import ScriptedChatModel, make_turn, make_view

from .fixed_length import FixedLength

ARITH = "What is the result of 3+4*5+6-7*2?"
CONTESTED = "What is the result of 12+25*7+3-18*4?"  # seed 5: the agents disagree to the end
GOLDEN = Path(__file__).parent / "fixtures" / "paradigms" / "golden.json"
CONFIGS = [
    ("mallm-memory", "sequential"),
    ("mallm-memory", "simultaneous"),
    ("mallm-report", "sequential"),
    ("mallm-report", "simultaneous"),
    ("mallm-relay", "sequential"),
    ("mallm-relay", "simultaneous"),
    ("mallm-collective", None),
]
PARADIGM = {
    "mallm-memory": "memory",
    "mallm-report": "report",
    "mallm-relay": "relay",
    "mallm-collective": "collective",
}


def options(order):
    return {"turn_order": order} if order else {}


def plan_of(name, turns, round_, phase, order, agents=4, **kw):
    view = make_view(get_method(name), turns=turns, round=round_, phase=phase, agents=agents,
                     options=options(order), **kw)  # fmt: skip
    planned = get_method(name).plan(view)
    if planned is None:
        return None
    return [(c["id"], c["template"], c["reads"]) for c in planned]


def answers(round_, agents=("a1", "a2", "a3", "a4")):
    return [make_turn(f"r{round_}:{a}", answer="1") for a in agents]


# --- plans: who speaks, who reads whom, per phase and turn order ------------------------------


def test_round_zero_is_everyone_alone_in_one_phase():
    for name, order in CONFIGS:
        assert plan_of(name, [], 0, 0, order) == [(f"r0:a{i}", "initial", []) for i in range(1, 5)]
        assert plan_of(name, answers(0), 0, 1, order) is None


def test_memory_sequential_reads_the_whole_memory_and_this_rounds_earlier_speakers():
    turns = answers(0) + answers(1)
    assert plan_of("mallm-memory", turns, 2, 0, "sequential") == [
        ("r2:a1", "discuss", ["r1:a1", "r0:a2", "r0:a3", "r0:a4", "r1:a2", "r1:a3", "r1:a4"])
    ]
    turns += [make_turn("r2:a1", answer="1"), make_turn("r2:a2", answer="1")]
    assert plan_of("mallm-memory", turns, 2, 2, "sequential") == [
        ("r2:a3", "discuss",
         ["r1:a3", "r0:a1", "r0:a2", "r0:a4", "r1:a1", "r1:a2", "r1:a4", "r2:a1", "r2:a2"])
    ]  # fmt: skip
    turns += [make_turn("r2:a3", answer="1"), make_turn("r2:a4", answer="1")]
    assert plan_of("mallm-memory", turns, 2, 4, "sequential") is None


def test_memory_window_keeps_the_last_rounds_and_this_round():
    turns = answers(0) + answers(1) + [make_turn("r2:a1", answer="1")]
    got = plan_of("mallm-memory", turns, 2, 1, "sequential")
    view = make_view(get_method("mallm-memory"), turns=turns, round=2, phase=1, agents=4,
                     options={"window": 1})  # fmt: skip
    planned = get_method("mallm-memory").plan(view)
    assert [c["reads"] for c in planned] == [["r1:a2", "r1:a1", "r1:a3", "r1:a4", "r2:a1"]]
    every = ["r1:a2", "r0:a1", "r0:a3", "r0:a4", "r1:a1", "r1:a3", "r1:a4", "r2:a1"]
    assert got == [("r2:a2", "discuss", every)]
    with pytest.raises(DebateConfigError, match="window must be at least 1"):
        dg.run(ARITH, method="mallm-memory", options={"window": 0})


def test_memory_simultaneous_is_one_phase_reading_earlier_rounds_only():
    turns = answers(0) + answers(1)
    got = plan_of("mallm-memory", turns, 2, 0, "simultaneous")
    assert [c[0] for c in got] == ["r2:a1", "r2:a2", "r2:a3", "r2:a4"]
    assert got[3] == ("r2:a4", "discuss",
                      ["r1:a4", "r0:a1", "r0:a2", "r0:a3", "r1:a1", "r1:a2", "r1:a3"])  # fmt: skip
    assert plan_of("mallm-memory", turns, 2, 1, "simultaneous") is None


def test_report_sequential_reports_then_replies_to_this_rounds_report():
    turns = answers(0)
    assert plan_of("mallm-report", turns, 1, 0, "sequential") == [
        ("r1:a1", "report", ["r0:a1", "r0:a2", "r0:a3", "r0:a4"])
    ]
    turns += [make_turn("r1:a1", answer="1")]
    assert plan_of("mallm-report", turns, 1, 1, "sequential") == [
        ("r1:a2", "reply", ["r0:a2", "r1:a1"]),
        ("r1:a3", "reply", ["r0:a3", "r1:a1"]),
        ("r1:a4", "reply", ["r0:a4", "r1:a1"]),
    ]
    assert plan_of("mallm-report", turns + answers(1, ("a2", "a3", "a4")), 1, 2,
                   "sequential") is None  # fmt: skip


def test_report_simultaneous_replies_to_the_previous_report():
    turns = answers(0) + answers(1)
    assert plan_of("mallm-report", turns, 2, 0, "simultaneous") == [
        ("r2:a1", "report", ["r1:a1", "r1:a2", "r1:a3", "r1:a4"]),
        ("r2:a2", "reply", ["r1:a2", "r1:a1"]),
        ("r2:a3", "reply", ["r1:a3", "r1:a1"]),
        ("r2:a4", "reply", ["r1:a4", "r1:a1"]),
    ]


def test_relay_sequential_passes_the_answer_along_the_chain():
    turns = answers(0)
    assert plan_of("mallm-relay", turns, 1, 0, "sequential") == [
        ("r1:a1", "relay", ["r0:a1", "r0:a4"])
    ]
    turns += [make_turn("r1:a1", answer="1")]
    assert plan_of("mallm-relay", turns, 1, 1, "sequential") == [
        ("r1:a2", "relay", ["r0:a2", "r1:a1"])
    ]
    turns += [make_turn("r1:a2", answer="1"), make_turn("r1:a3", answer="1")]
    assert plan_of("mallm-relay", turns, 1, 3, "sequential") == [
        ("r1:a4", "relay", ["r0:a4", "r1:a3"])
    ]


def test_relay_simultaneous_reads_the_predecessors_previous_answer():
    turns = answers(0)
    assert plan_of("mallm-relay", turns, 1, 0, "simultaneous") == [
        ("r1:a1", "relay", ["r0:a1", "r0:a4"]),
        ("r1:a2", "relay", ["r0:a2", "r0:a1"]),
        ("r1:a3", "relay", ["r0:a3", "r0:a2"]),
        ("r1:a4", "relay", ["r0:a4", "r0:a3"]),
    ]


def test_collective_is_simultaneous_refinement_over_every_latest_answer():
    turns = answers(0) + answers(1)
    assert plan_of("mallm-collective", turns, 2, 0, None) == [
        (f"r2:a{i}", "refine", [f"r1:a{i}"] + [f"r1:a{j}" for j in range(1, 5) if j != i])
        for i in range(1, 5)
    ]
    assert plan_of("mallm-collective", turns, 2, 1, None) is None
    with pytest.raises(DebateConfigError, match="unknown option"):
        dg.run(ARITH, method="mallm-collective", options={"turn_order": "sequential"})


def test_a_cut_off_agent_reflects_on_its_own_answer_and_a_lone_agent_too():
    turns = answers(0)
    got = plan_of("mallm-relay", turns, 1, 0, "simultaneous", cut_off=["a2"])
    assert got[1] == ("r1:a2", "reflect", ["r0:a2"])
    assert got[2] == ("r1:a3", "relay", ["r0:a3", "r0:a2"])  # the others still read a2
    lone = dg.run(ARITH, method="mallm-memory", agents=1, rounds=1)
    assert [(t["id"], t["reads"]) for t in lone.turns] == [("r0:a1", []), ("r1:a1", ["r0:a1"])]
    assert lone.turns[1]["prompt"].startswith("Your own latest answer:\n```\n")


def test_speaking_phases_and_reads_as_pure_functions():
    agents = ["x", "y", "z"]
    assert speaking_phases("memory", agents, "sequential") == [["x"], ["y"], ["z"]]
    assert speaking_phases("report", agents, "sequential") == [["x"], ["y", "z"]]
    assert speaking_phases("report", ["x"], "sequential") == [["x"]]
    assert speaking_phases("relay", agents, "simultaneous") == [agents]
    assert speaking_phases("collective", agents, "sequential") == [agents]
    turns = [make_turn("r0:x"), make_turn("r0:y"), make_turn("s", agent="y", round=0,
                                                             kind="summary")]  # fmt: skip
    assert peer_reads("memory", agents, "x", turns, 1) == ["r0:y"]  # summaries are no memory
    assert peer_reads("relay", agents, "x", turns, 1) == []  # z has not answered yet


def test_too_many_agents_for_sequential_turns_is_refused_before_any_call():
    with pytest.raises(DebateConfigError, match="turn_order=simultaneous"):
        dg.run(ARITH, method="mallm-relay", agents=MAX_SPEAKERS + 1, allow_large=True)


# --- accounting ----------------------------------------------------------------------------


def test_paradigm_cost_matches_hand_counts():
    # memory, 3 agents, 2 rounds, sequential: r1 reads 2+3+4, r2 reads 4+5+6 other turns.
    assert paradigm_cost("memory", 3, 2, "sequential") == {"calls": 9, "ncomm": 24, "reads": 30}
    assert paradigm_cost("memory", 3, 2, "simultaneous") == {"calls": 9, "ncomm": 18, "reads": 24}
    # window 1: r2's speakers read 2+3+4 again.
    assert paradigm_cost("memory", 3, 2, "sequential", window=1)["ncomm"] == 18
    assert paradigm_cost("report", 4, 3)["ncomm"] == 3 * (3 + 3)
    assert paradigm_cost("relay", 5, 2)["ncomm"] == 10
    assert paradigm_cost("relay", 1, 2)["ncomm"] == 0
    assert paradigm_cost("collective", 4, 1) == {"calls": 8, "ncomm": 12, "reads": 16}


def blank(turn):
    return {**turn, "text": ""}


@pytest.mark.parametrize(("name", "order"), CONFIGS)
@pytest.mark.parametrize("window", [None, 1])
def test_tokens_are_the_instructions_plus_every_turn_read(name, order, window):
    opts = options(order)
    if window is not None:
        if name != "mallm-memory":
            return
        opts["window"] = window
    a = FixedLength().answer_tokens
    r = dg.run(ARITH, method=name, agents=4, rounds=3, models=FixedLength(), options=opts)
    cost = paradigm_cost(PARADIGM[name], 4, 3, order or "simultaneous", window=window)
    reads = sum(len(t["reads"]) for t in r.turns)
    assert (r.usage["calls"], r.ncomm, reads) == (cost["calls"], cost["ncomm"], cost["reads"])
    assert r.usage["output_tokens"] == a * cost["calls"]
    method, by_id = get_method(name), {t["id"]: t for t in r.turns}
    instructions = 0
    for t in r.turns:
        assert t["input_tokens"] == estimate_tokens(t["prompt"])  # stateless: one message
        read = [by_id[i] for i in t["reads"]]
        p = PromptInput(question=ARITH, peers=read, agent=t["agent"], round=t["round"])
        [template] = [f for f in method.prompts.values() if f(p) == t["prompt"]]
        blanked = replace(p, peers=[blank(x) for x in read])
        instructions += estimate_tokens(template(blanked))
    assert r.usage["input_tokens"] == instructions + a * cost["reads"]


# --- golden transcripts on the simulated debaters ------------------------------------------


def transcript(name, order):
    r = dg.run(CONTESTED, method=name, agents=3, rounds=2, seed=5, options=options(order))
    turns = [
        {k: t[k] for k in ("id", "reads", "answer", "input_tokens", "output_tokens", "prompt",
                           "text")}
        for t in r.turns
    ]  # fmt: skip
    return {"answer": r.answer, "round_answers": r.round_answers(), "turns": turns}


def test_golden_transcripts_of_the_simulated_debaters():
    got = {f"{name}/{order or 'simultaneous'}": transcript(name, order) for name, order in CONFIGS}
    if os.environ.get("DEBATEGRAPH_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert set(got) == set(golden)
    for key, run in golden.items():
        assert got[key] == run, key  # regenerate: DEBATEGRAPH_UPDATE_GOLDEN=1 pytest this test
    # The contested question keeps a dissenter in every paradigm's round 0.
    assert all(len(set(run["round_answers"][0])) > 1 for run in golden.values())


def test_each_paradigm_has_a_studio_graph_and_a_card():
    from debategraph.graphs import studio

    config = json.loads((Path(__file__).parents[1] / "langgraph.json").read_text())
    for name in PARADIGM:
        assert config["graphs"][name]["path"].endswith(f":{name.replace('-', '_')}")
        assert getattr(studio, name.replace("-", "_")).name == name
        card = Path(__file__).parents[1] / get_method(name).card
        assert f"`{name}`" in card.read_text(encoding="utf-8")


def test_the_paradigms_are_listed_by_debategraph_methods_and_run_from_the_command_line():
    from typer.testing import CliRunner

    from debategraph.cli import app

    runner = CliRunner()
    listed = runner.invoke(app, ["methods"])
    assert listed.exit_code == 0, listed.output
    assert all(name in listed.stdout for name in PARADIGM)
    ran = runner.invoke(app, ["run", "--method", "mallm-report", "--option",
                              "turn_order=simultaneous", "--json", ARITH])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.stdout)["settings"]["options"] == {
        "turn_order": "simultaneous", "redraft": False, "neutral": 0, "revote_on_tie": 0,
        "ablation": False, "vote": False, "alterations": False,
    }  # fmt: skip
    bad = runner.invoke(app, ["run", "--method", "mallm-relay", "--option", "turn_order=x", ARITH])
    assert bad.exit_code == 2 and "turn_order must be one of sequential, simultaneous" in bad.output


# --- MALLM's re-vote on ties, neutral agents and everyone-redrafts (issue 41) -------------


def test_a_tie_is_the_top_count_shared_abstentions_aside():
    from debategraph.methods.paradigms.turns import tied

    assert tied(["15", "14"]) and tied(["1", "1", "2", "2", "3"])
    assert not tied(["15", "15", "14"]) and not tied(["15", None, None])
    assert not tied([None, None]) and not tied([])


def boxed(*answers: str) -> ScriptedChatModel:
    return ScriptedChatModel(replies=[f"So \\boxed{{{a}}}" for a in answers])


def test_revote_on_tie_adds_rounds_while_the_answers_tie_as_mallm_simple_voting_does():
    # MALLM v1.0.5 (decision_protocols/simple_voting.py, process_results): a vote whose top
    # count is shared is no decision, and the discussion goes on to vote again next turn.
    question = ARITH
    models = [boxed("15"), boxed("14", "14", "14", "15")]
    r = dg.run(question, method="mallm-memory", agents=2, models=models,
               options={"revote_on_tie": 3})  # fmt: skip
    assert [(t["id"], t["answer"]) for t in r.turns] == [
        ("r0:a1", "15"), ("r0:a2", "14"), ("r1:a1", "15"), ("r1:a2", "14"),
        ("r2:a1", "15"), ("r2:a2", "14"), ("r3:a1", "15"), ("r3:a2", "15"),
    ]  # fmt: skip
    assert r.answer == "15" and r.decision["evidence"]["votes"] == {"15": 2}
    # The re-votes are bounded: a tie that lasts stops after revote_on_tie more rounds.
    stuck = dg.run(question, method="mallm-collective", agents=2,
                   models=[boxed("15"), boxed("14")], options={"revote_on_tie": 2})  # fmt: skip
    assert max(t["round"] for t in stuck.turns) == 4 and stuck.usage["calls"] == 10
    assert stuck.decision["evidence"]["tie"] is True
    # Without the option the debate ends after its rounds, tie or not.
    once = dg.run(question, method="mallm-collective", agents=2,
                  models=[boxed("15"), boxed("14")])  # fmt: skip
    assert max(t["round"] for t in once.turns) == 2
    with pytest.raises(ValueError, match="revote_on_tie must be between 0 and 10"):
        dg.run(question, method="mallm-collective", options={"revote_on_tie": 11})


def test_neutral_agents_mediate_and_do_not_vote_as_mallm_draft_proposers():
    # MALLM v1.0.5 (coordinator.py, init_agents): num_neutral_agents draft proposers come
    # first, told to stay neutral; the decision protocols poll only the panelists.
    question = ARITH
    models = [boxed("7"), boxed("7"), boxed("15"), boxed("15")]
    r = dg.run(question, method="mallm-collective", agents=4, models=models,
               options={"neutral": 1})  # fmt: skip
    assert r.decision["evidence"]["votes"] == {"7": 1, "15": 2} and r.answer == "15"
    assert all(c["prompt"].startswith(prompts.NEUTRAL) for c in models[0].calls)
    assert not any(prompts.NEUTRAL in c["prompt"] for m in models[1:] for c in m.calls)
    # Counted with everyone, the same answers tie 2-2.
    everyone = dg.run(question, method="mallm-collective", agents=4,
                      models=[boxed("7"), boxed("7"), boxed("15"), boxed("15")])  # fmt: skip
    assert everyone.decision["evidence"]["votes"] == {"7": 2, "15": 2}
    with pytest.raises(dg.DebateConfigError, match="neutral=3 leaves no agent to vote"):
        dg.run(question, method="mallm-memory", agents=3, options={"neutral": 3})


def test_redraft_every_agent_drafts_anew_each_round_reading_nothing():
    # MALLM v1.0.5 (discussion_paradigms/paradigm.py, discuss): with
    # all_agents_generate_draft every agent's draft and memory are set to None each turn.
    question = ARITH
    for name in ("mallm-memory", "mallm-report", "mallm-relay", "mallm-collective"):
        r = dg.run(question, method=name, agents=3, options={"redraft": True})
        assert r.usage["calls"] == 3 * 3
        assert all(t["reads"] == [] for t in r.turns), name
        assert {t["prompt"] for t in r.turns if t["agent"] == "a1"} == {r.turns[0]["prompt"]}


def test_ablation_one_model_improves_its_answer_once_per_discussion_call_as_mallm_does():
    # MALLM v1.0.5 (scheduler.py, run_ablation): one model improves the current solution
    # as many times as the discussion exchanged messages (len(globalMemory)), starting
    # from no solution. Ours: agents x (rounds + 1) calls, the first the initial answer.
    solo = boxed("14", "14", "15", "15", "15", "16")
    others = [boxed("99"), boxed("99")]
    r = dg.run(ARITH, method="mallm-memory", agents=3, rounds=1, models=[solo, *others],
               options={"ablation": True})  # fmt: skip
    assert [(t["id"], t["reads"]) for t in r.turns] == [
        ("r0:a1", []), ("r0:a1:1", ["r0:a1"]), ("r0:a1:2", ["r0:a1:1"]),
        ("r1:a1", ["r0:a1:2"]), ("r1:a1:1", ["r1:a1"]), ("r1:a1:2", ["r1:a1:1"]),
    ]  # fmt: skip
    assert r.usage["calls"] == 3 * 2 == len(solo.calls) and not any(m.calls for m in others)
    assert "Current solution:" in solo.calls[1]["prompt"] and "\\boxed{14}" in solo.calls[1][
        "prompt"]  # fmt: skip
    assert r.answer == "16" and r.decision["evidence"]["votes"] == {"16": 1}
    # The same number of calls as the discussion it stands in for.
    discussion = dg.run(ARITH, method="mallm-memory", agents=3, rounds=1)
    assert discussion.usage["calls"] == r.usage["calls"]
    with pytest.raises(dg.DebateConfigError, match="ablation runs one model alone"):
        dg.run(ARITH, method="mallm-memory", options={"ablation": True, "neutral": 1})


def test_votes_are_read_and_counted_by_hand():
    from debategraph.methods.paradigms.turns import read_vote, tally

    assert read_vote("Solution 2 holds.\nVote: 2", 3) == 2
    assert read_vote("**Vote:** Solution 3\nOn reflection:\nVote: 1", 3) == 1
    assert read_vote("2", 3) == 2 and read_vote("Vote: 4", 3) is None
    assert read_vote("I like the second.", 3) is None
    assert tally({"a1": 2, "a2": 2, "a3": 1}) == ({1: 1, 2: 2}, 2)
    assert tally({"a1": 1, "a2": 2, "a3": None}) == ({1: 1, 2: 1}, None)  # a tie
    assert tally({"a1": None}) == ({}, None)


def voting_model(answer: str, votes: list[str]) -> ScriptedChatModel:
    """Answers ``answer``; its k-th vote names ``votes[k]`` (the last repeats)."""
    cast: list[str] = []

    def respond(prompt: str) -> str:
        if "Vote for the best" in prompt:
            cast.append(prompt)
            return f"Vote: {votes[min(len(cast), len(votes)) - 1]}"
        return f"So \\boxed{{{answer}}}"

    return ScriptedChatModel(respond=respond)


def test_vote_with_alterations_as_mallm_voting_protocols_with_alterations():
    # MALLM v1.0.5 (decision_protocols/protocol.py, vote_with_alterations): with the flag,
    # every panelist votes again under each alteration; the anonymous vote decides.
    models = [voting_model("14", ["2"]), voting_model("15", ["2"]), voting_model("14", ["2"])]
    r = dg.run(ARITH, method="mallm-memory", agents=3, rounds=1, models=models,
               options={"vote": True, "alterations": True})  # fmt: skip
    votes = [t for t in r.turns if ":vote:" in t["id"]]
    assert [t["id"] for t in votes[:3]] == [
        "r1:vote:anonymous:a1", "r1:vote:anonymous:a2", "r1:vote:anonymous:a3"]  # fmt: skip
    assert len(votes) == 4 * 3 and r.usage["calls"] == 3 * 2 + 12
    assert all(t["kind"] == "evaluation" and t["answer"] is None for t in votes)
    by_kind = {t["id"].split(":")[2]: t for t in votes if t["agent"] == "a1"}
    assert by_kind["anonymous"]["reads"] == ["r1:a1", "r1:a2", "r1:a3"]
    assert by_kind["history"]["reads"] == ["r0:a1", "r0:a2", "r0:a3", "r1:a1", "r1:a2", "r1:a3"]
    assert "Solution 2 (from a2):" in by_kind["public"]["prompt"]
    assert "(from a" not in by_kind["anonymous"]["prompt"]
    assert by_kind["confidence"]["prompt"].count("(Confidence: 100 %)") == 3
    assert "The discussion so far" in by_kind["history"]["prompt"]
    # Two answers say 14, but every vote names solution 2 (a2's 15): the vote decides.
    assert r.answer == "15" and r.decision["rule"] == "mallm-vote"
    anonymous = r.method_state["votes"]["1"]["anonymous"]
    assert anonymous == {"ballots": {"a1": 2, "a2": 2, "a3": 2}, "answers": ["14", "15", "14"],
                         "counts": {"2": 3}, "winner": 2}  # fmt: skip
    assert set(r.method_state["votes"]["1"]) == {"anonymous", "public", "history", "confidence"}
    with pytest.raises(ValueError, match="set vote=true"):
        dg.run(ARITH, method="mallm-memory", options={"alterations": True})


def test_a_tied_vote_is_held_again_after_another_round():
    # Each votes for itself first (a tie), then both for solution 1.
    models = [voting_model("14", ["1", "1"]), voting_model("15", ["2", "1"])]
    r = dg.run(ARITH, method="mallm-collective", agents=2, rounds=1, models=models,
               options={"vote": True, "revote_on_tie": 2})  # fmt: skip
    assert [t["id"] for t in r.turns if ":vote:" in t["id"]] == [
        "r1:vote:anonymous:a1", "r1:vote:anonymous:a2",
        "r2:vote:anonymous:a1", "r2:vote:anonymous:a2",
    ]  # fmt: skip
    assert r.method_state["votes"]["1"]["anonymous"]["winner"] is None
    assert r.method_state["votes"]["2"]["anonymous"]["winner"] == 1
    assert r.answer == "14" and r.decision["evidence"]["round"] == 2
    # With no re-vote left, a tied vote leaves the decision to the rule over the answers.
    tied_once = dg.run(ARITH, method="mallm-collective", agents=2, rounds=1,
                       models=[voting_model("14", ["1"]), voting_model("15", ["2"])],
                       options={"vote": True})  # fmt: skip
    assert tied_once.decision["rule"] == "majority" and tied_once.decision["evidence"]["tie"]
