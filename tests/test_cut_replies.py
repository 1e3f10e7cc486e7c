"""A reply that ends without a finish reason (a cut-off stream) is broken: retried and counted."""

import json

import pytest
from langchain_openai import ChatOpenAI

import debategraph as dg

from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-key")
    with serve(seed=3) as running:
        yield running


def test_a_stream_without_its_finish_chunk_is_asked_again(server):
    model = ChatOpenAI(model="sim-0", base_url=server.base_url, api_key="sk-t", streaming=True)
    server.faults.push("no_finish")
    result = dg.run(ARITH, method="cot", models=model, retry_backoff=0.01)
    (turn,) = result.turns
    assert turn["attempts"] == 2 and result.answer == "15"
    assert server.stats()["chat_requests"] == server.stats()["streamed"] == 2


@pytest.mark.parametrize("streamed", [True, False])
def test_the_cut_reply_is_a_failed_request_whose_tokens_are_wasted(server, tmp_path, streamed):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    if streamed:
        model = ChatOpenAI(model="sim-0", base_url=server.base_url, streaming=True,
                           stream_usage=True)  # fmt: skip
        settings = {"models": [model], "retry_backoff": 0.01}
    else:  # a whole reply that says "finish_reason": null
        settings = {"models": "sim-0", "base_url": server.base_url, "retry_backoff": 0.01}
    server.faults.push("no_finish")
    outcome = evaluate(arithmetic_items(1), [Arm("cot", "cot", settings)], tmp_path,
                       dataset="arithmetic")  # fmt: skip
    (row,) = outcome.rows
    assert (row["calls"], row["requests"], row["failed_requests"]) == (1, 2, 1)
    assert row["wasted_input_tokens"] > 0 and row["wasted_output_tokens"] > 0
    assert server.stats()["streamed"] == (2 if streamed else 0)


def test_other_models_are_not_asked_for_a_finish_reason():
    from langchain_core.messages import AIMessage

    from debategraph.nodes.call import _finished
    from debategraph.testing import ScriptedChatModel

    reply = AIMessage("The answer is 3.")
    assert _finished(reply, ScriptedChatModel(replies=["x"])) is reply


def test_a_reply_cut_off_mid_body_is_named_so_not_an_unreachable_server(server, tmp_path):
    from debategraph.eval.datasets import Item
    from debategraph.eval.run.runner import Arm, evaluate

    model = ChatOpenAI(model="sim-0", base_url=server.base_url, api_key="sk-t", max_retries=0)
    server.faults.push("reset", "reset")
    arm = Arm("cot", "cot", {"models": model, "max_attempts": 2, "retry_backoff": 0.01})
    outcome = evaluate([Item("q1", ARITH, "15")], [arm], tmp_path / "out", dataset="own")
    (row,) = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").open()]
    assert outcome.failed == 1
    assert "answered, but its reply was cut off" in row["error"]
    assert "could not reach" not in row["error"]
