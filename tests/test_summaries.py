"""The summarising baselines du-sum and chateval, and the simulator's reading of their prompts."""

import re

from langchain_core.messages import HumanMessage

import debategraph as dg
from debategraph import SimulatedDebater
from debategraph.policies.tokens import estimate_tokens
from debategraph.prompts import summary as prompts
from debategraph.prompts.common import PromptInput, own_answer_block

from .fixed_length import FixedLength

ARITH = "What is the result of 3+4*5+6-7*2?"


def reads(result):
    return {t["id"]: t["reads"] for t in result.turns}


def test_du_sum_summarises_the_other_agents_for_each_agent_every_round():
    r = dg.run(ARITH, method="du-sum", agents=3, rounds=2, seed=1)
    got = reads(r)
    assert [t["id"] for t in r.turns] == [
        "r0:a1", "r0:a2", "r0:a3",
        "r1:summary:a1", "r1:summary:a2", "r1:summary:a3", "r1:a1", "r1:a2", "r1:a3",
        "r2:summary:a1", "r2:summary:a2", "r2:summary:a3", "r2:a1", "r2:a2", "r2:a3",
    ]  # fmt: skip
    assert got["r1:summary:a1"] == ["r0:a2", "r0:a3"]
    assert got["r2:summary:a2"] == ["r1:a1", "r1:a3"]
    assert got["r2:a3"] == ["r2:summary:a3"]
    summaries = r.method_state["summaries"]
    assert [(s["id"], s["for"], s["round"]) for s in summaries][:2] == [
        ("r1:summary:a1", "a1", 1), ("r1:summary:a2", "a2", 1),
    ]  # fmt: skip
    by_id = {t["id"]: t for t in r.turns}
    for s in summaries:  # each lists the answers it read, with who reached them
        listed = re.search(r"Answers reached: (.+)$", s["text"]).group(1)
        read = [by_id[i]["answer"] for i in s["reads"]]
        assert sorted(re.findall(r"(\S+) \(", listed)) == sorted(set(read))
        assert listed.count("Agent ") == len(read)
    assert len(summaries) == 6
    assert r.method_state["du_sum_options"] == {"forget": False}
    assert r.usage["calls"] == 3 * 3 + 3 * 2


def blank(agent="x", kind="answer"):
    return {"id": f"{agent}:{kind}", "agent": agent, "kind": kind, "text": ""}


def instruction(prompt, **fields):
    return estimate_tokens(prompt(PromptInput(question="", **fields)))


def test_du_sum_tokens_are_eq_3_plus_the_repeated_question_plus_instructions():
    a, s = 12, 7
    r = dg.run(ARITH, method="du-sum", agents=3, rounds=2, models=FixedLength())
    q = estimate_tokens(ARITH)
    split = r.method_state["paper_tokens"]
    # M = T = 3 at fixed lengths: M·T·Q + (M²T − M² + M + (MT² − MT)/2)·a + ((MT² + MT)/2 − M)·s.
    assert split["formula"]["total"] == 9 * q + 30 * a + 15 * s
    # Each round-r call re-sends r earlier prompts, each with the question.
    assert split["repeated_question"] == q * 3 * (1 + 2)
    initial = instruction(prompts.DU_SUM_PROMPTS["initial"])
    debate = instruction(prompts.debate_private, agent="x", peers=[blank("s", "summary")])
    summary = instruction(prompts.summarize, peers=[blank("y"), blank("z")])
    expected = 9 * initial + 6 * summary + 9 * debate
    assert split["instruction"] == expected
    assert r.usage["total_tokens"] == split["formula"]["total"] + 9 * q + expected


def test_chateval_shares_one_running_summary_per_round():
    r = dg.run(ARITH, method="chateval", agents=3, rounds=2)
    got = reads(r)
    assert got["r1:summary"] == ["r0:a1", "r0:a2", "r0:a3"]
    assert got["r2:summary"] == ["r1:summary", "r1:a1", "r1:a2", "r1:a3"]
    assert all(got[f"r{k}:a{i}"] == [f"r{k}:summary"] for k in (1, 2) for i in (1, 2, 3))
    assert r.usage["calls"] == 3 * 3 + 2
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r2:summary"]["prompt"].startswith("Summary of the discussion so far: ")
    assert "```" not in by_id["r2:summary"]["prompt"].split("\n\n")[0]
    plain = dg.run(ARITH, method="chateval", agents=3, rounds=2, options={"recursive": False})
    assert reads(plain)["r2:summary"] == ["r1:a1", "r1:a2", "r1:a3"]
    assert plain.method_state["chateval_options"] == {"recursive": False, "forget": False}
    assert "paper_tokens" not in r.method_state


def test_forget_shows_only_the_latest_answer_and_summary():
    r = dg.run(ARITH, method="du-sum", agents=3, rounds=2, models=FixedLength(),
               options={"forget": True})  # fmt: skip
    got = reads(r)
    assert got["r2:a1"] == ["r1:a1", "r2:summary:a1"]
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r2:a1"]["input_tokens"] == estimate_tokens(by_id["r2:a1"]["prompt"])
    assert by_id["r2:a1"]["prompt"].startswith("Your own latest answer:\n```\n")
    assert "paper_tokens" not in r.method_state


def test_a_cut_off_agent_gets_no_summary_and_reads_nothing():
    r = dg.run(ARITH, method="du-sum", agents=3, rounds=2, cut_off=["a2"])
    ids = [t["id"] for t in r.turns]
    assert "r1:summary:a2" not in ids and "r2:summary:a2" not in ids
    got = reads(r)
    assert got["r1:a2"] == [] and got["r2:a2"] == []
    assert got["r1:summary:a1"] == ["r0:a2", "r0:a3"]  # the others still read a2
    by_id = {t["id"]: t for t in r.turns}
    assert "Go over your previous answer once more" in by_id["r2:a2"]["prompt"]
    shared = dg.run(ARITH, method="chateval", agents=3, rounds=1, cut_off=["a2"])
    assert reads(shared)["r1:a2"] == [] and reads(shared)["r1:a1"] == ["r1:summary"]


def test_a_lone_agent_makes_no_summary_call():
    r = dg.run(ARITH, method="du-sum", agents=1, rounds=2)
    assert [t["id"] for t in r.turns] == ["r0:a1", "r1:a1", "r2:a1"]
    c = dg.run(ARITH, method="chateval", agents=2, rounds=1, cut_off=["a1", "a2"])
    assert [t["id"] for t in c.turns] == ["r0:a1", "r0:a2", "r1:a1", "r1:a2"]


def test_simulated_debater_reads_its_own_block_as_its_own_answer():
    model = SimulatedDebater(agent="a1", seed=0)
    own = {"text": "Working it out, 3+20+6-14 is 14.\nThe final answer is \\boxed{14}."}
    peer = "The total is 15.\nThe final answer is \\boxed{15}."
    prompt = (
        f"{own_answer_block(own)}\n\nSolution from another agent:\n```\n{peer}\n```\n\n"
        f"Question: {ARITH}\n\nGive your final answer as a single number in the form "
        "\\boxed{answer} at the end of your response."
    )
    text = model.invoke([HumanMessage(prompt)]).text
    assert "My previous answer was 14." in text
    assert "The other solutions give: 15 (1)." in text


def test_simulated_summariser_reads_the_answer_kind_from_the_answers():
    model = SimulatedDebater(agent="summarizer", seed=0)
    texts = ["So it is B.\nMy final choice is (B).", "It must be B. My final choice is (B).",
             "I think C.\nMy final choice is (C)."]  # fmt: skip
    peers = [{"id": str(k), "agent": f"a{k}", "kind": "answer", "text": t}
             for k, t in enumerate(texts, 1)]  # fmt: skip
    p = PromptInput(question="", peers=peers)
    text = model.invoke([HumanMessage(prompts.summarize(p))]).text
    assert text == (
        "Agent 1, Agent 2 reason their way to B; Agent 3 reasons its way to C.\n"
        "Answers reached: B (Agent 1, Agent 2); C (Agent 3)"
    )
