"""Graph-level tests of MAD-M² (madm2-s, madm2-o) and its baseline mad."""

import json
import math
import re

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.methods.madm2 import MadM2SOptions, MissingLogprobsError
from debategraph.models.simulated import SimulatedDebater

from .helpers import Scripted

ARITH = "What is the result of 3+4*5+6-7*2?"
Q = "How many apples are left?"
runner = CliRunner()

YES, NO, UNSURE = "<label>YES</label>", "<label>NO</label>", "<label>NOT SURE</label>"
FAIR = {"15": YES, "16": UNSURE, "7": NO, "99": "I cannot tell."}
_BOXED = re.compile(r"\\boxed\{(\d+)\}")


class Debater(BaseChatModel):
    """Answers from a script (the last reply repeats) with the given token logprobs, and
    judges an evaluation prompt by the boxed answer of the solution it shows.

    Every call reports 10 input and 2 output tokens and is recorded in ``seen``.
    """

    answers: list[str]
    verdicts: dict = {}  # noqa: RUF012 - pydantic fields, copied per instance
    logprobs: list = []  # noqa: RUF012
    seen: list = []  # noqa: RUF012
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "debater"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        prompt = messages[-1].content
        self.seen.append({"prompt": prompt, "messages": len(messages), **kwargs})
        metadata = {}
        if "<label>" in prompt:
            text = self.verdicts.get(_BOXED.findall(prompt)[-1], "no verdict")
        else:
            k = min(self.calls, len(self.answers) - 1)
            text = self.answers[k]
            if k < len(self.logprobs):
                sampled, top1 = self.logprobs[k]
                tops = [
                    [] if top1 is None else [{"token": "t", "logprob": t}] for t in top1 or sampled
                ]
                metadata["logprobs"] = {
                    "content": [
                        {"token": "t", "logprob": lp, "top_logprobs": alt}
                        for lp, alt in zip(sampled, tops, strict=True)
                    ]
                }
            self.calls += 1
        usage = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
        message = AIMessage(content=text, usage_metadata=usage, response_metadata=metadata)
        return ChatResult(generations=[ChatGeneration(message=message)])


def three(verdicts=(FAIR, FAIR, FAIR), answers=("15", "16", "7"), logprobs=((), (), ())):
    return [
        Debater(answers=[f"\\boxed{{{a}}}"], verdicts=v, logprobs=list(lp))
        for a, v, lp in zip(answers, verdicts, logprobs, strict=True)
    ]


def reads(result):
    return {t["id"]: t["reads"] for t in result.turns}


def by_id(result):
    return {t["id"]: t for t in result.turns}


def test_defaults_follow_the_paper():
    for name in ("madm2-s", "madm2-o", "mad"):
        m = dg.get_method(name)
        assert (m.default_agents, m.default_rounds, m.decision) == (3, 1, "majority")
        assert not m.stop_on_consensus
    r = dg.run(ARITH, method="madm2-s")
    assert r.rounds == 1 and len(r.agents) == 3
    # Every round runs even when the agents already agree.
    r = dg.run(ARITH, method="madm2-o", rounds=2)
    assert r.rounds == 2 and r.round_answers() == [["15"] * 3] * 3


def test_subjective_shared_loose_reads_and_ids():
    r = dg.run(Q, method="madm2-s", models=three())
    evals = [t for t in r.turns if t["kind"] == "evaluation"]
    assert [(t["id"], t["agent"], t["reads"], t["label"]) for t in evals] == [
        ("r1:eval:a1", "evaluator", ["r0:a1"], "keep"),
        ("r1:eval:a2", "evaluator", ["r0:a2"], "unsure"),
        ("r1:eval:a3", "evaluator", ["r0:a3"], "mask"),
    ]
    got = reads(r)
    assert [got[f"r1:{a}"] for a in ("a1", "a2", "a3")] == [["r0:a1", "r0:a2"]] * 3
    assert all("Possible solution 2" in by_id(r)[f"r1:{a}"]["prompt"] for a in ("a1", "a2"))
    (mask,) = r.method_state["masks"]
    assert mask["round"] == 1 and mask["reader"] == "all"
    assert mask["kept"] == ["r0:a1", "r0:a2"]
    assert [(m["id"], m["kept"], m["why"]) for m in mask["memories"]] == [
        ("r0:a1", True, "judged correct, r1:eval:a1"),
        ("r0:a2", True, "unsure, r1:eval:a2"),
        ("r0:a3", False, "judged wrong, r1:eval:a3"),
    ]
    assert r.method_state["unparsed_judgements"] == 0
    assert r.answer == "15"


def test_calls_are_stateless():
    models = three()
    dg.run(Q, method="madm2-s", models=models)
    # One user message per call: no system prompt and no own chat history.
    assert [s["messages"] for m in models for s in m.seen] == [1] * 9


def test_strict_masks_unsure():
    r = dg.run(Q, method="madm2-s", models=three(), options={"strict": True})
    assert [reads(r)[f"r1:{a}"] for a in ("a1", "a2", "a3")] == [["r0:a1"]] * 3
    assert r.method_state["masks"][0]["rule"] == "subjective, strict: unsure masks"


def test_an_unparseable_judgement_is_unsure_and_counted():
    r = dg.run(Q, method="madm2-s", models=three(answers=("15", "99", "7")))
    mask = r.method_state["masks"][0]
    assert mask["kept"] == ["r0:a1", "r0:a2"]  # loose: unsure keeps
    assert mask["memories"][1] == {
        "id": "r0:a2", "agent": "a2", "label": "unsure", "labelled": False,
        "eval": "r1:eval:a2", "kept": True, "why": "unsure, no label, r1:eval:a2",
    }  # fmt: skip
    assert r.method_state["unparsed_judgements"] == 1
    strict = dg.run(Q, method="madm2-s", models=three(answers=("15", "99", "7")),
                    options={"strict": True})  # fmt: skip
    assert strict.method_state["masks"][0]["kept"] == ["r0:a1"]


def test_per_agent_evaluation_calls_ids_and_reads():
    harsh = {"15": NO, "16": NO, "7": NO}
    kind = {"15": YES, "16": YES, "7": YES}
    models = three(verdicts=(FAIR, harsh, kind))
    r = dg.run(Q, method="madm2-s", models=models, options={"evaluation": "per_agent"})
    evals = [t for t in r.turns if t["kind"] == "evaluation"]
    assert [t["id"] for t in evals] == [
        f"r1:eval:{j}>{m}" for j in ("a1", "a2", "a3") for m in ("a1", "a2", "a3")
    ]
    assert all(t["agent"] == t["id"].split(":")[2].split(">")[0] for t in evals)
    got = reads(r)
    assert got["r1:a1"] == ["r0:a1", "r0:a2"]
    assert got["r1:a2"] == []  # a2 judged everything wrong ...
    assert by_id(r)["r1:a2"]["prompt"] == by_id(r)["r0:a2"]["prompt"]  # ... so answers alone
    assert got["r1:a3"] == ["r0:a1", "r0:a2", "r0:a3"]
    assert [(e["reader"], e["kept"]) for e in r.method_state["masks"]] == [
        ("a1", ["r0:a1", "r0:a2"]),
        ("a2", []),
        ("a3", ["r0:a1", "r0:a2", "r0:a3"]),
    ]
    assert "a2 reads nothing and answers as in round 0" in r.method_state["masks"][1]["summary"]
    assert r.usage["calls"] == 3 + 9 + 3


def test_shared_vs_per_agent_call_counts_over_two_rounds():
    shared = dg.run(ARITH, method="madm2-s", rounds=2)
    per_agent = dg.run(ARITH, method="madm2-s", rounds=2, options={"evaluation": "per_agent"})
    count = lambda r: r.to_dict()["usage_by_kind"]["evaluation"]["calls"]  # noqa: E731
    assert count(shared) == 2 * 3 and count(per_agent) == 2 * 9
    assert len(shared.method_state["masks"]) == 2 and len(per_agent.method_state["masks"]) == 6
    assert {t["agent"] for t in shared.turns if t["kind"] == "evaluation"} == {"evaluator"}


def test_evaluation_tokens_are_counted_everywhere():
    r = dg.run(Q, method="madm2-s", models=three())
    kinds = r.to_dict()["usage_by_kind"]
    assert kinds["evaluation"] == {
        "input_tokens": 30, "output_tokens": 6, "total_tokens": 36, "calls": 3,
        "estimated_calls": 0, "cached_calls": 0,
    }  # fmt: skip
    assert kinds["answer"]["calls"] == 6
    assert r.usage["total_tokens"] == 9 * 12 and r.usage["calls"] == 9
    # NComm: the evaluator reads 3 memories, each agent 2 (a1 and a2 read their own once).
    assert r.ncomm == 3 + 6 - 2


def test_objective_keeps_the_lowest_perplexity_first_on_a_tie():
    lps = (([-0.5, -0.5], None),), (([-0.1, -0.3], None),), (([-0.2, -0.2], None),)
    models = three(logprobs=lps)
    r = dg.run(Q, method="madm2-o", models=models)
    assert [reads(r)[f"r1:{a}"] for a in ("a1", "a2", "a3")] == [["r0:a2"]] * 3
    (mask,) = r.method_state["masks"]
    assert [m["perplexity"] for m in mask["memories"]] == pytest.approx(
        [math.exp(0.5), math.exp(0.2), math.exp(0.2)]
    )
    assert [m["why"] for m in mask["memories"]] == [
        "perplexity 1.6487 > 1.2214",
        "perplexity 1.2214, the lowest",
        "perplexity 1.2214, tied with an earlier memory",
    ]
    assert not any(t["kind"] == "evaluation" for t in r.turns)
    for m in models:  # every answer call asked for logprobs, none for top-1 alternatives
        assert all(s["logprobs"] is True and s["top_logprobs"] == 0 for s in m.seen)


def test_code_compat_median_rule_and_a_tie_that_keeps_nothing():
    lps = (
        (([-0.5, -0.5], [-0.1, -0.1]),),
        (([-0.1, -0.3], [-0.2, -0.2]),),
        (([-0.2, -0.2], [-0.3, -0.1]),),
    )
    models = three(logprobs=lps)
    r = dg.run(Q, method="madm2-o", models=models, options={"code_compat": True})
    (mask,) = r.method_state["masks"]
    assert mask["kept"] == ["r0:a1"]  # the paper's rule would keep r0:a2
    assert [m["score"] for m in mask["memories"]] == pytest.approx(
        [math.exp(-0.1), math.exp(-0.2), math.exp(-0.2)]
    )
    assert all(s["top_logprobs"] == 1 for m in models for s in m.seen)
    tie = (
        (([-0.5, -0.5], [-0.1, -0.1]),),
        (([-0.1, -0.3], [-0.1, -0.1]),),
        (([-0.2, -0.2], [-0.3, -0.3]),),
    )
    r = dg.run(Q, method="madm2-o", models=three(logprobs=tie), options={"code_compat": True})
    assert r.method_state["masks"][0]["kept"] == []
    for a in ("a1", "a2", "a3"):
        assert by_id(r)[f"r1:{a}"]["reads"] == []
        assert by_id(r)[f"r1:{a}"]["prompt"] == by_id(r)[f"r0:{a}"]["prompt"]


def test_a_model_without_logprobs_gets_a_clear_error():
    with pytest.raises(MissingLogprobsError) as info:
        dg.run(Q, method="madm2-o", models=[Scripted(replies=["\\boxed{1}"]) for _ in range(3)])
    message = str(info.value)
    assert "madm2-o masks memories by perplexity" in message and "r0:a1" in message
    assert "--logprobs" in message and "use madm2-s" in message
    assert isinstance(info.value, dg.DebateConfigError)
    sampled_only = three(logprobs=[(([-0.1], None),)] * 3)
    with pytest.raises(MissingLogprobsError, match="top-1 token logprobs \\(code_compat\\)"):
        dg.run(Q, method="madm2-o", models=sampled_only, options={"code_compat": True})
    out = runner.invoke(
        app, ["run", "--method", "madm2-o", "--model", "simulated:logprobs=false", ARITH]
    )
    assert out.exit_code == 2 and "use madm2-s" in " ".join(out.stderr.split())


def test_mad_reads_every_memory_its_own_included():
    r = dg.run(Q, method="mad", models=three())
    assert [reads(r)[f"r1:{a}"] for a in ("a1", "a2", "a3")] == [["r0:a1", "r0:a2", "r0:a3"]] * 3
    assert r.method_state["masks"][0]["rule"] == "none: keep every memory"
    assert r.usage["calls"] == 6


def test_options_are_per_method():
    with pytest.raises(dg.DebateConfigError, match=r"madm2-o options: unknown option.*strict"):
        dg.run(ARITH, method="madm2-o", options={"strict": True})
    with pytest.raises(dg.DebateConfigError, match=r"madm2-s options: unknown option.*code_compat"):
        dg.run(ARITH, method="madm2-s", options={"code_compat": True})
    with pytest.raises(dg.DebateConfigError, match="evaluation must be one of shared, per_agent"):
        dg.run(ARITH, method="madm2-s", options={"evaluation": "everyone"})
    assert dg.get_method("madm2-s").options.from_pairs(["strict=true", "evaluation=per_agent"]) == (
        MadM2SOptions(strict=True, evaluation="per_agent")
    )


def test_a_cut_off_agent_rechecks_its_own_memory():
    r = dg.run(Q, method="madm2-s", models=three(), cut_off=["a3"])
    assert reads(r)["r1:a3"] == ["r0:a3"]
    assert "Your solution from the previous round" in by_id(r)["r1:a3"]["prompt"]
    assert reads(r)["r1:a1"] == ["r0:a1", "r0:a2"]
    r = dg.run(Q, method="madm2-s", models=three(), cut_off=["a3"],
               options={"evaluation": "per_agent"})  # fmt: skip
    assert [t["id"] for t in r.turns if t["kind"] == "evaluation"] == [
        f"r1:eval:{j}>{m}" for j in ("a1", "a2") for m in ("a1", "a2", "a3")
    ]
    assert [e["reader"] for e in r.method_state["masks"]] == ["a1", "a2"]
    assert reads(r)["r1:a3"] == ["r0:a3"]


def test_json_carries_masks_and_logprobs_and_the_transcript_shows_them():
    out = runner.invoke(app, ["run", "--method", "madm2-o", "--json", ARITH])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    (mask,) = d["method_state"]["masks"]
    assert mask["round"] == 1 and mask["kept"] == ["r0:a1"]
    assert [m["kept"] for m in mask["memories"]] == [True, False, False]
    assert set(d["turns"][0]["logprobs"]) == {"mean", "min", "n"}
    out = runner.invoke(app, ["run", "--method", "madm2-s", ARITH])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "round 1 masks [subjective, loose: unsure keeps]: every agent reads r0:a3" in text
    assert "unparseable judgements: 0" in text


def test_logprobs_flag_reaches_any_method_and_json():
    out = runner.invoke(app, ["run", "--method", "du", "--rounds", "0", "--logprobs", "--json",
                              "--model", "simulated", ARITH])  # fmt: skip
    d = json.loads(out.stdout)
    assert all(set(t["logprobs"]) == {"mean", "min", "n"} for t in d["turns"])
    model = Debater(answers=["\\boxed{1}"])
    dg.run(Q, method="du", agents=2, rounds=0, models=model, logprobs=True)
    assert [(s["logprobs"], s["top_logprobs"]) for s in model.seen] == [(True, 0)] * 2


def test_simulated_model_gives_top1_alternatives_when_asked():
    model = SimulatedDebater.for_agent(0, agent="a1")
    prompt = f"Question: {ARITH}\nGive \\boxed{{answer}}."
    assert "logprobs" not in model.invoke(prompt).response_metadata  # only when asked
    plain = model.bind(logprobs=True).invoke(prompt)
    assert all(t["top_logprobs"] == [] for t in plain.response_metadata["logprobs"]["content"])
    asked = model.bind(logprobs=True, top_logprobs=1).invoke(prompt)
    content = asked.response_metadata["logprobs"]["content"]
    assert [t["logprob"] for t in content] == [
        t["logprob"] for t in plain.response_metadata["logprobs"]["content"]
    ]
    assert all(len(t["top_logprobs"]) == 1 for t in content)
    assert all(t["top_logprobs"][0]["logprob"] >= t["logprob"] for t in content)


def test_studio_exports_take_options_as_studio_sends_them():
    from debategraph.graphs import studio

    out = studio.madm2_s.invoke(
        {"question": ARITH}, context={"method_options": {"evaluation": "per_agent"}}
    )
    assert sum(t["kind"] == "evaluation" for t in out["turns"]) == 9
    assert len(out["method_state"]["masks"]) == 3
    out = studio.madm2_o.invoke({"question": ARITH}, context={"rounds": 2})
    assert [m["round"] for m in out["method_state"]["masks"]] == [1, 2]
