"""The debate gate: its measures (hand-computed), its rule parser, and gated methods."""

from __future__ import annotations

import math
import re

import pytest

import debategraph as dg
from debategraph import Agent, GateRule, gate_from_text, gated
from debategraph.policies.gate import (
    answer_counts,
    answer_entropy,
    majority_confidence,
    plurality_share,
)
from debategraph.prompts.common import CONFIDENCE_REQUEST
from debategraph.testing import ScriptedChatModel, registered

Q = "What is the result of 3+4*5+6-7*2?"
_BOXED = re.compile(r"\\boxed\{([^}]*)\}")

# --- the measures ------------------------------------------------------------------------


def test_entropy_in_bits_by_hand():
    # 2 of 3 and 1 of 3: -(2/3 log2 2/3 + 1/3 log2 1/3) = log2 3 - 2/3
    assert answer_entropy(["4", "4", "5"]) == pytest.approx(math.log2(3) - 2 / 3, abs=1e-15)
    assert answer_entropy(["4", "5", "6"]) == pytest.approx(math.log2(3), abs=1e-15)
    assert answer_entropy(["4", "4", "5", "5"]) == 1.0
    assert answer_entropy(["4", "4", "4"]) == 0.0
    assert str(answer_entropy(["4"])) == "0.0"  # not -0.0
    # each abstention is a category of its own: [2, 1, 1] of 4 -> 1/2 * 1 + 2 * (1/4 * 2)
    assert answer_counts(["4", None, "4", None]) == [2, 1, 1]
    assert answer_entropy(["4", "4", None, None]) == 1.5
    assert answer_entropy([None, None]) == 1.0
    with pytest.raises(ValueError, match="empty vote"):
        answer_entropy([])


def test_plurality_share_and_majority_confidence_by_hand():
    assert plurality_share(["4", "4", "5", None]) == 0.5
    assert plurality_share(["4", "4"]) == 1.0
    assert plurality_share([None, None]) == 0.0
    answers = ["4", "4", "5", "4"]
    assert majority_confidence(answers, [0.9, 0.6, 1.0, None]) == pytest.approx(0.5)  # 1.5 / 3
    assert majority_confidence(["4", "5"], [0.9, 0.9]) == 0.0  # a tie: no majority
    assert majority_confidence([None, None], [0.9, 0.9]) == 0.0
    with pytest.raises(ValueError, match="2 answers but 1 confidences"):
        majority_confidence(["4", "4"], [0.5])


# --- the rule parser -----------------------------------------------------------------------


def test_rules_parse_from_command_line_text():
    assert gate_from_text("unanimous") == GateRule("unanimous")
    assert gate_from_text(" Entropy < 0.5 ") == GateRule("entropy", 0.5)
    assert gate_from_text("confidence>.8") == GateRule("confidence", 0.8)
    assert gate_from_text("entropy<1e-1").bound == 0.1
    assert [str(gate_from_text(t)) for t in ("unanimous", "entropy<1", "confidence>0.75")] == [
        "unanimous", "entropy<1", "confidence>0.75"
    ]  # fmt: skip
    assert gate_from_text("entropy<0.5").slug == "entropy-0.5"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("majority", "is not understood; use unanimous, entropy<H"),
        ("entropy>0.5", "is not understood"),
        ("entropy<", "is not understood"),
        ("entropy<0", "needs H > 0"),
        ("confidence>1", r"needs C in \[0, 1\)"),
        ("confidence>-0.1", r"needs C in \[0, 1\)"),
    ],
)
def test_bad_rule_text_is_a_clear_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        gate_from_text(text)


def test_bounds_are_strict():
    entropy, confidence = GateRule("entropy", 1.0), GateRule("confidence", 0.8)
    assert not entropy.settled(1.0) and entropy.settled(0.999)
    assert not confidence.settled(0.8) and confidence.settled(0.81)
    assert GateRule("unanimous").settled(1.0) and not GateRule("unanimous").settled(0.99)


# --- gated methods ---------------------------------------------------------------------------


def team(*answers: str, confidence: float | None = None) -> list[Agent]:
    """Scripted agents that always give their answer (with a confidence line if asked)."""

    def model(answer: str) -> ScriptedChatModel:
        line = f"\nConfidence: {confidence}" if confidence is not None else ""
        reply = f"Step by step. \\boxed{{{answer}}}{line}"
        return ScriptedChatModel(respond=lambda p: reply)

    return [Agent(f"a{i}", model(a)) for i, a in enumerate(answers, 1)]


def test_a_settled_round_zero_skips_the_debate():
    method = gated("du", "unanimous")
    assert method.name == "du+gate-unanimous" and dg.get_method("du").stop is not method.stop
    r = dg.run(Q, method=method, agents=team("15", "15", "15"), rounds=2)
    assert (r.answer, r.rounds, r.usage["calls"]) == ("15", 0, 3)
    gate = {"rule": "unanimous", "value": 1.0, "settled": True, "fired": False}
    assert r.method_state["gate"] == gate
    assert r.decision["rule"] == "majority" and r.decision["evidence"]["gate"] == gate


def test_an_unsettled_round_zero_debates_as_the_method_does():
    r = dg.run(Q, method=gated("du", "entropy<0.9"), agents=team("15", "15", "9"), rounds=2)
    assert r.rounds == 2 and r.usage["calls"] == 9  # du: 3 agents x (1 + 2 rounds)
    gate = r.method_state["gate"]
    assert gate["value"] == pytest.approx(math.log2(3) - 2 / 3) and gate["fired"]
    settled = dg.run(Q, method=gated("du", "entropy<1"), agents=team("15", "15", "9"))
    assert settled.rounds == 0 and settled.answer == "15"


def test_a_confidence_gate_asks_for_confidences():
    method = gated("du", "confidence>0.8")
    assert method.confidence and not dg.get_method("du").confidence
    sure = team("15", "15", "9", confidence=0.9)
    r = dg.run(Q, method=method, agents=sure)
    assert r.rounds == 0 and r.method_state["gate"]["value"] == pytest.approx(0.9)
    assert all(CONFIDENCE_REQUEST in t["prompt"] for t in r.turns)
    unsure = dg.run(Q, method=method, agents=team("15", "15", "9", confidence=0.8), rounds=1)
    assert unsure.rounds == 1 and not unsure.method_state["gate"]["settled"]


def test_gating_svr_decides_from_its_own_state_after_round_zero():
    debaters = [
        Agent(f"a{i}", ScriptedChatModel(respond=lambda p, a=a: f"\\boxed{{{a}}}", logprobs=[lp]))
        for i, (a, lp) in enumerate([("15", -0.1), ("15", -0.2), ("9", -0.3)], 1)
    ]
    r = dg.run(Q, method=gated("svr", "entropy<1"), agents=debaters)
    assert r.rounds == 0 and r.usage["calls"] == 3 and r.answer == "15"
    assert r.decision["rule"] == "svr"
    assert r.decision["evidence"]["outcome"] == "fallback"  # svr's vote over its state
    assert r.method_state["scores"] == pytest.approx([math.exp(-0.1), math.exp(-0.2),
                                                      math.exp(-0.3)])  # fmt: skip
    assert r.method_state["gate"]["settled"]
    opened = dg.run(Q, method=gated("svr", "unanimous"), agents=debaters)
    assert opened.rounds >= 1 and opened.method_state["gate"]["fired"]


@pytest.mark.filterwarnings("ignore::debategraph.policies.mdm.UnknownModelSizeWarning")
def test_an_async_observe_is_composed():
    r = dg.run(Q, method=gated("cortex", "unanimous"), agents=team("15", "15", "15"))
    assert r.rounds == 0 and r.method_state["gate"]["settled"]
    assert "mdm" in r.method_state  # cortex's own observe ran too


def test_methods_that_cannot_be_gated_are_refused():
    with pytest.raises(dg.DebateConfigError, match="mav cannot be gated: it does not debate"):
        gated("mav")
    with pytest.raises(dg.DebateConfigError, match="gated already"):
        gated(gated("du"), "entropy<1")
    with pytest.raises(ValueError, match="is not understood"):
        gated("du", "sometimes")


def test_a_gated_method_registers_and_runs_by_name():
    method = gated(dg.get_method("s2mad"), GateRule("entropy", 0.5), name="s2mad-gated")
    with registered(method):
        r = dg.run(Q, method="s2mad-gated", agents=team("15", "15", "15", "15"))
    assert r.method == "s2mad-gated" and r.rounds == 0
    assert r.method_state["gate"]["value"] == 0.0 and "groups" in r.method_state
