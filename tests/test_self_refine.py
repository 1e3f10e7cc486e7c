"""Self-Refine: its plan per phase, its stop, its tokens, and a golden simulated transcript."""

from __future__ import annotations

import pytest

import debategraph as dg
from debategraph.methods.self_refine import SELF_REFINE, plan, stop
from debategraph.policies.accounting import ncomm, usage_by_kind
from debategraph.policies.tokens import estimate_tokens
from debategraph.testing import ScriptedChatModel, make_turn, make_view

Q = "What is the result of 3+4*5+6-7*2?"


def feedback_turn(round_, agent, label):
    return make_turn(
        f"r{round_}:feedback:{agent}", agent=agent, round=round_, kind="evaluation", label=label
    )


def test_round_0_answers_then_each_round_is_feedback_then_refine():
    assert [c["id"] for c in plan(make_view(SELF_REFINE, agents=2))] == ["r0:a1", "r0:a2"]
    assert plan(make_view(SELF_REFINE, agents=2, phase=1)) is None
    turns = [make_turn("r0:a1", answer="14"), make_turn("r0:a2", answer="15")]
    calls = plan(make_view(SELF_REFINE, turns=turns, round=1, agents=2))
    assert [(c["id"], c["speaker"], c["kind"], c["reads"], c["template"]) for c in calls] == [
        ("r1:feedback:a1", "a1", "evaluation", ["r0:a1"], "feedback"),
        ("r1:feedback:a2", "a2", "evaluation", ["r0:a2"], "feedback"),
    ]
    # a1's feedback finds nothing to fix: only a2 refines, reading its draft and the feedback.
    turns += [feedback_turn(1, "a1", "keep"), feedback_turn(1, "a2", "mask")]
    phase = plan(make_view(SELF_REFINE, turns=turns, round=1, phase=1, agents=2))
    assert [(c["id"], c["reads"], c["template"]) for c in phase.calls] == [
        ("r1:a2", ["r0:a2", "r1:feedback:a2"], "refine")
    ]
    assert phase.method_state == {"refine_stops": {"a1": 1, "a2": None}}
    # Round 2: a1 is done; a2's feedback reads its latest answer, its refine every draft and note.
    turns += [make_turn("r1:a2", answer="16")]
    calls = plan(make_view(SELF_REFINE, turns=turns, round=2, agents=2))
    assert [(c["id"], c["reads"]) for c in calls] == [("r2:feedback:a2", ["r1:a2"])]
    turns += [feedback_turn(2, "a2", "unsure")]
    phase = plan(make_view(SELF_REFINE, turns=turns, round=2, phase=1, agents=2))
    assert [c["reads"] for c in phase.calls] == [
        ["r0:a2", "r1:feedback:a2", "r1:a2", "r2:feedback:a2"]
    ]


def test_stop_after_the_iterations_or_when_every_feedback_is_satisfied():
    turns = [make_turn("r0:a1", answer="14"), feedback_turn(1, "a1", "mask")]
    assert not stop(make_view(SELF_REFINE, turns=turns, round=1, agents=1))
    assert stop(make_view(SELF_REFINE, turns=turns, round=1, agents=1, options={"iterations": 1}))
    satisfied = [*turns, make_turn("r1:a1", answer="15"), feedback_turn(2, "a1", "keep")]
    assert stop(make_view(SELF_REFINE, turns=satisfied, round=2, agents=1))
    # until_ok=False ignores the verdict: the feedback is asked every iteration.
    view = make_view(SELF_REFINE, turns=satisfied, round=2, agents=1, options={"until_ok": False})
    assert not stop(view)
    assert [c["id"] for c in plan(view)] == ["r2:feedback:a1"]


def test_options_are_checked():
    with pytest.raises(dg.DebateConfigError, match="iterations must be at least 1"):
        dg.run(Q, method="self-refine", options={"iterations": 0})


def scripted():
    def respond(prompt):
        if prompt.startswith("Below is a draft solution"):
            return "Step 2 multiplies before adding, fine; step 3 is off. <label>NO</label>"
        return "3 + 20 + 6 - 14 = 15, so \\boxed{15}"

    return ScriptedChatModel(respond=respond)


def test_every_iteration_costs_a_feedback_and_a_refine_call_counted_in_full():
    model = scripted()
    r = dg.run(Q, method="self-refine", models=model, options={"iterations": 3})
    assert [t["id"] for t in r.turns] == [
        "r0:a1", "r1:feedback:a1", "r1:a1", "r2:feedback:a1", "r2:a1",
        "r3:feedback:a1", "r3:a1",
    ]  # fmt: skip
    assert r.usage["calls"] == 1 + 2 * 3 == len(model.calls)
    # No system prompt and no chat history: a call's input is its prompt, its output its reply.
    for turn, sent in zip(r.turns, model.calls, strict=True):
        assert turn["input_tokens"] == estimate_tokens(sent["prompt"])
        assert turn["output_tokens"] == estimate_tokens(turn["text"])
    by_kind = usage_by_kind(r.turns)
    assert by_kind["evaluation"]["calls"] == 3 and by_kind["answer"]["calls"] == 4
    assert by_kind["evaluation"]["output_tokens"] == 3 * estimate_tokens(r.turns[1]["text"])
    assert ncomm(r.turns) == 0  # one model reading only itself
    last = r.turns[-1]["prompt"]
    assert last.count("An earlier draft of yours:") == 2
    assert last.count("Feedback on the draft above:") == 3
    assert last.index("Your own latest answer:") > last.rindex("An earlier draft of yours:")
    assert r.answer == "15" and r.decision["rule"] == "majority"


def test_a_satisfied_feedback_ends_the_refinement():
    model = ScriptedChatModel(respond=lambda p: "All steps hold. <label>YES</label>"
                              if p.startswith("Below is a draft") else "\\boxed{15}")  # fmt: skip
    r = dg.run(Q, method="self-refine", models=model)
    assert [t["id"] for t in r.turns] == ["r0:a1", "r1:feedback:a1"]
    assert r.method_state["refine_stops"] == {"a1": 1}
    assert r.usage["calls"] == 2


def test_golden_transcript_on_the_simulated_debaters():
    r = dg.run(Q, method="self-refine", agents=3, seed=3, options={"iterations": 2})
    assert [(t["id"], t["answer"], t.get("label")) for t in r.turns] == [
        ("r0:a1", "15", None), ("r0:a2", "25", None), ("r0:a3", "15", None),
        ("r1:feedback:a1", None, "keep"), ("r1:feedback:a2", None, "mask"),
        ("r1:feedback:a3", None, "unsure"),
        ("r1:a2", "15", None), ("r1:a3", "15", None),
        ("r2:feedback:a2", None, "keep"), ("r2:feedback:a3", None, "mask"),
        ("r2:a3", "15", None),
    ]  # fmt: skip
    assert r.method_state["refine_stops"] == {"a1": 1, "a2": 2, "a3": None}
    assert r.answer == "15"


def test_the_simulated_debater_answers_a_refine_prompt_that_quotes_a_verdict():
    # The refine prompt quotes the feedback's <label>: the simulated debater answers it.
    r = dg.run(Q, method="self-refine", seed=3, options={"until_ok": False, "iterations": 1})
    assert r.turns[-1]["kind"] == "answer" and "<label>" in r.turns[-1]["prompt"]
    assert r.turns[-1]["answer"] is not None


def test_a_rounds_setting_caps_the_iterations():
    r = dg.run(Q, method="self-refine", models=scripted(), rounds=2)
    assert r.usage["calls"] == 1 + 2 * 2


def test_the_simulated_debater_looks_again_when_its_feedback_finds_a_mistake():
    from langchain_core.messages import HumanMessage

    from debategraph import SimulatedDebater
    from debategraph.methods.self_refine import refine

    draft = make_turn("r0:a1", text="3 + 20 + 6 - 14 is 16.\nThe final answer is \\boxed{16}.")

    def fixed(verdict):
        note = make_turn("r1:feedback:a1", kind="evaluation", text=f"Checked. {verdict}")
        prompt = refine(dg.methods.PromptInput(question=Q, peers=[draft, note]))
        answers = [
            SimulatedDebater(agent="a1", seed=seed, skill=0.9).invoke([HumanMessage(prompt)]).text
            for seed in range(40)
        ]
        return sum("\\boxed{15}" in a for a in answers)

    assert fixed("<label>NO</label>") > 2 * fixed("<label>YES</label>")  # 17 vs 7 (seeded)


def test_the_decision_takes_each_refiners_last_answer():
    # a1 stopped after round 1 holding 14; a2 and a3 refined to 15 and 16, then a3 to 15.
    turns = [
        make_turn("r0:a1", answer="14"), make_turn("r0:a2", answer="12"),
        make_turn("r0:a3", answer="16"), feedback_turn(1, "a1", "keep"),
        make_turn("r1:a2", answer="15"), make_turn("r1:a3", answer="16"),
        make_turn("r2:a3", answer="15"),
    ]  # fmt: skip
    view = make_view(SELF_REFINE, turns=turns, round=2, agents=3)
    decision = SELF_REFINE.decide(view)
    assert (decision.answer, decision.rule) == ("15", "majority")
    assert decision.evidence["votes"] == {"14": 1, "15": 2}
