"""Self-MoA: one model's samples aggregated at once or a window at a time; tokens; decision."""

from __future__ import annotations

import pytest

import debategraph as dg
from debategraph.methods import FORMATS
from debategraph.methods.moa import SELF_MOA
from debategraph.methods.moa import decide_self_moa as decide
from debategraph.methods.moa import plan_self_moa as plan
from debategraph.methods.moa import stop_self_moa as stop
from debategraph.policies.accounting import ncomm
from debategraph.policies.tokens import estimate_tokens
from debategraph.testing import make_turn, make_view

from .fixed_length import FixedLength

Q = "What is the result of 3+4*5+6-7*2?"


def samples(*answers):
    return [make_turn(f"r0:a{i}", answer=a) for i, a in enumerate(answers, 1)]


def aggregation(round_, answer):
    return make_turn(f"r{round_}:aggregator", answer=answer)


def test_one_step_reads_every_sample():
    turns = samples("1", "2", "2", "3", "4")
    calls = plan(make_view(SELF_MOA, turns=turns, round=1, agents=5))
    assert [(c["id"], c["speaker"], c["reads"]) for c in calls] == [
        ("r1:aggregator", "aggregator", ["r0:a1", "r0:a2", "r0:a3", "r0:a4", "r0:a5"])
    ]
    assert stop(make_view(SELF_MOA, turns=turns, round=1, agents=5))


def test_a_window_aggregates_sequentially_carrying_the_synthesis():
    turns = samples("1", "2", "2", "3", "4")
    view = {"agents": 5, "options": {"window": 2}}
    reads = []
    for k in (1, 2, 3):
        (c,) = plan(make_view(SELF_MOA, turns=turns, round=k, **view))
        reads.append(c["reads"])
        assert stop(make_view(SELF_MOA, turns=turns, round=k, **view)) == (k == 3)
        turns.append(aggregation(k, "2"))
    assert reads == [
        ["r0:a1", "r0:a2"],
        ["r1:aggregator", "r0:a3", "r0:a4"],
        ["r2:aggregator", "r0:a5"],
    ]
    # A window as large as the samples is the one-step Self-MoA.
    big = make_view(SELF_MOA, turns=samples("1", "2"), round=1, agents=2, options={"window": 6})
    assert plan(big)[0]["reads"] == ["r0:a1", "r0:a2"] and stop(big)


def test_the_decision_is_the_last_synthesis_unless_a_rule_is_named():
    turns = [*samples("1", "2", "2"), aggregation(1, "7"), aggregation(2, "3")]
    d = decide(make_view(SELF_MOA, turns=turns, round=2, agents=3, options={"window": 2}))
    assert (d.answer, d.rule) == ("3", "aggregator")
    assert d.evidence == {"aggregator": "r2:aggregator", "samples": ["1", "2", "2"], "steps": 2}
    voted = decide(make_view(SELF_MOA, turns=turns, round=2, agents=3,
                             context={"decision": "majority"}))  # fmt: skip
    assert (voted.answer, voted.rule) == ("2", "majority")


def test_options_are_checked():
    with pytest.raises(dg.DebateConfigError, match="window must be at least 1"):
        dg.run(Q, method="self-moa", options={"window": 0})


@pytest.mark.parametrize(("n", "window", "calls"), [(6, None, 7), (6, 4, 8), (6, 2, 9), (5, 2, 8)])
def test_calls_and_tokens(n, window, calls):
    r = dg.run(Q, method="self-moa", agents=n, models=FixedLength(), options={"window": window})
    assert r.usage["calls"] == calls
    assert r.usage["output_tokens"] == 12 * calls
    reply = FixedLength().reply(False)
    attempt = estimate_tokens("Attempt 1:\n```\n" + reply + "\n```")
    carried = estimate_tokens("Your synthesis of the earlier attempts:\n```\n" + reply + "\n```")
    blank = dg.methods.PromptInput(question="")
    instruction = estimate_tokens(SELF_MOA.prompts["aggregate"](blank))
    q = estimate_tokens(f"Question: {Q}") + estimate_tokens(FORMATS["number"])
    first = estimate_tokens("Solve this problem step by step.") + q
    q_line = estimate_tokens(f"Question: {Q}")  # the instruction above has the format
    w = window or n
    expected = n * first
    for k in range(1, calls - n + 1):
        shown = min(w, n - (k - 1) * w)
        expected += instruction - estimate_tokens("Question:") + q_line + shown * attempt
        expected += carried if k > 1 else 0
    assert r.usage["input_tokens"] == expected
    assert ncomm(r.turns) == n  # each sample reaches the aggregator once


def test_golden_transcript_on_the_simulated_debaters():
    r = dg.run(Q, method="self-moa", seed=2, options={"window": 4})
    assert [(t["id"], t["answer"]) for t in r.turns] == [
        ("r0:a1", "16"), ("r0:a2", "15"), ("r0:a3", "17"), ("r0:a4", "5"), ("r0:a5", "15"),
        ("r0:a6", "15"), ("r1:aggregator", "15"), ("r2:aggregator", "15"),
    ]  # fmt: skip
    assert {t["model"] for t in r.turns} == {r.turns[0]["model"]}  # one model throughout
    assert r.answer == "15"
