"""``sid-et --decision judge``: the judge is called only where the debate ran."""

from __future__ import annotations

import debategraph as dg
from debategraph import Agent
from debategraph.testing import ScriptedChatModel

Q = "What is the result of 3+4*5+6-7*2?"


def test_a_skipped_debate_makes_no_judge_call():
    first = ScriptedChatModel(replies=["\\boxed{15}"], logprobs=[-0.1, -2.0])  # confident
    others = [ScriptedChatModel(replies=["\\boxed{9}"]) for _ in range(2)]
    team = [Agent(f"a{i}", m) for i, m in enumerate([first, *others], 1)]
    r = dg.run(Q, method="sid-et", agents=team, decision="judge")
    assert (r.answer, r.usage["calls"], len(first.calls)) == ("15", 1, 1)
    assert not any(t["kind"] == "decision" for t in r.turns)
    assert r.decision["rule"] == "sid-et"


def test_a_debate_that_ran_is_judged_once():
    first = ScriptedChatModel(
        respond=lambda p: "\\boxed{9}" if "judge" in p.lower() else "\\boxed{15}",
        logprobs=[-0.1, -3.0],  # unsure: the debate runs
    )
    others = [ScriptedChatModel(respond=lambda p: "\\boxed{9}") for _ in range(2)]
    team = [Agent(f"a{i}", m) for i, m in enumerate([first, *others], 1)]
    r = dg.run(Q, method="sid-et", agents=team, rounds=1, decision="judge")
    judged = [t for t in r.turns if t["kind"] == "decision"]
    assert r.usage["calls"] == 3 + 3 + 1 and len(judged) == 1
    assert (judged[0]["agent"], r.decision["rule"]) == ("a1", "judge")
    assert len(first.calls) == 3
