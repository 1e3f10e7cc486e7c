"""Liang et al.'s debate with a judge: phases by hand, the adaptive break, the final judgement."""

from __future__ import annotations

import io

import pytest
from langchain_core.messages import HumanMessage
from rich.console import Console

import debategraph as dg
from debategraph import SimulatedDebater
from debategraph.methods.mad_judge import (
    LEVELS,
    MAD_JUDGE,
    NO_PREFERENCE,
    decide,
    plan,
    read_preference,
    stop,
)
from debategraph.policies.tokens import estimate_tokens
from debategraph.testing import ScriptedChatModel, make_turn, make_view
from debategraph.transcript import print_transcript

Q = "What is the result of 3+4*5+6-7*2?"


def judge(round_, text, answer=None, final=False):
    suffix = ":final" if final else ""
    reads = [] if final else [f"r{round_}:a1", f"r{round_}:a2"]
    return make_turn(f"r{round_}:judge{suffix}", agent="judge", round=round_, text=text,
                     answer=answer, reads=reads)  # fmt: skip


def test_a_round_is_affirmative_negative_judge():
    view = make_view(MAD_JUDGE, agents=2)
    (a,) = plan(view)
    assert (a["id"], a["reads"], a["template"], a["history"]) == ("r0:a1", [], "open", True)
    turns = [make_turn("r0:a1", answer="14")]
    (n,) = plan(make_view(MAD_JUDGE, turns=turns, phase=1, agents=2))
    assert (n["id"], n["reads"], n["template"], n["history"]) == ("r0:a2", ["r0:a1"], "rebut", True)
    turns.append(make_turn("r0:a2", answer="15"))
    (j,) = plan(make_view(MAD_JUDGE, turns=turns, phase=2, agents=2))
    assert (j["id"], j["speaker"], j["kind"], j["reads"], j["template"]) == (
        "r0:judge", "judge", "evaluation", ["r0:a1", "r0:a2"], "moderate"
    )  # fmt: skip
    turns.append(judge(0, f"Both have a point.\n{NO_PREFERENCE}"))
    assert plan(make_view(MAD_JUDGE, turns=turns, phase=3, agents=2)) is None  # not the last
    # Round 1: the affirmative answers the negative's latest; the negative the affirmative's.
    (a,) = plan(make_view(MAD_JUDGE, turns=turns, round=1, agents=2))
    assert (a["id"], a["reads"], a["template"]) == ("r1:a1", ["r0:a2"], "reply")
    turns.append(make_turn("r1:a1", answer="15"))
    (n,) = plan(make_view(MAD_JUDGE, turns=turns, round=1, phase=1, agents=2))
    assert n["reads"] == ["r1:a1"]


def test_the_last_round_ends_with_a_final_judgement_only_without_a_preference():
    turns = [make_turn("r0:a1", answer="14"), make_turn("r0:a2", answer="15"),
             judge(0, NO_PREFERENCE), make_turn("r1:a1", answer="14"),
             make_turn("r1:a2", answer="15")]  # fmt: skip
    last = {"agents": 2, "round": 1, "context": {"rounds": 1}}
    turns.append(judge(1, "Still open: 15 or 14?\nNo preference yet.\n\\boxed{15}"))
    (f,) = plan(make_view(MAD_JUDGE, turns=turns, phase=3, **last))
    assert (f["id"], f["template"]) == ("r1:judge:final", "final")
    assert f["reads"] == ["r0:a1", "r0:a2", "r1:a1", "r1:a2"]
    preferred = [*turns[:-1], judge(1, "The negative is right.\nPreference: negative")]
    assert plan(make_view(MAD_JUDGE, turns=preferred, phase=3, **last)) is None
    # Without the adaptive break there is no per-round judgement: phase 2 is the final one.
    plain = make_view(MAD_JUDGE, turns=turns[:2], phase=2, agents=2, context={"rounds": 0},
                      options={"adaptive_break": False})  # fmt: skip
    assert [c["id"] for c in plan(plain)] == ["r0:judge:final"]
    early = make_view(MAD_JUDGE, turns=turns[:2], phase=2, agents=2,
                      options={"adaptive_break": False})  # fmt: skip
    assert plan(early) is None


def test_a_preference_stops_the_debate_and_decides():
    turns = [make_turn("r0:a1", answer="14"), make_turn("r0:a2", answer="15")]
    undecided = [*turns, judge(0, f"Unclear between 14 and 15.\n{NO_PREFERENCE}")]
    assert not stop(make_view(MAD_JUDGE, turns=undecided, agents=2))
    decided = [*turns, judge(0, "The affirmative is right.\n**Preference:** Affirmative")]
    assert stop(make_view(MAD_JUDGE, turns=decided, agents=2))
    d = decide(make_view(MAD_JUDGE, turns=decided, agents=2))
    assert (d.answer, d.rule) == ("14", "mad-judge")  # the preferred side's answer
    assert d.evidence == {"judge": "r0:judge", "early": True, "rounds": 1, "sides": ["14", "15"],
                          "judgements": {"r0:judge": "affirmative"}}  # fmt: skip
    # A side preferred whose answer cannot be read decides nothing: the debate goes on.
    unreadable = [make_turn("r0:a1", answer=None), turns[1], decided[-1]]
    assert not stop(make_view(MAD_JUDGE, turns=unreadable, agents=2))
    final = [*undecided, judge(0, "\\boxed{15}", answer="15", final=True)]
    d = decide(make_view(MAD_JUDGE, turns=final, agents=2, context={"rounds": 0}))
    assert (d.answer, d.evidence["judge"], d.evidence["early"]) == ("15", "r0:judge:final", False)
    voted = decide(make_view(MAD_JUDGE, turns=final, agents=2, context={"decision": "majority"}))
    assert voted.rule == "majority"
    assert decide(make_view(MAD_JUDGE, turns=undecided, agents=2)).answer is None


def test_two_debaters_exactly_and_levels_of_disagreement():
    with pytest.raises(dg.DebateConfigError, match=r"mad-judge has two debaters .* agents=2"):
        dg.run(Q, method="mad-judge", agents=3)
    with pytest.raises(dg.DebateConfigError, match="disagreement"):
        dg.run(Q, method="mad-judge", options={"disagreement": "fierce"})
    p = dg.methods.PromptInput(question=Q, options=MAD_JUDGE.options(disagreement="always"))
    assert LEVELS["always"] in MAD_JUDGE.prompts["open"](p)
    assert LEVELS["moderate"] in MAD_JUDGE.prompts["open"](dg.methods.PromptInput(question=Q))


def respond(prompt):
    if "Preference: affirmative" in prompt:
        return f"Neither side convinces me.\n{NO_PREFERENCE}"
    if "you must decide" in prompt:
        return "The negative side holds: \\boxed{15}"
    if prompt.startswith("You take the negative side"):
        return "Not so: \\boxed{15}"
    return "I hold \\boxed{14}"


def test_a_whole_debate_without_a_preference_calls_and_tokens():
    model = ScriptedChatModel(respond=respond)
    r = dg.run(Q, method="mad-judge", models=model, rounds=2)
    assert r.method_state["judgements"] == dict.fromkeys(
        ["r0:judge", "r1:judge", "r2:judge"], "none"
    )
    assert [t["id"] for t in r.turns] == [
        "r0:a1", "r0:a2", "r0:judge", "r1:a1", "r1:a2", "r1:judge", "r2:a1", "r2:a2",
        "r2:judge", "r2:judge:final",
    ]  # fmt: skip
    assert r.usage["calls"] == 3 * 3 + 1
    assert (r.answer, r.decision["evidence"]["early"]) == ("15", False)
    # Debaters and the judge keep their histories: each call re-sends its earlier exchanges.
    by_id = {t["id"]: t for t in r.turns}
    for t, sent in zip(r.turns, model.calls, strict=True):  # one call per phase, in order
        assert t["prompt"] == sent["prompt"]
        assert t["input_tokens"] == sum(estimate_tokens(text) for _, text in sent["messages"])
    sent_by_id = {t["id"]: sent for t, sent in zip(r.turns, model.calls, strict=True)}
    judge = [sent_by_id[f"r{k}:judge"]["messages"] for k in range(3)]
    assert [len(m) for m in judge] == [1, 3, 5]  # its earlier prompts and judgements, then this
    assert [text for _, text in judge[2][:4]] == [
        by_id[i][f] for i in ("r0:judge", "r1:judge") for f in ("prompt", "text")
    ]
    assert len(sent_by_id["r2:a1"]["messages"]) == 5
    assert len(sent_by_id["r2:judge:final"]["messages"]) == 1
    a1 = [by_id[f"r{k}:a1"] for k in range(3)]
    history = sum(estimate_tokens(t["prompt"]) + estimate_tokens(t["text"]) for t in a1[:2])
    assert a1[2]["input_tokens"] == history + estimate_tokens(a1[2]["prompt"])
    assert by_id["r2:judge:final"]["input_tokens"] == estimate_tokens(
        by_id["r2:judge:final"]["prompt"]
    )  # the final judgement reads the debate, not the judge's history


def test_a_judge_that_prefers_a_side_ends_the_debate_with_that_sides_answer():
    def prefer_negative(prompt):
        if "Preference: affirmative" in prompt:
            return "The negative side's order of operations holds.\n**Preference: negative**"
        return respond(prompt)

    r = dg.run(Q, method="mad-judge", models=ScriptedChatModel(respond=prefer_negative))
    assert [(t["id"], t["answer"]) for t in r.turns] == [
        ("r0:a1", "14"), ("r0:a2", "15"), ("r0:judge", None)
    ]  # fmt: skip
    assert (r.answer, r.decision["evidence"]["early"]) == ("15", True)
    assert r.method_state["judgements"] == {"r0:judge": "negative"}


def test_golden_transcript_on_the_simulated_debaters():
    # The simulated judge defers while the sides disagree and it does not see which is right,
    # and names the side it prefers once it chooses: here when both sides reach 15.
    r = dg.run(Q, method="mad-judge", seed=2)
    assert [(t["id"], t["answer"]) for t in r.turns] == [
        ("r0:a1", "16"),
        ("r0:a2", "15"),
        ("r0:judge", None),
        ("r1:a1", "15"),
        ("r1:a2", "15"),
        ("r1:judge", None),
    ]
    assert r.method_state["judgements"] == {"r0:judge": "none", "r1:judge": "affirmative"}
    assert r.decision["evidence"]["early"] and r.answer == "15"
    plain = dg.run(Q, method="mad-judge", seed=2, options={"adaptive_break": False})
    assert [t["id"] for t in plain.turns][-1] == "r2:judge:final"
    assert plain.usage["calls"] == 7


def _moderation(first: str, second: str) -> str:
    return MAD_JUDGE.prompts["moderate"](
        dg.methods.PromptInput(
            question=Q,
            peers=[
                make_turn("r0:a1", text=f"So \\boxed{{{first}}}."),
                make_turn("r0:a2", text=f"So \\boxed{{{second}}}."),
            ],
        )
    )


def test_the_simulated_judge_defers_or_chooses_among_the_sides():
    unsure = SimulatedDebater(agent="judge", seed=0, skill=0.0)
    text = unsure.invoke([HumanMessage(_moderation("16", "17"))]).text
    assert text.strip().splitlines()[-1] == NO_PREFERENCE
    assert read_preference(text) == "none"
    assert not any(ch.isdigit() for ch in text)
    chose = unsure.invoke([HumanMessage(_moderation("16", "16"))]).text
    assert "16" in chose and read_preference(chose) == "affirmative"  # agreeing sides: taken
    sure = SimulatedDebater(agent="judge", seed=0, skill=1.0)  # it sees that 15 is right
    assert read_preference(sure.invoke([HumanMessage(_moderation("16", "15"))]).text) == "negative"
    assert read_preference(sure.invoke([HumanMessage(_moderation("15", "16"))]).text) == (
        "affirmative"
    )


def test_a_cut_off_debater_reads_nothing():
    turns = [make_turn("r0:a1", answer="14"), make_turn("r0:a2", answer="15")]
    (a,) = plan(make_view(MAD_JUDGE, turns=turns, round=1, agents=2, cut_off=["a1"]))
    assert (a["reads"], a["template"]) == ([], "open")
    turns.append(make_turn("r1:a1", answer="14"))
    (n,) = plan(make_view(MAD_JUDGE, turns=turns, round=1, phase=1, agents=2, cut_off=["a2"]))
    assert n["reads"] == []
    assert "cannot see the affirmative" in MAD_JUDGE.prompts["rebut"](
        dg.methods.PromptInput(question=Q)
    )


def test_the_negative_disagrees_in_round_0_and_is_asked_after_that():
    argued = [make_turn("r0:a1", text="So \\boxed{14}.")]
    first = MAD_JUDGE.prompts["rebut"](dg.methods.PromptInput(question=Q, peers=argued))
    assert "You disagree with the affirmative side's answer" in first
    later = MAD_JUDGE.prompts["rebut"](dg.methods.PromptInput(question=Q, peers=argued, round=1))
    assert "Do you agree with the affirmative side's latest argument?" in later
    assert "You disagree" not in later


def test_the_judge_prompt_asks_for_one_ending():
    p = dg.methods.PromptInput(question=Q, peers=[make_turn("r0:a1"), make_turn("r0:a2")])
    text = MAD_JUDGE.prompts["moderate"](p)
    assert "\\boxed" not in text and "Answer:" not in text  # no answer format: one ending
    assert text.rstrip().endswith(f"'{NO_PREFERENCE}'.")


def test_the_transcript_shows_each_judgement_as_read():
    r = dg.run(Q, method="mad-judge", models=ScriptedChatModel(respond=respond), rounds=0)
    out = io.StringIO()
    print_transcript(r, Console(file=out, width=200, color_system=None))
    judged = next(line for line in out.getvalue().splitlines() if "r0:judge " in line)
    assert "│ none" in judged and "unsure" not in judged


def test_judge_feedback_the_debaters_read_the_judge_every_round_as_debatellm_does():
    # DebateLLM (instadeepai/DebateLLM, debatellm/systems.py, DebateWithJudge.answer): every
    # speaker reads the whole message history, the judge's messages of the previous round
    # among them, and the judge's answer of the last round is the system's answer.
    def respond(prompt: str) -> str:
        if "You judge a debate" in prompt and "The debate is over" in prompt:
            return "The negative side is right: \\boxed{15}"
        if "You judge a debate" in prompt:
            assert "name the mistakes or gaps each side should address" in prompt
            return "The affirmative forgot the product 7*2.\nPreference: negative"
        if "The judge assessed the previous round" in prompt:
            assert "The affirmative forgot the product 7*2." in prompt
            return "Fixed: \\boxed{15}"
        return "\\boxed{29}" if "affirmative side in a debate" in prompt else "\\boxed{15}"

    model = ScriptedChatModel(respond=respond)
    options = {"judge_feedback": True, "adaptive_break": False}
    r = dg.run(Q, method="mad-judge", models=model, rounds=2, options=options)
    assert [(t["id"], t["reads"]) for t in r.turns] == [
        ("r0:a1", []), ("r0:a2", ["r0:a1"]), ("r0:judge", ["r0:a1", "r0:a2"]),
        ("r1:a1", ["r0:a2", "r0:judge"]), ("r1:a2", ["r1:a1", "r0:judge"]),
        ("r1:judge", ["r1:a1", "r1:a2"]),
        ("r2:a1", ["r1:a2", "r1:judge"]), ("r2:a2", ["r2:a1", "r1:judge"]),
        ("r2:judge:final", ["r0:a1", "r0:a2", "r1:a1", "r1:a2", "r2:a1", "r2:a2"]),
    ]  # fmt: skip
    # A preference ends nothing without the adaptive break; calls 2(R+1) + R + 1 = 9.
    assert r.usage["calls"] == 9 == len(model.calls)
    assert r.decision["evidence"]["judge"] == "r2:judge:final" and r.answer == "15"
    assert [t["answer"] for t in r.turns if t["agent"] == "a1"] == ["29", "15", "15"]
    # Without the option no debater reads the judge (Liang et al.'s protocol).
    plain = dg.run(Q, method="mad-judge", models=ScriptedChatModel(respond=respond), rounds=2,
                   options={"adaptive_break": False})  # fmt: skip
    assert all("r0:judge" not in t["reads"] for t in plain.turns)
    assert [t["id"] for t in plain.turns][-1] == "r2:judge:final" and len(plain.turns) == 7


def test_judge_feedback_with_the_adaptive_break_and_the_attack():
    turns = [make_turn("r0:a1", answer="29"), make_turn("r0:a2", agent="a2", answer="15"),
             judge(0, "Unclear.\nPreference: none")]  # fmt: skip
    options = {"judge_feedback": True}
    view = make_view(MAD_JUDGE, turns=turns, round=1, agents=2, options=options)
    (a,) = plan(view)
    assert a["reads"] == ["r0:a2", "r0:judge"] and a["template"] == "reply"
    cut = make_view(MAD_JUDGE, turns=turns, round=1, agents=2, options=options, cut_off=["a1"])
    (a,) = plan(cut)
    assert a["reads"] == [] and a["template"] == "open"  # a cut-off debater reads no judge
    # With the adaptive break a preference still ends the debate at once.
    preferring = [*turns[:2], judge(0, "Preference: negative")]
    assert stop(make_view(MAD_JUDGE, turns=preferring, round=0, agents=2, options=options))
    no_break = {"judge_feedback": True, "adaptive_break": False}
    assert not stop(make_view(MAD_JUDGE, turns=preferring, round=0, agents=2, options=no_break))
    # The last round has no per-round judgement when only feedback asks for one.
    last = make_view(MAD_JUDGE, turns=turns, round=2, phase=2, agents=2, options=no_break)
    (c,) = plan(last)
    assert c["id"] == "r2:judge:final"
