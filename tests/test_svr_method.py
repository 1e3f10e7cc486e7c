"""SVR-MAD on the engine: method ``svr`` with scripted debaters."""

import json
import math
import re
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from typer.testing import CliRunner

import debategraph as dg
from debategraph import Agent
from debategraph.api import recursion_limit
from debategraph.cli import app
from debategraph.methods import DebateView
from debategraph.methods.svr import SvrOptions
from debategraph.methods.svr.method import SVR, round_bound
from debategraph.state.context import DebateContext

Q = "What is the result of 3+4*5+6-7*2?"
_BOXED = re.compile(r"\\boxed\{([^}]*)\}")


class Debater(BaseChatModel):
    """A scripted SVR debater.

    First answer: ``answer``, with token logprobs whose least is ``log(prior)`` (none when
    ``prior`` is ``None``) and, if given, a ``Confidence:`` line. Challenged by a solution
    answering ``x``, it answers ``replies.get(x, answer)``; re-checking alone, ``answer``.
    Every call is recorded (prompt, message count, own history text, keyword arguments).
    """

    answer: str
    prior: float | None = 0.5
    confidence: float | None = None
    replies: dict = {}  # noqa: RUF012 - a pydantic field (copied per instance)
    seen: list = []  # noqa: RUF012

    @property
    def _llm_type(self) -> str:
        return "scripted-svr"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        prompt = str(messages[-1].content)
        history = [str(m.content) for m in messages[:-1] if isinstance(m, AIMessage)]
        self.seen.append(
            {"prompt": prompt, "messages": len(messages), "history": history, **kwargs}
        )
        metadata: dict[str, Any] = {}
        if "Another agent has worked" in prompt:
            block = prompt.split("```")[1]
            reply = self.replies.get(_BOXED.findall(block)[-1], self.answer)
            text = f"Having compared both, the answer is \\boxed{{{reply}}}."
        elif "Go over your previous answer" in prompt:
            text = f"Re-checked. \\boxed{{{self.answer}}}"
        else:
            text = f"Step by step. \\boxed{{{self.answer}}}"
            if self.confidence is not None:
                text += f"\nConfidence: {self.confidence}"
            if self.prior is not None:
                tokens = [{"token": "a", "logprob": math.log(self.prior)}]
                tokens.append({"token": "b", "logprob": 0.0})
                metadata["logprobs"] = {"content": tokens}
        message = AIMessage(content=text, response_metadata=metadata)
        return ChatResult(generations=[ChatGeneration(message=message)])


def team(answers, priors, replies=None, **kwargs):
    """Agents a1.. with scripted debaters; ``replies[i]`` maps a challenger answer to a reply."""
    replies = replies or [{}] * len(answers)
    return [
        Agent(f"a{i + 1}", Debater(answer=a, prior=p, replies=r, seen=[], **kwargs))
        for i, (a, p, r) in enumerate(zip(answers, priors, replies, strict=True))
    ]


def adopt_all(answers):
    """Every agent adopts whatever answer challenges it."""
    return [{a: a for a in set(answers)} for _ in answers]


def pairwise(result):
    return [t for t in result.turns if t["kind"] == "pairwise"]


def sequence(result):
    return [(it["receiver"], it["challengers"]) for it in result.method_state["iterations"]]


ANSWERS = ["1", "1", "2", "2", "3", "3"]
PRIORS = [0.9, 0.5, 0.8, 0.4, 0.7, 0.3]


def test_early_acceptance_after_surviving_two_challengers():
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS))
    ms = r.method_state
    assert ms["priors"] == pytest.approx(PRIORS)
    assert ms["budget"] == {"max": 10, "left": 10, "k": 3, "m": 2}
    assert sequence(r) == [("a1", ["a3", "a5"])]
    assert [t["id"] for t in pairwise(r)] == ["r1:a1<a3", "r1:a1<a5"]
    assert [t["reads"] for t in pairwise(r)] == [["r0:a3"], ["r0:a5"]]
    assert r.answer == "1" and r.rounds == 1 and r.ncomm == 2
    assert r.decision == {
        "rule": "svr",
        "evidence": {
            "outcome": "accepted",
            "end": "accepted",
            "agent": "a1",
            "answer": "1",
            "round": 1,
            "debates": 2,
            "retained": 2,
            "changed": 0,
            "survival_rate": 1.0,
            "abstentions": 0,
        },
    }
    assert ms["debated"] == [["a3", "a1"], ["a5", "a1"]]
    assert r.usage["calls"] == 8


def test_the_receiver_starts_from_its_own_first_answer_and_reads_one_challenger():
    agents = team(ANSWERS, PRIORS)
    dg.run(Q, method="svr", agents=agents)
    a1 = agents[0].model
    first, *debates = a1.seen
    assert first["messages"] == 1 and first["logprobs"] is True
    assert [d["messages"] for d in debates] == [3, 3]
    assert all(d["history"] == ["Step by step. \\boxed{1}"] for d in debates)
    assert all("logprobs" not in d for d in debates)
    assert [d["prompt"].count("```") for d in debates] == [2, 2]
    assert "\\boxed{2}" in debates[0]["prompt"] and "\\boxed{3}" in debates[1]["prompt"]


def test_a_changed_answer_drops_the_receiver_and_the_next_one_is_accepted():
    replies = [{"2": "2"}, {}, {}, {}, {}, {}]  # a1 gives in to a3, keeps its answer vs a5
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS, replies))
    ms = r.method_state
    assert sequence(r) == [("a1", ["a3", "a5"]), ("a3", ["a5", "a2"])]
    assert ms["scores"] == pytest.approx([0.0, 0.5, 1.0, 0.4, 0.7, 0.3])
    assert (ms["debates"], ms["retained"], ms["changed"]) == (
        [2, 0, 2, 0, 0, 0],
        [1, 0, 2, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
    )
    assert ms["post_debate"] == [["2", "1"], [], ["2", "2"], [], [], []]
    assert [it["budget_left"] for it in ms["iterations"]] == [8, 8]
    assert r.answer == "2" and r.decision["evidence"]["agent"] == "a3"
    assert r.ncomm == 4 and r.rounds == 2


def test_budget_spent_then_the_fallback_vote_with_its_tie_layers():
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS, adopt_all(ANSWERS)))
    ms = r.method_state
    assert sequence(r) == [
        ("a1", ["a3", "a5"]),
        ("a3", ["a5", "a2"]),
        ("a5", ["a2", "a4"]),
        ("a2", ["a4", "a6"]),
        ("a4", ["a6", "a1"]),
    ]
    assert [it["budget_left"] for it in ms["iterations"]] == [8, 6, 4, 2, 0]
    assert ms["end"] == "budget" and ms["current"] is None
    assert ms["scores"] == pytest.approx([-1, -1, -1, -1, -1, 0.3])
    # a1 saw 2 and 3 (tied, initial 1 not among them): "3" is held by a6 (0.3) -> 3.
    # a5 saw 1 and 2: both held only by agents at -1; "1" by the lower index (a1) -> 1.
    assert r.decision["evidence"]["agent_votes"] == ["3", "3", "3", "3", "1", "3"]
    assert r.answer == "3" and r.decision["evidence"]["outcome"] == "fallback"
    assert r.decision["evidence"]["end"] == "budget"
    assert r.ncomm == 10 and r.rounds == 5 and r.usage["calls"] == 16


def test_unanimous_first_answers_end_at_once_without_communication():
    r = dg.run(Q, method="svr", agents=team(["7"] * 6, PRIORS))
    assert r.rounds == 0 and r.ncomm == 0 and not pairwise(r)
    assert r.answer == "7"
    assert r.decision["evidence"]["outcome"] == "unanimous"
    assert r.method_state["end"] == "unanimous" and r.method_state["graphs"] == []
    assert r.graphs() == []


def test_an_exhausted_receiver_is_passed_over_and_nothing_left_ends_the_debate():
    agents = team(["1", "1", "2"], [0.9, 0.5, 0.1], [{}, {}, {"1": "1"}])
    r = dg.run(Q, method="svr", agents=agents)
    ms = r.method_state
    assert sequence(r) == [("a1", ["a3"]), ("a2", ["a3"]), ("a3", ["a1", "a2"])]
    assert [it["exhausted"] for it in ms["iterations"]] == [[], ["a1"], ["a1", "a2"]]
    assert ms["end"] == "exhausted" and ms["budget"]["left"] == 2
    assert r.answer == "1" and r.decision["evidence"]["agent_votes"] == ["1", "1", "1"]
    # The literal algorithm re-runs a1 <- a3 and accepts a1 at its second survival.
    agents = team(["1", "1", "2"], [0.9, 0.5, 0.1], [{}, {}, {"1": "1"}])
    r = dg.run(Q, method="svr", agents=agents, options={"repeat_pairs": True})
    assert sequence(r) == [("a1", ["a3"]), ("a1", ["a3"])]
    assert r.answer == "1" and r.decision["evidence"]["outcome"] == "accepted"


def test_acceptance_checked_after_each_debate_or_each_iteration_and_sequential_debates():
    replies = [{"2": "2"}, {}, {}, {}, {}, {}]  # a1 gives in to a4 (answer 2) only
    answers, priors = ["1", "1", "3", "2", "3", "2"], [0.9, 0.5, 0.8, 0.6, 0.7, 0.3]
    three = {"challengers": 3}
    r = dg.run(Q, method="svr", agents=team(answers, priors, replies), options=three)
    assert sequence(r)[0] == ("a1", ["a3", "a5", "a4"])
    edges = r.method_state["graphs"][0]["edges"]
    assert [(e["head"], e["outcome"], e["scored"]) for e in edges] == [
        ("a3", "retained", True),
        ("a5", "retained", True),
        ("a4", "changed", False),  # already under way; recorded, not scored
    ]
    assert r.answer == "1" and r.ncomm == 3 and r.method_state["debates"][0] == 2

    options = {**three, "accept_check": "iteration"}
    r = dg.run(Q, method="svr", agents=team(answers, priors, replies), options=options)
    assert r.method_state["scores"][0] == pytest.approx(1 / 3)
    assert sequence(r)[:2] == [("a1", ["a3", "a5", "a4"]), ("a3", ["a4", "a2", "a1"])]

    options = {**three, "schedule": "sequential"}
    r = dg.run(Q, method="svr", agents=team(answers, priors, replies), options=options)
    assert [t["id"] for t in pairwise(r)] == ["r1:a1<a3", "r1:a1<a5"]
    assert r.answer == "1" and r.ncomm == 2


def test_the_communication_graph_grows_per_iteration_and_is_in_json_and_graphs():
    replies = [{"2": "2"}, {}, {}, {}, {}, {}]
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS, replies))
    graphs = r.method_state["graphs"]
    assert [(g["round"], g["receiver"], len(g["edges"])) for g in graphs] == [
        (1, "a1", 2),
        (2, "a3", 4),
    ]
    assert graphs[0]["edges"][0] == {
        "head": "a3",
        "tail": "a1",
        "weight": -1.0,
        "kept": True,
        "round": 1,
        "outcome": "changed",
        "answer": "2",
        "scored": True,
        "turn": "r1:a1<a3",
        "label": "1: changed",
    }
    drawn = r.graphs()
    assert [g.graph["receiver"] for g in drawn] == ["a1", "a3"]
    assert sorted(drawn[1].edges) == [("a2", "a3"), ("a3", "a1"), ("a5", "a1"), ("a5", "a3")]
    assert drawn[1].edges["a5", "a3"]["outcome"] == "retained"
    assert json.loads(json.dumps(r.to_dict()))["method_state"]["graphs"] == graphs


def test_cli_json_carries_the_communication_graph():
    out = CliRunner().invoke(app, ["run", "--method", "svr", "--seed", "1", "--json", Q])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    ms = d["method_state"]
    assert d["method"] == "svr" and d["settings"]["decision"] == "svr"
    assert len(ms["graphs"]) == d["rounds"] == len(ms["iterations"])
    debates = sum(t["kind"] == "pairwise" for t in d["turns"])
    assert len(ms["graphs"][-1]["edges"]) == debates == d["ncomm"]
    assert d["usage_by_kind"]["pairwise"]["calls"] == debates


def test_a_model_without_logprobs_gets_a_clear_error_and_the_confidence_prior_works():
    agents = team(ANSWERS, [None] * 6)
    with pytest.raises(dg.DebateConfigError, match=r"svr: the min_ll prior needs token logprobs"):
        dg.run(Q, method="svr", agents=agents)
    with pytest.raises(dg.DebateConfigError, match=r"--logprobs.*prior=confidence"):
        dg.run(Q, method="svr", models="simulated:logprobs=false", options={"prior": "ppl"})
    r = dg.run(Q, method="svr", models="simulated:logprobs=false", options={"prior": "confidence"})
    assert r.method_state["unparsed_confidences"] == 0
    assert r.method_state["priors"] == [t["confidence"] for t in r.turns if t["round"] == 0]


def test_the_confidence_prior_asks_for_a_confidence_and_binds_no_logprobs():
    agents = team(ANSWERS, [None] * 6)
    for agent, c in zip(agents, [0.9, 0.5, 0.8, 0.4, 0.7, None], strict=True):
        agent.model.confidence = c
    r = dg.run(Q, method="svr", agents=agents, options=SvrOptions(prior="confidence"))
    assert r.method_state["priors"] == [0.9, 0.5, 0.8, 0.4, 0.7, 0.5]
    assert r.method_state["unparsed_confidences"] == 1
    first = agents[0].model.seen[0]
    assert "Confidence:" in first["prompt"] and "logprobs" not in first
    assert sequence(r) == [("a1", ["a3", "a5"])]
    # The challenger's confidence line is not shown to the receiver.
    assert all("Confidence" not in s["prompt"] for s in agents[0].model.seen[1:])


def test_cut_off_receiver_gets_no_message_but_is_still_scored():
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS), cut_off=["a1"])
    assert [(t["id"], t["reads"]) for t in pairwise(r)] == [("r1:a1<a3", []), ("r1:a1<a5", [])]
    assert r.ncomm == 0 and r.answer == "1"  # the attack inflates a1's survival
    assert [e["kept"] for e in r.method_state["graphs"][0]["edges"]] == [False, False]
    # A cut-off challenger is still read by others.
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS), cut_off=["a3"])
    assert [t["reads"] for t in pairwise(r)] == [["r0:a3"], ["r0:a5"]]


def test_named_decision_rules_read_each_agents_post_debate_vote():
    agents = team(ANSWERS, PRIORS, adopt_all(ANSWERS))
    r = dg.run(Q, method="svr", agents=agents, decision="majority")
    assert r.decision["rule"] == "majority" and r.decision["evidence"]["end"] == "budget"
    assert r.decision["evidence"]["votes"] == {"3": 5, "1": 1} and r.answer == "3"
    agents = team(ANSWERS, PRIORS, adopt_all(ANSWERS))
    r = dg.run(Q, method="svr", agents=agents, decision="freemad")
    assert r.decision["rule"] == "freemad_score" and r.answer == "3"
    weights = {"weights": [1, 1, 1, 1, 1, 5]}
    r = dg.run(
        Q, method="svr", agents=team(ANSWERS, PRIORS), decision="credibility",
        decision_options=weights,
    )  # fmt: skip
    assert r.decision["rule"] == "weighted_vote" and r.answer == "3"
    assert r.decision["evidence"]["scores"] == {"1": 2.0, "2": 2.0, "3": 6.0}


def test_rules_that_make_no_sense_are_refused_before_any_call():
    agents = team(ANSWERS, PRIORS)
    with pytest.raises(dg.DebateConfigError, match="cannot end with the 'reconcile' rule"):
        dg.run(Q, method="svr", agents=agents, decision="reconcile")
    with pytest.raises(dg.DebateConfigError, match="takes no decision options"):
        dg.run(Q, method="svr", agents=agents, decision_options={"weights": [1, 2]})
    assert all(not a.model.seen for a in agents)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"challengers": 0}, "challengers must be at least 1"),
        ({"accept_after": 0}, "accept_after must be at least 1"),
        ({"accept_threshold": 1.5}, "accept_threshold must lie in"),
        ({"budget": -1}, "budget must be 0 or more"),
        ({"prior": "entropy"}, "prior must be one of min_ll, ppl, confidence"),
        ({"sheduel": "x"}, "unknown option"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(dg.DebateConfigError, match=f"svr options: .*{message}"):
        dg.run(Q, method="svr", options=options)


def test_budget_override_zero_and_the_rounds_cap():
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS), options={"budget": 0})
    assert r.rounds == 0 and r.method_state["end"] == "budget" and r.ncomm == 0
    # 2-2-2 initially and in the vote: the highest-scored voter (a1, 0.9) decides.
    assert r.answer == "1" and r.decision["evidence"]["tie_break"] == "score"
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS, adopt_all(ANSWERS)), rounds=2)
    assert r.rounds == 2 and r.method_state["end"] == "rounds" and r.ncomm == 4


def test_round_bound_and_recursion_limit():
    def bound(n, **settings):
        options = settings.pop("options", {})
        ctx = DebateContext(method_options=options, **settings)
        agents = tuple(f"a{i}" for i in range(1, n + 1))
        view = DebateView(SVR, {}, ctx, SVR.options_for(ctx), agents, 0)
        return round_bound(view)

    assert bound(6) == 7  # k + m <= n + 1
    assert bound(6, options={"budget": 5}) == 3
    assert bound(6, rounds=2) == 2
    assert bound(2) == 2  # two ordered pairs
    assert bound(2, options={"repeat_pairs": True}) == 3
    ctx = DebateContext()
    assert recursion_limit(SVR, ctx, [f"a{i}" for i in range(6)]) == 3 * 64 + 1 + 2


def test_simulated_default_run_is_deterministic_and_counts_every_pairwise_call():
    a = dg.run(Q, method="svr", seed=4)
    b = dg.run(Q, method="svr", seed=4)
    for field in ("id", "text", "answer", "reads", "input_tokens", "output_tokens"):
        assert [t[field] for t in a.turns] == [t[field] for t in b.turns]
    assert a.method_state == b.method_state and a.decision == b.decision
    assert len(a.agents) == 6
    assert a.ncomm == len(pairwise(a)) == len(a.method_state["graphs"][-1]["edges"])
    pair_tokens = sum(t["input_tokens"] + t["output_tokens"] for t in pairwise(a))
    assert a.to_dict()["usage_by_kind"]["pairwise"]["total_tokens"] == pair_tokens > 0


def test_studio_export_runs_with_a_context_as_studio_sends_it():
    from debategraph.graphs import studio

    assert studio.svr.name == "svr" and studio.svr.checkpointer is None
    context = {"agents": 6, "seed": 1, "method_options": {"challengers": 3, "prior": "ppl"}}
    out = studio.svr.invoke({"question": Q}, context=context)
    assert out["decision"]["rule"] == "svr"
    assert out["method_state"]["svr_options"]["challengers"] == 3
    assert out["method_state"]["budget"]["max"] % 3 == 0


def test_graph_pictures_one_per_iteration(tmp_path):
    from debategraph.eval.report.graph_plots import write_graph_pngs

    replies = [{"2": "2"}, {}, {}, {}, {}, {}]
    r = dg.run(Q, method="svr", agents=team(ANSWERS, PRIORS, replies))
    files = write_graph_pngs(r.graphs(), tmp_path)
    assert [f.name for f in files] == ["round-1.png", "round-2.png"]
    assert r.graphs()[1].graph["title"] == "SVR iteration 2: a3 challenged (graph so far)"
