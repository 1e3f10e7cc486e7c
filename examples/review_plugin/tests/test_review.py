"""Tests of the review plugin: the rule by hand, the planner on a view, a whole debate."""

import pytest
from debate_review import REVIEW, quorum

import debategraph as dg
from debategraph.methods import DebateConfigError
from debategraph.testing import (
    ScriptedChatModel,
    make_trajectory,
    make_turn,
    make_view,
    registered,
)


def test_quorum_needs_more_than_the_threshold():
    path = make_trajectory([["4", "4"], ["5", "4"], ["5", "5"], ["6", None]])
    decision = quorum(path)  # 4 holds 2 of 4 agents: not more than half
    assert decision.answer is None
    assert decision.evidence == {"votes": {"4": 2, "5": 1}, "threshold": 0.5,
                                 "abstentions": 1, "share": 0.5}  # fmt: skip
    assert quorum(path, threshold=0.4).answer == "4"


def test_quorum_of_nothing_is_no_answer():
    assert quorum(make_trajectory([[None], [None]])).answer is None


def test_reviews_go_to_the_ring_neighbours_then_revisions_read_them():
    round0 = [make_turn(f"r0:a{i}", answer=str(i)) for i in (1, 2, 3)]
    view = make_view(REVIEW, turns=round0, round=1, phase=0, options={"reviewers": 2})
    reviews = REVIEW.plan(view)
    assert [(c["id"], c["speaker"], c["reads"]) for c in reviews] == [
        ("r1:review:a2>a1", "a2", ["r0:a1"]),
        ("r1:review:a3>a1", "a3", ["r0:a1"]),
        ("r1:review:a3>a2", "a3", ["r0:a2"]),
        ("r1:review:a1>a2", "a1", ["r0:a2"]),
        ("r1:review:a1>a3", "a1", ["r0:a3"]),
        ("r1:review:a2>a3", "a2", ["r0:a3"]),
    ]
    done = [make_turn(c["id"], agent=c["speaker"], round=1, kind="evaluation") for c in reviews]
    view = make_view(REVIEW, turns=round0 + done, round=1, phase=1)
    revisions = REVIEW.plan(view)
    assert revisions[0]["reads"] == ["r0:a1", "r1:review:a2>a1"]
    assert {c["template"] for c in revisions} == {"revise"}


def test_round_zero_has_one_phase():
    assert REVIEW.plan(make_view(REVIEW, round=0, phase=1)) is None


def test_a_whole_debate_with_scripted_models():
    def respond(prompt: str) -> str:
        if prompt.startswith("Review another agent's solution"):
            return "Step 2 is wrong. <label>NO</label>"
        return "2 + 2 = 4, so \\boxed{4}"

    model = ScriptedChatModel(respond=respond)
    with registered(REVIEW, rules={"quorum": quorum}):
        result = dg.run("What is 2+2?", method="review", agents=3, models=model)
    assert result.answer == "4" and result.decision["rule"] == "quorum"
    assert [t["kind"] for t in result.turns].count("evaluation") == 3
    revise = [c for c in model.calls if "A review of your answer" in c["prompt"]]
    assert len(revise) == 3 and all("<label>NO</label>" in c["prompt"] for c in revise)


def test_bad_options_are_refused_before_any_call():
    with (
        registered(REVIEW, rules={"quorum": quorum}),
        pytest.raises(DebateConfigError, match="reviewers must be at least 1"),
    ):
        dg.run("What is 2+2?", method="review", options={"reviewers": 0})


def test_the_simulated_debaters_revise_with_answers_and_score_like_a_vote(tmp_path):
    from debategraph.eval.datasets import load_dataset
    from debategraph.eval.run.runner import Arm, evaluate

    arms = [Arm("review", "review", {}), Arm("mav", "mav", {})]
    with registered(REVIEW, rules={"quorum": quorum}):
        items = load_dataset("arithmetic", limit=20)
        outcome = evaluate(items, arms, tmp_path, dataset="arithmetic")
    rows = {m: [r for r in outcome.rows if r["method"] == m] for m in ("review", "mav")}
    revisions = [
        t for r in rows["review"] for t in r["turns"] if t["kind"] == "answer" and t["round"] == 1
    ]
    assert len(revisions) == 60 and all(t["answer"] is not None for t in revisions)
    accuracy = {m: sum(r["correct"] for r in rs) / len(rs) for m, rs in rows.items()}
    assert accuracy["review"] >= accuracy["mav"] > 0.5, accuracy
