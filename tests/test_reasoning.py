"""Reasoning models: a reply's thinking kept apart from its answer part, whatever the shape."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import subprocess
import sys

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import LLMResult
from langchain_openai import ChatOpenAI
from rich.console import Console

import debategraph as dg
from debategraph.models.compatible import CompatibleChatOpenAI
from debategraph.nodes.call import exchange
from debategraph.nodes.thinking import Reading, read_reply
from debategraph.policies.thinking import split_thinking, with_thinking
from debategraph.testing import ScriptedChatModel, make_turn
from debategraph.transcript import print_transcript

from .openai_server import serve
from .openai_server.responders import THINKING_SHAPES, ThinkingResponder

ARITH = "What is the result of 3+4*5+6-7*2?"
GUESS = "777777"  # the wrong number every stand-in thought names


@pytest.fixture
def key(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-key")


def test_split_reads_every_tag_shape():
    assert split_thinking("<think>\nhmm 7\n</think>\n\nIt is \\boxed{15}.") == (
        split_thinking("hmm 7</think>It is \\boxed{15}.")
    )
    whole = split_thinking("<think>\nhmm 7\n</think>\n\nIt is \\boxed{15}.")
    assert (whole.thinking, whole.answer, whole.cut_off) == ("hmm 7", "It is \\boxed{15}.", False)
    cut = split_thinking("<think>\nstill 7 and")
    assert (cut.thinking, cut.answer, cut.cut_off) == ("still 7 and", "", True)
    two = split_thinking("a<think>x</think>b<think>y</think>c")
    assert (two.thinking, two.answer) == ("x\n\ny", "abc")
    assert split_thinking("no tags at all ") == split_thinking("no tags at all ")
    assert split_thinking("no tags at all ").answer == "no tags at all "
    assert with_thinking("A", "") == "A"
    assert with_thinking("A", "T") == "[thinking]\nT\n[/thinking]\n\nA"


def test_read_reply_takes_fields_and_content_blocks():
    field = read_reply(AIMessage("15", additional_kwargs={"reasoning_content": "r"}))
    assert (field.thinking, field.answer, field.field) == ("r", "15", "reasoning_content")
    v1 = read_reply(AIMessage([{"type": "reasoning", "reasoning": "r1"}, "15"]))
    anthropic = AIMessage([{"type": "thinking", "thinking": "r2"}, {"type": "text", "text": "15"}])
    assert (v1.thinking, v1.answer) == ("r1", "15")
    assert (read_reply(anthropic).thinking, read_reply(anthropic).answer) == ("r2", "15")
    only = read_reply(AIMessage("", additional_kwargs={"reasoning": "r"}))
    assert (only.answer, only.cut_off) == ("", True)


def test_a_reply_cut_at_its_token_limit_before_any_closed_thought_has_no_answer():
    length = {"finish_reason": "length"}
    # A template opened <think> in the prompt: the thought arrives untagged, then is cut.
    thought = "Okay, 3+4*2. Maybe the answer is 14? No, multiplication first, so"
    cut = read_reply(AIMessage(thought, response_metadata=length))
    assert cut == Reading(thinking=thought, answer="", cut_off=True)
    # A model that does not think, stopped mid-answer: unfinished too, not a fallback number.
    plain = "3+4*2 = 3+8 = 11. Checking again: 4*2 is 8 and 3+8 is"
    assert read_reply(AIMessage(plain, response_metadata=length)) == Reading(plain, "", True)
    anthropic = read_reply(AIMessage(plain, response_metadata={"stop_reason": "max_tokens"}))
    assert anthropic.cut_off
    inspect = read_reply(AIMessage(plain, response_metadata={"finish_reason": "max_tokens"}))
    assert inspect.cut_off
    # The same texts that ended where the model chose are answers, as before.
    done = read_reply(AIMessage(thought, response_metadata={"finish_reason": "stop"}))
    assert done == Reading(thinking="", answer=thought, cut_off=False)
    # A thought that closed before the limit leaves its answer part to be read.
    closed = read_reply(AIMessage("hmm</think>The answer is 11", response_metadata=length))
    assert (closed.thinking, closed.answer, closed.cut_off) == ("hmm", "The answer is 11", False)
    field = AIMessage("It is 11", additional_kwargs={"reasoning": "r"}, response_metadata=length)
    assert read_reply(field) == Reading("r", "It is 11", False, "reasoning")


def test_a_cut_reply_is_recorded_as_a_cut_off_abstention():
    cut = AIMessage("Maybe 14? No, multiplication first, so", response_metadata={
        "finish_reason": "length"})  # fmt: skip
    model = GenericFakeChatModel(messages=itertools.repeat(cut))
    r = dg.run(ARITH, method="du", agents=2, rounds=0, models=model)
    assert [(t["answer"], t["answer_source"], t["text"]) for t in r.turns] == [
        (None, "cut_off", ""), (None, "cut_off", "")
    ]  # fmt: skip
    assert r.turns[0]["reasoning"] == "Maybe 14? No, multiplication first, so"


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("shape", THINKING_SHAPES)
def test_every_shape_through_compatible_chat_openai(key, shape: str, streaming: bool):
    responder = ThinkingResponder(shape, ["It is \\boxed{15}."], thought_chars=200)
    with serve(responder=responder) as server:
        model = CompatibleChatOpenAI(
            model="m", base_url=server.base_url, api_key="sk-t", streaming=streaming
        )
        reading = read_reply(model.invoke("q"))
        plain = ChatOpenAI(model="m", base_url=server.base_url, api_key="sk-t")
        dropped = read_reply(plain.invoke("q"))
    assert GUESS in reading.thinking and GUESS not in reading.answer
    if shape in ("unclosed", "untagged"):  # cut off at the token limit while thinking
        assert (reading.answer, reading.cut_off) == ("", True)
    else:
        assert (reading.answer, reading.cut_off) == ("It is \\boxed{15}.", False)
    if shape in ("reasoning", "reasoning_content"):
        assert reading.field == shape
        assert dropped.thinking == ""  # ChatOpenAI drops the field: why Compatible keeps it


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize("shape", THINKING_SHAPES)
def test_a_debate_records_thinking_apart_and_never_answers_from_it(
    key, shape: str, streaming: bool
):
    with serve(responder=ThinkingResponder(shape, thought_chars=300)) as server:
        model = CompatibleChatOpenAI(
            model="sim-0", base_url=server.base_url, api_key="sk-t", streaming=True
        )
        models = model if streaming else "sim-0"
        r = dg.run(ARITH, models=models, base_url=server.base_url, agents=2, rounds=1)
        prompts = [json.dumps([m["content"] for m in q.body["messages"]]) for q in server.requests]
        streamed = {bool(q.body.get("stream")) for q in server.requests}
    assert streamed == {streaming}
    assert all(GUESS in t["reasoning"] for t in r.turns)
    assert all(GUESS not in t["text"] and t["answer"] != GUESS for t in r.turns)
    assert not any(GUESS in p for p in prompts)  # no message's content holds any thinking
    if shape in ("unclosed", "untagged"):  # cut off at the token limit while thinking
        assert {t["answer_source"] for t in r.turns} == {"cut_off"}
        assert r.answer is None and r.answer_sources["cut_off"] == len(r.turns)
        assert len(prompts) == len(r.turns)  # recorded as abstentions, not asked again
    else:
        assert all(t["answer"] is not None for t in r.turns)
    fields = {t.get("reasoning_field") for t in r.turns}
    assert fields == ({shape} if shape.startswith("reasoning") else {None})


def test_a_long_thought_enters_no_other_prompt_unless_peer_reasoning_is_full():
    thought = " ".join(f"step{i}" for i in range(10_000))  # 10,000 tokens of thinking
    by_setting: dict[str, list] = {}
    for peer_reasoning in ("none", "full"):
        seen: list[str] = []

        def respond(prompt: str, seen: list[str] = seen) -> str:
            seen.append(prompt)
            return f"<think>{thought}</think>The answer is \\boxed{{15}}."

        scripted = ScriptedChatModel(respond=respond)
        r = dg.run(ARITH, method="du", agents=3, rounds=2, models=scripted,
                   peer_reasoning=peer_reasoning)  # fmt: skip
        assert all(t["reasoning"] == thought for t in r.turns)
        assert r.settings["peer_reasoning"] == peer_reasoning
        by_setting[peer_reasoning] = [call["messages"] for call in scripted.calls]
    quiet = [json.dumps(m) for m in by_setting["none"]]
    loud = [json.dumps(m) for m in by_setting["full"]]
    assert not any("step9999" in m for m in quiet)
    assert sum("step9999" in m for m in loud) == 6  # each of 3 agents, rounds 1 and 2
    # round 1 shows both peers' thoughts; round 2 too, after its own round-1 prompt (history)
    assert sorted(m.count("[thinking]") for m in loud) == [0, 0, 0, 2, 2, 2, 4, 4, 4]


def test_own_history_sends_thinking_back_in_its_field_never_as_content():
    turn = make_turn("r0:a1", text="\\boxed{15}")
    turn["reasoning"], turn["reasoning_field"] = "mine", "reasoning_content"
    human, ai = exchange(turn)
    assert isinstance(human, HumanMessage) and ai.content == "\\boxed{15}"
    assert ai.additional_kwargs == {"reasoning_content": "mine"}
    del turn["reasoning_field"]  # thinking that came in tags goes back as nothing
    assert exchange(turn)[1].additional_kwargs == {}


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_outbound_history_shape_per_provider(key, field: str):
    history = [
        HumanMessage("q"),
        AIMessage("\\boxed{15}", additional_kwargs={field: "my thought"}),
        HumanMessage("again?"),
    ]
    with serve(responder=["ok"]) as server:
        kw = {"model": "m", "base_url": server.base_url, "api_key": "sk-t"}
        CompatibleChatOpenAI(**kw).invoke(history)
        ChatOpenAI(**kw).invoke(history)  # OpenAI's own API takes no thinking back
        compatible, openai = (q.body["messages"][1] for q in server.requests)
    assert compatible == {"role": "assistant", "content": "\\boxed{15}", field: "my thought"}
    assert openai == {"role": "assistant", "content": "\\boxed{15}"}


def test_method_with_history_sends_thinking_back_on_the_wire(key):
    with serve(responder=ThinkingResponder("reasoning_content", thought_chars=60)) as server:
        dg.run(ARITH, method="du", models="sim-0", base_url=server.base_url, agents=1,
               rounds=1)  # fmt: skip
        sent = [m for q in server.requests for m in q.body["messages"]]
    assistants = [m for m in sent if m["role"] == "assistant"]
    assert assistants  # the method keeps history: thinking goes back in its own field only
    assert all(GUESS in m["reasoning_content"] for m in assistants)
    assert not any(GUESS in (m.get("content") or "") for m in sent)


def format_transcript(result: dg.DebateResult, *, show_text: bool = False) -> str:
    out = io.StringIO()
    print_transcript(result, Console(file=out, width=200, color_system=None), show_text=show_text)
    return out.getvalue()


def test_transcript_folds_thinking_and_shows_it_whole_with_show_text():
    scripted = ScriptedChatModel(respond=lambda p: "<think>line one\nline two</think>\\boxed{15}")
    r = dg.run(ARITH, method="cot", models=scripted)
    folded = format_transcript(r)
    assert "line one" in folded and "line two" not in folded
    assert "(17 chars of thinking)" in folded
    assert "line two" in format_transcript(r, show_text=True)
    assert r.to_dict(include_text=True)["turns"][0]["reasoning"] == "line one\nline two"
    assert "reasoning" not in r.to_dict()["turns"][0]  # text: kept only on request


def test_notebook_view_folds_thinking_out_apart_from_the_reply():
    scripted = ScriptedChatModel(respond=lambda p: "<think>I guess 777777</think>\\boxed{15}")
    html = dg.run(ARITH, method="cot", models=scripted)._repr_html_()
    assert "<summary><small>thinking</small></summary>" in html
    thinking = html.index("I guess 777777")
    assert html.index("\\boxed{15}") < thinking  # the reply, then its thinking folded apart


def test_cli_run_in_process_against_a_thinking_server_records_thinking_apart(key):
    from typer.testing import CliRunner

    from debategraph.cli import app

    args = ["run", "--model", "qwen3", "--rounds", "1", "--agents", "2", "--json", "--text"]
    with serve(responder=ThinkingResponder("tags", thought_chars=120)) as server:
        done = CliRunner().invoke(app, [*args, ARITH, "--base-url", server.base_url])
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["settings"]["peer_reasoning"] == "none"
    assert all(GUESS in t["reasoning"] and GUESS not in t["text"] for t in result["turns"])


@pytest.mark.slow  # a fresh interpreter: the command line end to end
def test_cli_run_against_a_thinking_server_records_thinking_apart(key):
    with serve(responder=ThinkingResponder("tags", thought_chars=120)) as server:
        env = {**os.environ, "OPENAI_API_KEY": "sk-t"}
        out = subprocess.run(
            [sys.executable, "-m", "debategraph", "run", "--model", "qwen3", "--base-url",
             server.base_url, "--rounds", "1", "--agents", "2", "--json", "--text", ARITH],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["settings"]["peer_reasoning"] == "none"
    assert all(GUESS in t["reasoning"] and GUESS not in t["text"] for t in result["turns"])


def test_thinking_per_agent_goes_in_the_body_of_a_compatible_server_only(key):
    with serve(responder=["\\boxed{15}"]) as server:
        r = dg.run(ARITH, method="du", agents=3, rounds=0, models="sim-0",
                   base_url=server.base_url, thinking={"*": "off", "a2": "512"})  # fmt: skip
        bodies = [q.body for q in server.requests]
    sent = [
        json.dumps({k: b.get(k) for k in ("chat_template_kwargs", "thinking_token_budget")})
        for b in bodies
    ]
    off = json.dumps({"chat_template_kwargs": {"enable_thinking": False},
                      "thinking_token_budget": None})  # fmt: skip
    budget = json.dumps({"chat_template_kwargs": {"enable_thinking": True, "thinking_budget": 512},
                         "thinking_token_budget": 512})  # fmt: skip
    assert sorted(sent) == sorted([off, off, budget])
    assert r.settings["thinking"] == {"*": "off", "a2": "512"}


def test_thinking_keeps_the_models_own_template_kwargs():
    model = CompatibleChatOpenAI(
        model="m",
        base_url="http://127.0.0.1:9/v1",
        api_key="sk-t",
        extra_body={"chat_template_kwargs": {"custom_flag": 1, "enable_thinking": True},
                    "top_k": 5},
    )  # fmt: skip
    hi = [HumanMessage("hi")]
    assert model._get_request_payload(hi, thinking="off")["extra_body"] == {
        "chat_template_kwargs": {"custom_flag": 1, "enable_thinking": False},
        "top_k": 5,
    }
    assert model._get_request_payload(hi, thinking=64)["extra_body"] == {
        "chat_template_kwargs": {"custom_flag": 1, "enable_thinking": True, "thinking_budget": 64},
        "top_k": 5,
        "thinking_token_budget": 64,
    }
    assert model.extra_body == {
        "chat_template_kwargs": {"custom_flag": 1, "enable_thinking": True}, "top_k": 5
    }  # fmt: skip


@pytest.mark.parametrize(
    ("thinking", "error"),
    [
        ({"a1": "maybe"}, "thinking of a1 must be on, off or a thinking-token budget"),
        ({"a1": "0"}, "thinking of a1 must be on, off"),
        ({"a9": "off"}, "thinking agents ['a9'] are not among"),
        ({"*": "off"}, "cannot be sent to scripted"),
    ],
)
def test_a_bad_or_unsendable_thinking_setting_makes_no_request(thinking, error):
    scripted = ScriptedChatModel(replies=["\\boxed{15}"])
    with pytest.raises(dg.DebateConfigError, match=re.escape(error)):
        dg.run(ARITH, method="du", agents=2, rounds=0, models=scripted, thinking=thinking)
    assert scripted.calls == []


class _Outputs(BaseCallbackHandler):
    """Keeps every model run's output message, as a tracer (LangSmith) records it."""

    def __init__(self) -> None:
        self.messages: list[BaseMessage] = []

    def on_llm_end(self, response: LLMResult, **kwargs: object) -> None:
        self.messages += [g.message for gs in response.generations for g in gs]  # type: ignore[attr-defined]


def test_a_streamed_debate_keeps_thinking_and_traces_carry_it(key):
    outputs = _Outputs()
    with serve(responder=ThinkingResponder("reasoning", thought_chars=90)) as server:
        model = CompatibleChatOpenAI(
            model="m", base_url=server.base_url, api_key="sk-t", streaming=True
        )
        r = dg.run(ARITH, method="du", agents=2, rounds=1, models=model,
                   config={"callbacks": [outputs]})  # fmt: skip
    assert all(GUESS in t["reasoning"] and t["reasoning_field"] == "reasoning" for t in r.turns)
    assert len(outputs.messages) == len(r.turns)
    assert all(GUESS in m.additional_kwargs["reasoning"] for m in outputs.messages)
