"""The LLM council: anonymous rankings by hand, average ranks, the chairman, council-rank."""

from __future__ import annotations

import re

import pytest

import debategraph as dg
from debategraph.methods.council import (
    COUNCIL,
    average_rank,
    council_rank,
    decide,
    observe,
    plan,
    read_ranking,
)
from debategraph.policies.accounting import ncomm, usage_by_kind
from debategraph.policies.tokens import estimate_tokens
from debategraph.testing import ScriptedChatModel, make_trajectory, make_turn, make_view

Q = "What is the result of 3+4*5+6-7*2?"


def answers(*values):
    return [make_turn(f"r0:a{i}", answer=v) for i, v in enumerate(values, 1)]


def ranking(ranker, labels, text):
    return make_turn(f"r1:rank:{ranker}", agent=ranker, round=1, kind="evaluation", text=text,
                     vars={"labels": labels})  # fmt: skip


def test_every_member_ranks_every_answer_in_member_order_as_llm_council_does():
    # llm-council (backend/council.py, stage2_collect_rankings): every model ranks all the
    # stage-1 responses, its own among them, labelled A, B, ... in one order for all.
    turns = answers("1", "2", "3", "4")
    calls = plan(make_view(COUNCIL, turns=turns, round=1, agents=4))
    assert [c["id"] for c in calls] == ["r1:rank:a1", "r1:rank:a2", "r1:rank:a3", "r1:rank:a4"]
    for c in calls:
        assert c["vars"]["labels"] == ["a1", "a2", "a3", "a4"]
        assert c["reads"] == ["r0:a1", "r0:a2", "r0:a3", "r0:a4"]
        assert c["kind"] == "evaluation" and c["template"] == "rank"


def test_the_options_rank_the_others_only_and_shuffled():
    turns = answers("1", "2", "3", "4")
    others_only = plan(make_view(COUNCIL, turns=turns, round=1, agents=4,
                                 options={"rank_own": False}))  # fmt: skip
    assert [c["vars"]["labels"] for c in others_only] == [
        ["a2", "a3", "a4"], ["a1", "a3", "a4"], ["a1", "a2", "a4"], ["a1", "a2", "a3"],
    ]  # fmt: skip
    options = {"rank_own": False, "shuffle": True}
    view = make_view(COUNCIL, turns=turns, round=1, agents=4, context={"seed": 0},
                     options=options)  # fmt: skip
    calls = plan(view)
    for c in calls:
        me = c["speaker"]
        others = [f"a{i}" for i in range(1, 5) if f"a{i}" != me]
        assert sorted(c["vars"]["labels"]) == others  # each other member once, itself never
        assert c["reads"] == [f"r0:{m}" for m in c["vars"]["labels"]]
    orders = [tuple(c["vars"]["labels"]) for c in calls]
    assert plan(view) == calls  # seeded: the same order again
    reseeded = plan(make_view(COUNCIL, turns=turns, round=1, agents=4, context={"seed": 5},
                              options=options))  # fmt: skip
    assert orders != [tuple(c["vars"]["labels"]) for c in reseeded]
    # The prompt names no member.
    prompt = COUNCIL.prompts["rank"](
        dg.methods.PromptInput(question=Q, peers=[turns[1], turns[2], turns[3]], agent="a1")
    )
    assert not re.search(r"\ba\d\b", prompt)
    assert "Response C:" in prompt and "Ranking: C, B, A" in prompt


def test_rankings_are_read_back_into_members_and_averaged_as_llm_council_does():
    assert read_ranking("B is best.\nRanking: B, C, A", ["a2", "a3", "a4"]) == ["a3", "a4", "a2"]
    assert read_ranking("**Ranking:** C > C > Z > A", ["a1", "a2", "a3"]) == ["a3", "a1"]
    assert read_ranking("Ranking: A, B\nOn reflection:\nRanking: B, A", ["x", "y"]) == ["y", "x"]
    assert read_ranking("no ranking here", ["a1"]) == []
    # Mean place (1 is first) over the rankings that place a member; a4 leaves a2 out:
    # a1: places 2 (a2), 3 (a3), 2 (a4) -> 7/3; a2: 1 (a1), 1 (a3) -> 1;
    # a3: 2 (a1), 1 (a2), 1 (a4) -> 4/3; a4: 3 (a1), 3 (a2), 2 (a3) -> 8/3.
    rankings = {"a1": ["a2", "a3", "a4"], "a2": ["a3", "a1", "a4"], "a3": ["a2", "a4", "a1"],
                "a4": ["a3", "a1"]}  # fmt: skip
    means = {"a1": 7 / 3, "a2": 1.0, "a3": 4 / 3, "a4": 8 / 3}
    assert average_rank(rankings, ["a1", "a2", "a3", "a4"]) == means
    # Borda (2, 1, 0 points, 0 when left out) would put a3 (5 points) above a2 (4).
    assert average_rank({"a1": ["a2"]}, ["a1", "a2"]) == {"a2": 1.0}  # a1 placed by none
    turns = [
        *answers("1", "2", "3", "4"),
        ranking("a1", ["a4", "a2", "a3"], "Ranking: B, C, A"),
        ranking("a2", ["a1", "a3", "a4"], "Ranking: B, A, C"),
        ranking("a3", ["a2", "a4", "a1"], "Ranking: A, B, C"),
        ranking("a4", ["a3", "a1", "a2"], "Ranking: A, B"),
    ]
    state = observe(make_view(COUNCIL, turns=turns, round=1, phase=0, agents=4))
    assert state == {"rankings": rankings, "average_rank": means, "unranked": [],
                     "ranking_flaws": {}}  # fmt: skip
    flawed = [*turns[:-1], ranking("a4", ["a3", "a1", "a2"], "Ranking: A, A, E, B"), ranking(
        "a5", ["a1", "a2"], "I cannot tell them apart.")]  # fmt: skip
    state = observe(make_view(COUNCIL, turns=flawed, round=1, phase=0, agents=5))
    assert state["rankings"]["a4"] == ["a3", "a1"] and state["rankings"]["a5"] == []
    assert state["ranking_flaws"] == {"a4": {"unknown": ["E"], "repeated": ["A"]}}
    assert state["unranked"] == ["a5"]
    assert observe(make_view(COUNCIL, turns=turns, round=1, phase=1, agents=4)) is None


def test_the_chairman_reads_every_answer_and_every_ranking_as_llm_councils_does():
    # llm-council's stage 3 (backend/council.py, stage3_synthesize_final) gives the chairman
    # the stage-1 responses and every ranker's whole stage-2 text, not the aggregate.
    turns = [
        *answers("1", "2", "3"),
        ranking("a3", ["a3", "a1", "a2"], "Ranking: A, B, C"),  # planned out of order
        ranking("a1", ["a1", "a2", "a3"], "a1 slips.\nRanking: B, C, A"),
    ]
    view = make_view(COUNCIL, turns=turns, round=1, phase=1, agents=3, cut_off=["a2"])
    (c,) = plan(view)
    assert (c["id"], c["speaker"], c["kind"]) == ("r1:chairman", "chairman", "answer")
    assert c["reads"] == ["r0:a1", "r0:a2", "r0:a3", "r1:rank:a1", "r1:rank:a3"]
    assert c["vars"] == {"answers": 3, "keys": [[1, 2, 3], [3, 1, 2]]}
    peers = [turns[0], turns[1], turns[2], turns[4], turns[3]]
    prompt = COUNCIL.prompts["chair"](dg.methods.PromptInput(question=Q, peers=peers,
                                                             vars=c["vars"]))  # fmt: skip
    assert prompt.count("Answer 3:\n```") == 1 and "Answer 4:" not in prompt
    # A ranking shown in answer order needs no key (the prompt says so once); a shuffled one
    # spells its letters out.
    assert "a ranking's Response A is Answer 1, Response B is Answer 2, and so on" in prompt
    assert "Ranking 1:\n```\na1 slips.\nRanking: B, C, A\n```" in prompt
    assert (
        "Ranking 2 (its Response A is Answer 3, Response B is Answer 1, Response C is "
        "Answer 2):\n```"
    ) in prompt
    assert prompt.count("(its ") == 1
    assert not re.search(r"\ba\d\b", prompt.replace("a1 slips", ""))  # no member named


def test_the_chairman_reads_every_answer_and_the_standing_when_asked():
    turns = answers("1", "2", "3", "4")
    state = {"average_rank": {"a1": 7 / 3, "a2": 1.0, "a3": 4 / 3}}  # a4 placed by none
    view = make_view(COUNCIL, turns=turns, round=1, phase=1, agents=4, method_state=state,
                     options={"chair_reads": "standing"})  # fmt: skip
    (c,) = plan(view)
    assert c["reads"] == ["r0:a1", "r0:a2", "r0:a3", "r0:a4"]
    assert c["vars"]["standing"] == [[2, 1.0], [3, 4 / 3], [1, 7 / 3], [4, None]]
    prompt = COUNCIL.prompts["chair"](dg.methods.PromptInput(question=Q, peers=turns,
                                                             vars=c["vars"]))  # fmt: skip
    assert (
        "best first: Answer 2 (average rank 1.00); Answer 3 (average rank 1.33); "
        "Answer 1 (average rank 2.33); Answer 4 (unranked)"
    ) in prompt


def test_decisions_chairman_council_rank_and_a_named_vote():
    turns = [*answers("7", "9", "9"), make_turn("r1:chairman", answer="7")]
    state = {"rankings": {"a1": ["a2", "a3"], "a2": ["a1", "a3"], "a3": ["a1", "a2"]}}
    state["average_rank"] = {"a1": 1.0, "a2": 1.5, "a3": 2.0}
    view = make_view(COUNCIL, turns=turns, round=1, agents=3, method_state=state)
    assert (decide(view).answer, decide(view).rule) == ("7", "chairman")
    ranked = make_view(COUNCIL, turns=turns, round=1, agents=3, method_state=state,
                       context={"decision": "council-rank"})  # fmt: skip
    d = decide(ranked)
    assert (d.answer, d.rule, d.evidence["winner"]) == ("7", "council-rank", "a1")
    voted = make_view(COUNCIL, turns=turns, round=1, agents=3, method_state=state,
                      context={"decision": "majority"})  # fmt: skip
    assert decide(voted).answer == "9"


def test_council_rank_by_hand():
    path = make_trajectory([["5"], ["6"], ["6"]])
    tie = {"a1": ["a2", "a3"], "a2": ["a1", "a3"], "a3": ["a1", "a2"]}
    assert average_rank(tie, path.agents) == {"a1": 1.0, "a2": 1.5, "a3": 2.0}
    assert council_rank(path, rankings=tie).answer == "5"
    even = {"a1": ["a2", "a3"], "a2": ["a1", "a3"], "a3": ["a2", "a1"]}
    assert average_rank(even, path.agents) == {"a1": 1.5, "a2": 1.0, "a3": 2.0}
    assert council_rank(path, rankings=even).answer == "6"
    level = {"a1": ["a3", "a2"], "a2": ["a1", "a3"], "a3": ["a2", "a1"]}
    assert council_rank(path, rankings=level).evidence["winner"] == "a1"  # 1.5 each: earlier
    # A member placed once, first (mean 1), beats one placed first twice and second once
    # (mean 4/3), as llm-council's mean does; Borda (1 point vs 2) would pick a2.
    sparse = {"a1": ["a1", "a2"], "a2": ["a2"], "a3": ["a2"]}
    assert council_rank(make_trajectory([["5"], ["6"], ["7"]]), rankings=sparse).evidence == {
        "average_rank": {"a1": 1.0, "a2": 4 / 3}, "winner": "a1",
    }  # fmt: skip
    with pytest.raises(ValueError, match="only method 'council' records them"):
        council_rank(path)
    assert council_rank(make_trajectory([["4"], ["4"]])).answer == "4"


def scripted():
    def respond(prompt):
        if "line of the form 'Ranking: " in prompt:
            return "B is tidier.\nRanking: B, A"
        return "3 + 20 + 6 - 14 = 15, so \\boxed{15}"

    return ScriptedChatModel(respond=respond)


def test_a_whole_council_calls_tokens_and_rankings():
    model = scripted()
    r = dg.run(Q, method="council", agents=3, models=model, decision="council-rank")
    assert [t["id"] for t in r.turns] == [
        "r0:a1", "r0:a2", "r0:a3", "r1:rank:a1", "r1:rank:a2", "r1:rank:a3", "r1:chairman",
    ]  # fmt: skip
    assert r.usage["calls"] == 3 + 3 + 1 == len(model.calls)
    for turn in r.turns:  # no system prompt, no history: a call's input is its prompt
        assert turn["input_tokens"] == estimate_tokens(turn["prompt"])
    assert usage_by_kind(r.turns)["evaluation"]["output_tokens"] == 3 * estimate_tokens(
        "B is tidier.\nRanking: B, A"
    )
    # Each ranker reads all 3 answers, its own not counted as communication; the chairman
    # reads the 3 answers and the 3 rankings.
    assert ncomm(r.turns) == 3 * 2 + 3 + 3
    assert all(len(c["reads"]) == 3 for c in r.turns if c["kind"] == "evaluation")
    assert r.method_state["rankings"] == {m: ["a2", "a1"] for m in ("a1", "a2", "a3")}
    assert r.method_state["average_rank"] == {"a1": 2.0, "a2": 1.0}  # a3 placed by none
    assert r.decision["evidence"] == {"average_rank": {"a1": 2.0, "a2": 1.0}, "winner": "a2"}
    assert r.decision["rule"] == "council-rank" and r.answer == "15"


def test_golden_transcript_on_the_simulated_debaters():
    r = dg.run(Q, method="council", seed=1)
    assert [(t["id"], t["answer"]) for t in r.turns] == [
        ("r0:a1", "15"), ("r0:a2", "15"), ("r0:a3", "15"), ("r0:a4", "14"),
        ("r1:rank:a1", None), ("r1:rank:a2", None), ("r1:rank:a3", None), ("r1:rank:a4", None),
        ("r1:chairman", "15"),
    ]  # fmt: skip
    # Every member ranks all four answers, shown in member order as A-D.
    members = ["a1", "a2", "a3", "a4"]
    assert r.method_state["rankings"] == {m: members for m in members}
    assert r.method_state["average_rank"] == {"a1": 1.0, "a2": 2.0, "a3": 3.0, "a4": 4.0}
    assert r.answer == "15" and r.decision["rule"] == "chairman"
    assert r.turns[-1]["reads"] == [f"r0:{m}" for m in members] + [f"r1:rank:{m}" for m in members]
    # Every simulated ranking, a4's own included, puts the wrong answer (a4's 14) last.
    assert all(v[-1] == "a4" for v in r.method_state["rankings"].values())


def test_report_decision_council_rank_reads_each_rows_rankings():
    from debategraph.eval.analysis.rescore import rescore

    row = {
        "id": "q1", "method": "council", "task": "number", "reference": "6",
        "round_answers": [["5", "6", "6"]],
        "method_state": {"rankings": {"a1": ["a3", "a2"], "a2": ["a3", "a1"],
                                      "a3": ["a2", "a1"]}},
    }  # fmt: skip
    (new,) = rescore([row], "council-rank")
    assert new["method"] == "council [council-rank]" and new["answer"] == "6" and new["correct"]
    assert new["decision"]["evidence"] == {
        "average_rank": {"a1": 2.0, "a2": 1.5, "a3": 1.0}, "winner": "a3",
    }  # fmt: skip
    with pytest.raises(ValueError, match="only method 'council' records them"):
        rescore([{**row, "method_state": {}}], "council-rank")
    with pytest.raises(ValueError, match=r"the rankings name \['bob'\]"):
        council_rank(make_trajectory([["5"], ["6"]]), rankings={"a1": ["bob"]})


def test_a_cut_off_member_ranks_nobody_and_a_council_needs_two():
    turns = answers("1", "2", "3")
    calls = plan(make_view(COUNCIL, turns=turns, round=1, agents=3, cut_off=["a2"]))
    assert [c["id"] for c in calls] == ["r1:rank:a1", "r1:rank:a3"]
    assert all("r0:a2" in c["reads"] for c in calls)  # the others still rank its answer
    with pytest.raises(dg.DebateConfigError, match="council needs at least 2 members"):
        dg.run(Q, method="council", agents=1)


def test_with_every_member_cut_off_the_chairman_still_answers_from_the_answers():
    members = ["a1", "a2", "a3", "a4"]
    for chair_reads in ("rankings", "standing"):
        r = dg.run(Q, method="council", seed=1, cut_off=members,
                   options={"chair_reads": chair_reads})  # fmt: skip
        assert [t["id"] for t in r.turns] == [f"r0:{m}" for m in members] + ["r1:chairman"]
        assert r.turns[-1]["reads"] == [f"r0:{m}" for m in members]
        assert r.answer == "15" and r.decision["rule"] == "chairman"
        assert r.method_state["rankings"] == {}
    turns = answers("1", "2")
    (c,) = plan(make_view(COUNCIL, turns=turns, round=1, agents=2, cut_off=["a1", "a2"]))
    prompt = COUNCIL.prompts["chair"](dg.methods.PromptInput(question=Q, peers=turns,
                                                             vars=c["vars"]))  # fmt: skip
    assert "Answer 2:" in prompt and "ranking" not in prompt.lower()


def test_settled_leader_by_hand():
    from fractions import Fraction

    from debategraph.methods.council import _best_mean, _worst_mean, settled_leader

    members = ["a1", "a2", "a3", "a4"]
    full = members
    # Three rankings put a1 first, a2 second: a1 1, a2 2. One more of four places may put
    # a1 last (4): (1+1+1+4)/4 = 7/4; a2 first at best: (2+2+2+1)/4 = 7/4, a tie that a1,
    # the earlier member, wins.
    three = {r: ["a1", "a2", "a3", "a4"] for r in ("a1", "a2", "a3")}
    assert settled_leader(three, members, [full]) == "a1"
    # The same with a2 leading: the tie goes to the earlier a1, so a2 is not settled.
    swapped = {r: ["a2", "a1", "a3", "a4"] for r in ("a1", "a2", "a3")}
    assert settled_leader(swapped, members, [full]) is None
    # Two rankings left: a1 could reach (1+1+4+4)/4 = 5/2, a2 (2+2+1+1)/4 = 3/2.
    two = {r: ["a1", "a2", "a3", "a4"] for r in ("a1", "a2")}
    assert settled_leader(two, members, [full, full]) is None
    # The leader's worst: a place that would lower its mean is left out. At 1, 1, 1, 1
    # with places 5 and 1 to come: 5 raises it to 9/5, 1 would lower it, so 9/5.
    assert _worst_mean([1, 1, 1, 1], [1, 5]) == Fraction(9, 5)
    assert _worst_mean([1, 1], [4, 3]) == Fraction(9, 4)  # 4 -> 2, then 3 > 2 raises it
    assert _best_mean([3, 3], 2) == 2 and _best_mean([], 0) is None
    # A member nobody placed can still be put first by a pending ranking that shows it.
    assert settled_leader({"x": ["a1", "a2"]}, ["a1", "a2", "a3"], [["a1", "a3"]]) is None
    # ...but not by one that does not show it (a ranker's own answer under rank_own=false).
    assert settled_leader({"x": ["a1", "a2"], "y": ["a1", "a2"]}, ["a1", "a2", "a3"],
                          [["a1", "a2"]]) == "a1"  # fmt: skip
    assert settled_leader({}, members, [full]) is None
    assert settled_leader({}, members, []) == "a1"


def test_early_stop_asks_one_ranker_a_phase_and_stops_when_the_leader_is_settled():
    turns = answers("1", "2", "3", "4")
    view = make_view(COUNCIL, turns=turns, round=1, agents=4, options={"early_stop": True})
    assert [c["id"] for c in plan(view)] == ["r1:rank:a1"]
    made = [ranking(r, ["a1", "a2", "a3", "a4"], "Ranking: A, B, C, D") for r in ("a1", "a2")]
    view = make_view(COUNCIL, turns=turns + made, round=1, phase=2, agents=4,
                     options={"early_stop": True})  # fmt: skip
    assert [c["id"] for c in plan(view)] == ["r1:rank:a3"]  # two rankings can still move it
    made.append(ranking("a3", ["a1", "a2", "a3", "a4"], "Ranking: A, B, C, D"))
    view = make_view(COUNCIL, turns=turns + made, round=1, phase=3, agents=4,
                     options={"early_stop": True})  # fmt: skip
    phase = plan(view)
    assert isinstance(phase, dg.methods.Phase)
    (chairman,) = phase.calls
    assert chairman["id"] == "r1:chairman"
    assert chairman["reads"] == [f"r0:a{i}" for i in range(1, 5)] + [
        "r1:rank:a1", "r1:rank:a2", "r1:rank:a3",
    ]  # fmt: skip
    assert phase.method_state == {"ranking_stop": {"leader": "a1", "rankings": 3,
                                                   "skipped": ["a4"]}}  # fmt: skip
    # Without the option every member ranks at once, in phase 0.
    assert len(plan(make_view(COUNCIL, turns=turns, round=1, agents=4))) == 4


def test_early_stop_on_a_whole_scripted_council():
    # Each ranker puts the first answer (a1's) first and the rest in order; with
    # rank_own=false each sees three answers. After a1 (a2 a3 a4), a2 (a1 a3 a4) and
    # a3 (a1 a2 a4): a1 1, 1 (mean 1); a4's ranking may put a1 last (3): 5/3. a2: 1 (from
    # a1), 2 (a3) -> 3/2, with a first place from a4: 4/3 < 5/3, so a4 is asked. Then
    # the chairman.
    model = ScriptedChatModel(respond=lambda p: "Ranking: A, B, C" if "Ranking:" in p
                              and "chair" not in p else "So \\boxed{15}.")  # fmt: skip
    r = dg.run(Q, method="council", models=model, decision="council-rank",
               options={"early_stop": True, "rank_own": False})  # fmt: skip
    assert [t["id"] for t in r.turns][4:] == [
        "r1:rank:a1", "r1:rank:a2", "r1:rank:a3", "r1:rank:a4", "r1:chairman"]  # fmt: skip
    assert "ranking_stop" not in r.method_state
    # With rank_own (each sees four): after a1, a2, a3 rank A first, a1 is at 1 and can
    # reach 7/4 at worst; a2 at 2 can reach 7/4 at best, a tie the earlier a1 wins.
    model = ScriptedChatModel(respond=lambda p: "Ranking: A, B, C, D" if "Ranking:" in p
                              and "chair" not in p else "So \\boxed{15}.")  # fmt: skip
    r = dg.run(Q, method="council", models=model, decision="council-rank",
               options={"early_stop": True})  # fmt: skip
    assert [t["id"] for t in r.turns][4:] == [
        "r1:rank:a1", "r1:rank:a2", "r1:rank:a3", "r1:chairman"]  # fmt: skip
    assert r.method_state["ranking_stop"] == {"leader": "a1", "rankings": 3, "skipped": ["a4"]}
    assert r.usage["calls"] == 8 == len(model.calls)
    assert r.decision["evidence"]["winner"] == "a1"
    with pytest.raises(dg.DebateConfigError, match="early_stop=false"):
        plan(make_view(COUNCIL, agents=65, options={"early_stop": True}))


def test_self_votes_drop_leaves_out_each_rankers_place_for_itself_as_the_fork_does():
    # amiable-dev/llm-council (stages/stage2.py, calculate_aggregate_rankings): with
    # exclude_self_votes a reviewer's position for its own response is skipped; the others
    # keep the positions they were written at.
    rankings = {"a1": ["a1", "a2", "a3"], "a2": ["a2", "a1", "a3"], "a3": ["a3", "a1", "a2"]}
    members = ["a1", "a2", "a3"]
    # Counted: a1 1, 2, 2 -> 5/3; a2 2, 1, 3 -> 2; a3 3, 3, 1 -> 7/3.
    assert average_rank(rankings, members) == {"a1": 5 / 3, "a2": 2.0, "a3": 7 / 3}
    # Dropped: a1 2 (a2), 2 (a3) -> 2; a2 2 (a1), 3 (a3) -> 5/2; a3 3, 3 -> 3.
    assert average_rank(rankings, members, exclude_self=True) == {"a1": 2.0, "a2": 2.5, "a3": 3.0}
    path = make_trajectory([["5"], ["6"], ["7"]])
    dropped = council_rank(path, rankings={"a1": ["a1", "a2"], "a2": ["a2", "a1"], "a3": ["a2"]},
                           exclude_self=True)  # fmt: skip
    # Dropped: a1 2 (from a2); a2 2 (from a1), 1 (from a3) -> 3/2.
    assert dropped.evidence == {"average_rank": {"a1": 2.0, "a2": 1.5}, "winner": "a2"}
    # The option reaches observe and council-rank in a run.
    model = ScriptedChatModel(respond=lambda p: "Ranking: A, B, C, D" if "Ranking:" in p
                              and "chair" not in p else "So \\boxed{15}.")  # fmt: skip
    r = dg.run(Q, method="council", models=model, decision="council-rank",
               options={"self_votes": "drop"})  # fmt: skip
    # Every ranking is a1, a2, a3, a4; each ranker's own place dropped:
    # a1: 1 (a2, a3, a4) -> 1; a2: 2 (a1, a3, a4) -> 2; a3: 3 -> 3; a4: 4 -> 4.
    assert r.method_state["average_rank"] == {"a1": 1.0, "a2": 2.0, "a3": 3.0, "a4": 4.0}
    assert r.decision["evidence"]["winner"] == "a1"


def test_early_stop_with_self_votes_dropped_knows_a_ranker_cannot_move_itself():
    from debategraph.methods.council import settled_leader

    # a1 ranked a1, a2. Counted: a1 at 1, a2 at 2; a2's ranking to come can reach a tie
    # (a1 at worst 3/2, a2 at best 3/2), which the earlier a1 wins: settled.
    made = {"a1": ["a1", "a2"]}
    assert settled_leader(made, ["a1", "a2"], [["a1", "a2"]], pending_rankers=["a2"]) == "a1"
    # Dropped: a1 is unplaced and a2 at 2; a2's ranking may put a1 first: not settled.
    dropped = settled_leader(made, ["a1", "a2"], [["a1", "a2"]], pending_rankers=["a2"],
                             exclude_self=True)  # fmt: skip
    assert dropped is None
    # Ranker x put a1 before a2; a2's ranking is to come, and a2 is the earlier member.
    # Counted, a2 can rank itself first: a2 at (2+1)/2 = 3/2 ties a1's worst (1+2)/2 and
    # wins the tie as the earlier member: not settled. Dropped, a2 stays at 2: settled.
    made = {"x": ["a1", "a2"]}
    order = ["a2", "a1"]
    assert settled_leader(made, order, [["a1", "a2"]], pending_rankers=["a2"]) is None
    assert settled_leader(made, order, [["a1", "a2"]], pending_rankers=["a2"],
                          exclude_self=True) == "a1"  # fmt: skip
