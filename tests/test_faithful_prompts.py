"""Prompts that mean what the papers mean (issue 22), checked on what the models receive."""

from __future__ import annotations

import re

import pytest

import debategraph as dg
from debategraph import Agent
from debategraph.policies.verdicts import parse_verdict
from debategraph.prompts import groupdebate
from debategraph.prompts.common import SUMMARY_REQUEST
from debategraph.testing import ScriptedChatModel

Q = "How many apples are left?"
_BOXED = re.compile(r"\\boxed\{(\d+)\}")
_BLOCK = re.compile(r"^[^\n]+:\n```\n.*?\n```", re.MULTILINE | re.DOTALL)


def debater(answer: str) -> ScriptedChatModel:
    """Keeps ``answer``; as summariser, repeats the answers it was shown; as evaluator, says
    YES to a solution ending in 4 and NO to any other."""

    def respond(prompt: str) -> str:
        if SUMMARY_REQUEST in prompt:
            shown = ", ".join(_BOXED.findall(prompt))
            return f"Two lines of reasoning.\nAnswers reached: {shown}"
        if "<label>" in prompt:
            return (
                "<label>YES</label>" if _BOXED.findall(prompt)[-1] == "4" else "<label>NO</label>"
            )
        return f"Step by step. \\boxed{{{answer}}}"

    return ScriptedChatModel(respond=respond)


def team(*answers: str) -> tuple[list[Agent], list[ScriptedChatModel]]:
    models = [debater(a) for a in answers]
    return [Agent(f"a{i}", m) for i, m in enumerate(models, 1)], models


@pytest.mark.parametrize("method", ["groupdebate", "du-sum", "chateval"])
def test_a_summary_request_shows_every_answer_with_its_author_and_asks_for_no_verdict(method):
    agents, models = team("4", "5", "4", "6")
    options = {"groups": (2, 2), "shuffle": False} if method == "groupdebate" else None
    dg.run(Q, method=method, agents=agents, rounds=2, options=options)
    # The summariser is the first agent's model.
    summaries = [c for c in models[0].calls if SUMMARY_REQUEST in c["prompt"]]
    assert summaries
    for c in summaries:
        blocks = _BLOCK.findall(c["prompt"])
        labels = [b.split(":\n", 1)[0] for b in blocks]
        assert labels == [f"Agent {k}" for k in range(1, len(blocks) + 1)]
        assert len(blocks) >= 2
    request = SUMMARY_REQUEST.lower()
    assert "every answer reached and who reached it" in request
    assert "do not judge which is right" in request and "every" in request
    for word in ("most of", "most common", "majority", "support", "best", "correct answer"):
        assert word not in request, word


def test_groupdebate_frames_every_debating_call_as_a_system_message_but_not_the_summary():
    agents, models = team("4", "5", "4", "6")
    r = dg.run(Q, method="groupdebate", agents=agents, rounds=3,
               options={"groups": (2, 2), "shuffle": False})  # fmt: skip
    calls = [c for m in models for c in m.calls]
    debating = [c for c in calls if SUMMARY_REQUEST not in c["prompt"]]
    summarising = [c for c in calls if SUMMARY_REQUEST in c["prompt"]]
    assert len(debating) == 4 * 4 and len(summarising) == 2
    assert all(c["messages"][0] == ("system", groupdebate.SYSTEM) for c in debating)
    assert all(all(role != "system" for role, _ in c["messages"]) for c in summarising)
    assert sum(t["kind"] == "summary" for t in r.turns) == 2


def without_memories(prompt: str) -> str:
    return re.sub(r"<memory>(?:\n\n<memory>)*", "<memories>", _BLOCK.sub("<memory>", prompt))


def test_mad_and_madm2_send_the_same_debate_prompt_and_differ_only_in_the_memories():
    def round1(method: str) -> list[str]:
        r = dg.run(Q, method=method, agents=team("4", "5", "4")[0])
        return [t["prompt"] for t in r.turns if t["round"] == 1 and t["kind"] == "answer"]

    mad, masked = round1("mad"), round1("madm2-s")
    assert [p.count("```\n") for p in mad] == [6] * 3  # three memories
    assert [p.count("```\n") for p in masked] == [4] * 3  # a2's "5" judged wrong
    # Less the memory blocks, the texts are the same, word for word.
    assert {without_memories(p) for p in mad} == {without_memories(p) for p in masked}
    assert len({without_memories(p) for p in mad}) == 1
    text = mad[0].lower()
    for loaded in ("kept", "mistake", "previous round", "mask"):
        assert loaded not in text, loaded


@pytest.mark.parametrize(("groups", "shown"), [("all", ["4", "5", "6"]), (2, ["4", "5"])])
def test_reconcile_shows_all_answer_groups_or_the_two_most_common(groups, shown):
    agents, _ = team("4", "5", "6", "4")
    r = dg.run(Q, method="reconcile", agents=agents, rounds=1,
               options={"answer_groups": groups})  # fmt: skip
    prompt = next(t["prompt"] for t in r.turns if t["id"] == "r1:a1")
    assert re.findall(r"agents? answered (\d+)\.", prompt) == shown
    assert ("all agents gave" in prompt) == (groups == "all")


def test_reconcile_answer_groups_from_the_command_line_and_its_errors():
    options = dg.get_method("reconcile").options
    assert options.from_pairs(["answer_groups=2"]).answer_groups == 2
    assert options.from_pairs(["answer_groups=all"]).answer_groups == "all"
    with pytest.raises(ValueError, match="answer_groups must be 'all' or at least 1"):
        options(answer_groups=0)
    with pytest.raises(ValueError, match="answer_groups must be"):
        options.from_pairs(["answer_groups=most"])


@pytest.mark.parametrize(
    ("text", "last", "first"),
    [
        ("<label>NO</label> on reflection, <label>YES</label>", ("keep", True), ("mask", True)),
        ("<LABEL>YES</LABEL>", ("keep", True), ("unsure", False)),
        ("<label> Yes. </label>", ("keep", True), ("keep", True)),
        ("<label>NOT SURE</label>", ("unsure", True), ("unsure", True)),
        ("<label>correct</label>", ("keep", True), ("unsure", False)),
        ("no label at all", ("unsure", False), ("unsure", False)),
    ],
)
def test_the_two_verdict_readings(text, last, first):
    assert parse_verdict(text) == parse_verdict(text, "last_label") == last
    assert parse_verdict(text, "first_label") == first


def test_madm2_s_verdict_option_changes_the_mask_and_the_recorded_label():
    def judge(prompt: str) -> str:
        if "<label>" in prompt:  # changes its mind: first NO, finally YES
            return "<label>NO</label> Wait, re-checking: <label>YES</label>"
        return "\\boxed{4}"

    for reading, kept in (("last_label", 3), ("first_label", 0)):
        models = [ScriptedChatModel(respond=judge) for _ in range(3)]
        r = dg.run(Q, method="madm2-s", models=models, options={"verdict": reading})
        (mask,) = r.method_state["masks"]
        assert len(mask["kept"]) == kept
        labels = {t["label"] for t in r.turns if t["kind"] == "evaluation"}
        assert labels == {"keep" if kept else "mask"}
