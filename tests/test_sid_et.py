"""SID-ET: the offline skip-rate math on hand-made rows, and whole scripted debates."""

from __future__ import annotations

import pytest

import debategraph as dg
from debategraph import Agent
from debategraph.methods.sid_et import SidEtOptions
from debategraph.policies.sid_et import (
    PAPER_SKIP_RATES,
    SidEtItem,
    sid_et_at,
    sid_et_items,
    skip_count,
    tune_skip_rate,
)
from debategraph.testing import ScriptedChatModel

Q = "What is the result of 3+4*5+6-7*2?"

# --- offline SID-ET at a skip rate -----------------------------------------------------------


def item(id, min_ll, first_correct, debate_correct, first_tokens=100, debate_tokens=1000):
    return SidEtItem(
        id=id,
        min_ll=min_ll,
        first_answer="1" if first_correct else "2",
        first_correct=first_correct,
        first_tokens=first_tokens,
        debate_answer="1" if debate_correct else "3",
        debate_correct=debate_correct,
        debate_tokens=debate_tokens,
    )


# q1 and q4 are the most confident; the first agent is right on q1, q2, q4; the debate on
# q1, q2, q3, q5 (so skipping q4's debate costs nothing, skipping q5's costs a right answer).
ITEMS = [
    item("q1", -0.2, True, True),
    item("q2", -1.5, True, True),
    item("q3", -3.0, False, True),
    item("q4", -0.1, True, False),
    item("q5", -2.0, False, True),
]


def test_skip_counts_floor_the_share():
    assert [skip_count(r, 5) for r in (0.0, 0.1, 0.2, 0.39, 0.4, 0.9, 1.0)] == [0, 0, 1, 1, 2, 4, 5]
    assert skip_count(0.57, 100) == 57  # 0.57 * 100 is 56.99999999999999 in floating point
    assert skip_count(0.7, 10) == 7
    with pytest.raises(ValueError, match=r"skip rate must lie in \[0, 1\]"):
        skip_count(1.1, 5)


def test_sid_et_at_a_skip_rate_by_hand():
    out = sid_et_at(ITEMS, 0.4)  # floor(0.4 * 5) = 2: q4 (-0.1) and q1 (-0.2) skip
    assert [d.skipped for d in out.items] == [True, False, False, True, False]
    assert [d.correct for d in out.items] == [True, True, True, True, True]
    assert [d.tokens for d in out.items] == [100, 1000, 1000, 100, 1000]
    assert out.correct == 5 and out.accuracy == 1.0 and out.tokens == 3200
    assert out.threshold == -0.2 and out.skipped == 2
    out = sid_et_at(ITEMS, 0.8)  # q4, q1, q2, q5 skip; only q3 is debated
    assert [d.answer for d in out.items] == ["1", "1", "1", "1", "2"]
    assert out.correct == 4 and out.tokens == 4 * 100 + 1000 and out.threshold == -2.0
    none = sid_et_at(ITEMS, 0.0)
    assert none.skipped == 0 and none.threshold is None and none.tokens == 5000
    assert none.correct == 4  # the debate alone: q4's debate is wrong


def test_equal_signals_keep_the_order_given():
    tied = [item("a", -1.0, False, True), item("b", -1.0, True, True)]
    assert [d.skipped for d in sid_et_at(tied, 0.5).items] == [True, False]


def test_a_skipped_debate_cannot_be_evaluated_at_a_lower_rate():
    skipped_run = [SidEtItem("q", -0.1, "1", True, 100), item("r", -2.0, True, True)]
    assert sid_et_at(skipped_run, 0.5).items[0].skipped
    with pytest.raises(ValueError, match="mode=record"):
        sid_et_at(skipped_run, 0.0)


def test_tune_skip_rate_is_alg_2():
    # At 90% (4 skip): 4 right, 4*100 + 1000 = 1400 tokens; at 80% the same; at 70% (3 skip:
    # q4, q1, q2): 5 right, 2300 tokens.
    by_accuracy = tune_skip_rate(ITEMS, reference_accuracy=1.0, reference_tokens=10_000)
    assert (by_accuracy.skip_rate, by_accuracy.reason) == (0.7, "accuracy")
    assert by_accuracy.tried == ((0.9, 0.8, 1400), (0.8, 0.8, 1400), (0.7, 1.0, 2300))
    by_tokens = tune_skip_rate(ITEMS, reference_accuracy=1.0, reference_tokens=1399)
    assert (by_tokens.skip_rate, by_tokens.reason) == (0.9, "tokens")
    matched = tune_skip_rate(ITEMS, reference_accuracy=0.8, reference_tokens=0)
    assert (matched.skip_rate, matched.reason) == (0.9, "accuracy")  # a tie is a match
    never = [item(f"q{i}", -float(i), False, False) for i in range(10)]
    fallback = tune_skip_rate(never, reference_accuracy=0.5, reference_tokens=10**9)
    assert (fallback.skip_rate, fallback.reason) == (0.1, "fallback")
    assert [t[0] for t in fallback.tried] == list(PAPER_SKIP_RATES)
    assert fallback.outcome.skipped == 1
    with pytest.raises(ValueError, match="at least one skip rate"):
        tune_skip_rate(ITEMS, 1.0, 1, rates=())


def row(id, reference, record, **fields):
    base = {"id": id, "reference": reference, "task": "number", "answer": "15",
            "correct": reference == "15", "input_tokens": 900, "output_tokens": 300}  # fmt: skip
    return {**base, **fields, "method_state": {"sid_et": record}}


def test_items_from_evaluation_rows():
    first = {"min_ll": -0.5, "answer": "15", "input_tokens": 60, "output_tokens": 40,
             "skipped": False}  # fmt: skip
    rows = [row("x", "15", first), row("y", "16", {**first, "skipped": True}, sid_et=None)]
    x, y = sid_et_items(rows)
    assert x == SidEtItem("x", -0.5, "15", True, 100, "15", True, 1200)
    assert (y.first_correct, y.debate_correct, y.debate_tokens) == (False, None, None)
    with pytest.raises(ValueError, match="row 'z' has no sid-et record"):
        sid_et_items([{"id": "z", "method_state": {}}])


# --- the method --------------------------------------------------------------------------


def agents(first: ScriptedChatModel, *others: ScriptedChatModel) -> list[Agent]:
    return [Agent(f"a{i}", m) for i, m in enumerate([first, *others], 1)]


def test_a_confident_first_agent_answers_alone():
    first = ScriptedChatModel(replies=["Step by step. \\boxed{15}"], logprobs=[-0.1, -2.0])
    others = [ScriptedChatModel(replies=["\\boxed{9}"]) for _ in range(2)]
    r = dg.run(Q, method="sid-et", agents=agents(first, *others))
    assert (r.answer, r.usage["calls"], r.rounds) == ("15", 1, 0)
    assert not others[0].calls and first.calls[0]["kwargs"]["logprobs"] is True
    record = r.method_state["sid_et"]
    assert record["min_ll"] == -2.0 and record["confident"] and record["skipped"]
    assert record["input_tokens"] == r.usage["input_tokens"]
    assert r.decision == {
        "rule": "sid-et",
        "evidence": {"sid_et": {"outcome": "skipped", "min_ll": -2.0, "threshold": -2.5,
                                "confident": True}, "agent": "a1"},
    }  # fmt: skip


def test_an_unsure_first_agent_opens_an_all_to_all_debate():
    first = ScriptedChatModel(replies=["\\boxed{15}"], logprobs=[-0.1, -2.5])  # not above -2.5
    others = [ScriptedChatModel(respond=lambda p: "\\boxed{9}") for _ in range(2)]
    r = dg.run(Q, method="sid-et", agents=agents(first, *others), rounds=1)
    assert r.usage["calls"] == 3 + 3 and r.rounds == 1 and r.answer == "9"
    assert not r.method_state["sid_et"]["confident"]
    assert "logprobs" not in others[0].calls[0]["kwargs"]  # only the first answer asks
    # round 1 is du: every agent reads both others' first answers and keeps its history
    debate = [t for t in r.turns if t["round"] == 1]
    assert [sorted(t["reads"]) for t in debate] == [
        ["r0:a2", "r0:a3"], ["r0:a1", "r0:a3"], ["r0:a1", "r0:a2"]
    ]  # fmt: skip
    assert len(others[0].calls[1]["messages"]) == 3  # its first prompt, its answer, this one
    assert r.decision["evidence"]["sid_et"]["outcome"] == "debated"


def test_record_mode_debates_and_keeps_the_signal():
    first = ScriptedChatModel(replies=["\\boxed{15}"], logprobs=[-0.3])
    others = [ScriptedChatModel(replies=["\\boxed{15}"]) for _ in range(2)]
    r = dg.run(Q, method="sid-et", agents=agents(first, *others), rounds=1,
               options={"mode": "record"})  # fmt: skip
    assert r.usage["calls"] == 6
    record = r.method_state["sid_et"]
    assert record["confident"] and not record["skipped"] and record["mode"] == "record"
    assert record["answer"] == "15" and record["output_tokens"] == r.turns[0]["output_tokens"]


def test_a_threshold_option_moves_the_cut():
    first = ScriptedChatModel(replies=["\\boxed{15}"], logprobs=[-1.0])
    others = [ScriptedChatModel(replies=["\\boxed{15}"]) for _ in range(2)]
    r = dg.run(Q, method="sid-et", agents=agents(first, *others), rounds=1,
               options={"threshold": -0.5})  # fmt: skip
    assert r.usage["calls"] == 6 and not r.method_state["sid_et"]["confident"]


def test_no_logprobs_is_a_clear_error():
    first = ScriptedChatModel(replies=["\\boxed{15}"])  # returns no logprobs
    with pytest.raises(dg.DebateConfigError, match=r"returned no token logprobs.*--logprobs"):
        dg.run(Q, method="sid-et", agents=agents(first, ScriptedChatModel(replies=["1"])))


def test_options_are_checked():
    with pytest.raises(ValueError, match=r"a finite number at most 0, got 0\.5"):
        SidEtOptions(threshold=0.5)
    for bad in (float("nan"), float("-inf")):
        with pytest.raises(ValueError, match="threshold must be a finite number"):
            SidEtOptions(threshold=bad)
    with pytest.raises(dg.DebateConfigError, match="mode"):
        dg.run(Q, method="sid-et", options={"mode": "sometimes"})


def test_the_simulated_debater_runs_it():
    r = dg.run(Q, method="sid-et", options={"mode": "record"}, rounds=1)
    assert r.method_state["sid_et"]["min_ll"] < 0 and r.usage["calls"] == 12


# --- SID-ET as an arm of the report --------------------------------------------------------


def recorded(id, min_ll, first, reference, debate="15"):
    record = {"agent": "a1", "min_ll": min_ll, "answer": first, "input_tokens": 60,
              "output_tokens": 40, "skipped": False}  # fmt: skip
    turns = [{"round": 0, "agent": "a1", "kind": "answer", "answer": first, "input_tokens": 60,
              "output_tokens": 40, "answer_source": "declared"},
             {"round": 0, "agent": "a2", "kind": "answer", "answer": debate, "input_tokens": 60,
              "output_tokens": 50, "answer_source": "declared"}]  # fmt: skip
    return row(id, reference, record, method="sid-et", answer=debate,
               correct=debate == reference, calls=6, turns=turns,
               round_answers=[[first, debate], [debate, debate]])  # fmt: skip


def test_sid_et_at_a_skip_rate_becomes_an_arm_of_its_own():
    from debategraph.eval.analysis.rescore import sid_et_arm

    rows = [recorded("p", -0.1, "15", "15"), recorded("q", -3.0, "9", "15"),
            recorded("r", -0.5, "7", "8", "8"), recorded("s", -2.0, "4", "4", "5")]  # fmt: skip
    arm = {r["id"]: r for r in sid_et_arm(rows, 0.5)}  # p and r are the most confident
    assert {r["method"] for r in arm.values()} == {"sid-et · skip 50%"}
    assert [arm[i]["sid_et_skip"]["skipped"] for i in "pqrs"] == [True, False, True, False]
    assert arm["p"]["sid_et_skip"]["threshold"] == -0.5
    skipped = arm["r"]
    assert (skipped["answer"], skipped["correct"], skipped["calls"]) == ("7", False, 1)
    assert (skipped["input_tokens"], skipped["output_tokens"]) == (60, 40)
    assert skipped["round_answers"] == [["7"]] and len(skipped["turns"]) == 1
    # Its bill is the one call it kept, not the debate's.
    assert skipped["usage_by_source"] == {
        "paid": {"calls": 1, "input_tokens": 60, "output_tokens": 40, "latency_s": 0.0}
    }
    assert skipped["cached_calls"] == 0
    assert (arm["q"]["answer"], arm["q"]["correct"], arm["q"]["calls"]) == ("15", True, 6)
    assert arm["q"]["input_tokens"] == 900  # a debated question keeps its whole debate
    svr = [dict(r, method="svr", correct=True, input_tokens=500, output_tokens=0) for r in rows]
    # Alg. 2 against svr (4/4 right, 2,000 tokens): at 90% and 80% three skip (3/4 right,
    # 3 x 100 + 1,200 tokens); at 70% two do, and two debates cost 2 x 100 + 2 x 1,200 =
    # 2,600 > 2,000: chosen for its tokens.
    auto = sid_et_arm([*rows, *svr], "auto")
    assert {r["method"] for r in auto} == {"sid-et · skip 70% (Alg. 2)"}
    with pytest.raises(ValueError, match="compares with 'svr' on the same questions"):
        sid_et_arm(rows, "auto")
    with pytest.raises(ValueError, match="no finished 'sid-et' rows"):
        sid_et_arm(svr, 0.5)


def test_the_report_adds_sid_et_at_the_skip_rates_asked(tmp_path):
    import json

    from typer.testing import CliRunner

    from debategraph.cli import app

    rows = [recorded("p", -0.1, "15", "15"), recorded("q", -3.0, "9", "15")]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    runner = CliRunner()
    done = runner.invoke(app, ["report", str(tmp_path), "--no-plots",
                               "--sid-et-skip-rate", "0.5", "--sid-et-skip-rate", "0"])  # fmt: skip
    assert done.exit_code == 0, done.output
    report = (tmp_path / "report.md").read_text()
    assert "| sid-et · skip 50% |" in report and "| sid-et · skip 0% |" in report
    bad = runner.invoke(app, ["report", str(tmp_path), "--sid-et-skip-rate", "60"])
    assert bad.exit_code == 2 and "a number from 0 to 1" in " ".join(bad.stderr.split())
