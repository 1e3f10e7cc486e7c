"""Ballots and the judge's call in real debates: what is asked, what is read, what it costs."""

import re

import pytest

import debategraph as dg
from debategraph import Agent
from debategraph.policies.accounting import usage_by_kind
from debategraph.prompts.decision import BALLOT_HEADER, JUDGE_HEADER
from debategraph.state.context import DebateConfigError
from debategraph.testing import ScriptedChatModel

QUESTION = "What is 2+2?"
_CANDIDATE = re.compile(r"^(C\d+): (.+)$", re.MULTILINE)


def voter(first, final, ballot=(), judge=None):
    """A debater: ``first`` in round 0, then ``final`` with a ballot naming answers in order.

    The ballot is written with the labels the prompt gives those answers, joined as the
    prompt asks (``>`` for a ranking, ``, `` otherwise); ``judge`` answers a judge's prompt.
    """

    def respond(prompt):
        if JUDGE_HEADER in prompt:
            return f"Having checked them all, I find {judge} right. \\boxed{{{judge}}}"
        if BALLOT_HEADER not in prompt:
            return f"I get {first}." if "Here are" not in prompt else f"I get {final}."
        labels = {answer: lab for lab, answer in _CANDIDATE.findall(prompt)}
        budget = re.search(r"share out (\d+) points", prompt)
        if budget:  # every point to the first answer named
            return f"I get {final}.\nBallot: {labels[ballot[0]]}={budget.group(1)}"
        join = " > " if "rank the candidates" in prompt else ", "
        return f"I get {final}.\nBallot: " + join.join(labels[a] for a in ballot)

    return respond


def roster(*voters, label="scripted"):
    return [
        Agent(f"a{i}", ScriptedChatModel(respond=v, label=f"{label}-{i}"))
        for i, v in enumerate(voters, 1)
    ]


def three_voters(judge=None):
    return roster(
        voter("4", "4", ["5", "4"], judge),
        voter("5", "5", ["5", "6"], judge),
        voter("6", "6", ["6", "5"], judge),
    )


def test_ballots_are_asked_in_the_final_round_only_and_decide():
    agents = three_voters()
    result = dg.run(QUESTION, method="du", agents=agents, rounds=2, decision="ranked")
    prompts = {t["id"]: t["prompt"] for t in result.turns}
    assert all(BALLOT_HEADER not in prompts[f"r{r}:a{i}"] for r in (0, 1) for i in (1, 2, 3))
    assert all(BALLOT_HEADER in prompts[f"r2:a{i}"] for i in (1, 2, 3))
    final = [t for t in result.turns if t["round"] == 2]
    # a1's candidates: its own answer, then those it read (a2's, a3's), in that order.
    assert final[0]["ballot"] == {
        "kind": "ranked",
        "candidates": ["4", "5", "6"],
        "vote": ["5", "4"],
    }
    assert [t["answer"] for t in final] == ["4", "5", "6"]  # the ballot's labels are not answers
    # Instant runoff: first preferences 5: 2, 6: 1, so 5 wins where plurality ties.
    assert result.answer == "5"
    assert result.decision["rule"] == "ranked"
    assert result.decision["evidence"]["rounds"] == [{"counts": {"4": 0, "5": 2, "6": 1}}]
    assert result.decision["evidence"]["asked"] == 3
    assert dg.run(QUESTION, method="du", agents=three_voters(), rounds=2).answer == "4"


def test_a_new_answer_is_voted_for_as_c0():
    def switcher(prompt):
        if BALLOT_HEADER in prompt:
            assert "C0: the answer you give in this reply" in prompt
            return "I now get 7.\nBallot: C0 > C2"
        return "I get 4."

    agents = roster(switcher, voter("5", "5", ["5"]), voter("6", "6", ["6"]))
    result = dg.run(QUESTION, method="du", agents=agents, rounds=1, decision="ranked")
    first = result.turns[3]
    assert first["answer"] == "7" and first["ballot"]["vote"] == ["7", "5"]
    assert first["ballot"]["candidates"] == ["4", "5", "6"]


def test_approval_and_a_spoiled_ballot():
    agents = roster(
        voter("4", "4", ["5", "4"]),
        voter("5", "5", ["5"]),
        lambda prompt: "I get 6.\nBallot: C9" if BALLOT_HEADER in prompt else "I get 6.",
    )
    result = dg.run(QUESTION, method="du", agents=agents, rounds=1, decision="approval")
    evidence = result.decision["evidence"]
    assert result.answer == "5"
    assert evidence["approvals"] == {"5": 2, "4": 1}
    assert evidence["spoiled"] == 1 and evidence["abstentions"] == 1
    assert result.turns[-1]["ballot"]["vote"] is None


def test_a_consensus_stop_asks_in_every_debate_round():
    agents = roster(voter("4", "4", ["4"]), voter("5", "4", ["4"]))
    result = dg.run(
        QUESTION,
        method="du",
        agents=agents,
        rounds=3,
        decision="cumulative",
        decision_options={"points": 5},
        stop_on_consensus=True,
    )
    assert result.rounds == 1  # stopped at consensus after the first debate round
    ballots = [t["ballot"] for t in result.turns if t["round"] == 1]
    assert ballots == [
        {"kind": "cumulative", "candidates": ["4", "5"], "vote": {"4": 5}},
        {"kind": "cumulative", "candidates": ["5", "4"], "vote": {"4": 5}},
    ]
    assert result.answer == "4" and result.decision["evidence"]["points"] == {"4": 10}
    assert "share out 5 points" in result.turns[-1]["prompt"]


def test_judge_makes_one_decision_call_that_counts_its_tokens():
    agents = three_voters(judge="6")
    result = dg.run(QUESTION, method="du", agents=agents, rounds=1, decision="judge")
    judge = result.turns[-1]
    assert judge["kind"] == "decision" and judge["agent"] == "a1" and judge["round"] == 1
    assert judge["reads"] == ["r1:a1", "r1:a2", "r1:a3"]
    assert JUDGE_HEADER in judge["prompt"]
    assert JUDGE_HEADER in agents[0].model.calls[-1]["prompt"]  # a1's model judged
    assert result.answer == "6"  # the judge, against a three-way split
    assert result.decision["evidence"]["judge"] == "a1"
    assert result.usage["calls"] == 3 * 2 + 1
    by_kind = usage_by_kind(result.turns)
    assert by_kind["decision"]["input_tokens"] == judge["input_tokens"] > 0
    assert by_kind["decision"]["output_tokens"] == judge["output_tokens"]
    total = sum(t["input_tokens"] for t in result.turns)
    assert result.usage["input_tokens"] == total


def test_judge_agent_picks_whose_model_judges_and_sc_may_be_judged():
    agents = three_voters(judge="5")
    result = dg.run(
        QUESTION,
        method="du",
        agents=agents,
        rounds=1,
        decision="judge",
        decision_options={"judge_agent": "a3"},
    )
    assert result.turns[-1]["agent"] == "a3"
    assert [len(a.model.calls) for a in agents] == [2, 2, 3]  # a3's model judged
    assert result.decision["evidence"]["judge"] == "a3" and result.answer == "5"
    sc = dg.run(QUESTION, method="cot", agents=roster(voter("4", "4", judge="7")), decision="judge")
    assert [t["kind"] for t in sc.turns] == ["answer", "decision"] and sc.answer == "7"


def never_called(prompt):
    raise AssertionError("a model was called")


@pytest.mark.parametrize(
    ("method", "rule", "extra", "message"),
    [
        ("sc", "approval", {}, "reads approval ballots, which agents give in a debate round"),
        ("du", "ranked", {"rounds": 0}, "du has none (it runs 0 rounds)"),
        ("svr", "judge", {}, "svr's rounds end in no answer round"),
        ("svr", "cumulative", {}, "svr's rounds end in no answer round"),
        ("du", "judge", {"decision_options": {"judge_agent": "a9"}}, "judge_agent 'a9' is not"),
        ("du", "ranked", {"decision_options": {"count": "copeland"}}, "count must be 'irv'"),
        ("du", "supermajority", {"decision_options": {"threshold": 0.0}}, "threshold must be"),
    ],
)
def test_what_a_method_cannot_give_is_refused_before_any_call(method, rule, extra, message):
    agents = roster(never_called, never_called, never_called)
    with pytest.raises(DebateConfigError, match=re.escape(message)) as err:
        dg.run(QUESTION, method=method, agents=agents, decision=rule, **extra)
    assert "\n" not in str(err.value)


NO_DEBATE = "it does not debate: debates=False"
ROLE_LAST = "its agents give no answer in its last round, which ends in its {}'s call"


@pytest.mark.parametrize(
    ("method", "extra", "why"),
    [
        ("cot", {}, "it runs 0 rounds"),
        ("sc", {}, "it runs 0 rounds"),
        ("mav", {}, "it runs 0 rounds"),
        ("self-refine", {"rounds": 2}, NO_DEBATE),
        ("self-refine", {}, NO_DEBATE),
        ("moa", {}, ROLE_LAST.format("aggregator")),
        ("self-moa", {}, ROLE_LAST.format("aggregator")),
        ("council", {}, ROLE_LAST.format("chairman")),
        ("council", {"rounds": 0}, "it runs 0 rounds"),
    ],
)
def test_a_ballot_rule_on_a_method_without_a_debate_round_says_why_truly(method, extra, why):
    agents = roster(never_called, never_called, never_called)
    with pytest.raises(DebateConfigError) as err:
        dg.run(QUESTION, method=method, agents=agents, decision="approval", **extra)
    assert str(err.value) == (
        "decision rule 'approval' reads approval ballots, which agents give in a debate round, "
        f"and {method} has none ({why}): use a debating method with rounds >= 1, or the judge "
        "or a rule that reads only the answers"
    )


def test_answer_rules_need_nothing_more():
    agents = three_voters()
    result = dg.run(QUESTION, method="du", agents=agents, rounds=1, decision="unanimity")
    assert result.answer is None and result.decision["evidence"]["reason"] == "the agents differ"
    assert all("ballot" not in t for t in result.turns)


def test_simulated_debaters_answer_ballots_and_judges():
    result = dg.run("What is the result of 3+4*5+6-7*2?", method="du", agents=3, decision="ranked")
    final = [t for t in result.turns if t["round"] == result.rounds]
    assert all(t["ballot"]["vote"] for t in final)  # readable ballots, not spoiled ones
    for t in final:  # each ranks its own answer first
        assert t["ballot"]["vote"][0] == t["answer"]
    judged = dg.run("What is the result of 3+4*5+6-7*2?", method="du", agents=3, decision="judge")
    assert judged.turns[-1]["kind"] == "decision" and judged.answer == judged.turns[-1]["answer"]
    assert judged.answer is not None


def test_agents_not_asked_cast_the_ballot_their_answer_implies():
    # A unanimous round 0 settles the gate: the debate ends there and nobody is asked.
    settled = roster(voter("4", "4"), voter("4", "4"), voter("4", "4"))
    result = dg.run(QUESTION, method="du+gate-unanimous", agents=settled, decision="ranked")
    assert result.rounds == 0 and result.answer == "4"
    assert result.decision["evidence"]["implied"] == 3
    assert result.decision["evidence"]["rounds"] == [{"counts": {"4": 3}}]


def test_svr_takes_the_answer_rules_over_its_votes():
    result = dg.run("What is the result of 3+4*5+6-7*2?", method="svr", decision="unanimity")
    assert result.decision["rule"] == "unanimity" and "end" in result.decision["evidence"]


@pytest.mark.parametrize("rule", ["approval", "cumulative", "ranked"])
def test_simulated_ballots_of_every_kind_are_readable(rule):
    result = dg.run(
        "What is the result of 3+4*5+6-7*2?", method="ring", agents=4, rounds=1, decision=rule
    )
    final = [t for t in result.turns if t["round"] == 1]
    assert len(final) == 4 and all(t["ballot"]["kind"] == rule for t in final)
    assert result.decision["evidence"]["spoiled"] == 0
    for t in final:
        vote = t["ballot"]["vote"]
        top = max(vote, key=vote.get) if rule == "cumulative" else vote[0]
        assert top == t["answer"]  # its own answer gets its approval, most points, first rank
        if rule == "cumulative":
            assert sum(vote.values()) == 10
