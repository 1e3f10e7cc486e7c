"""A chat model object passed as the model serves every run and evaluation, not only the first."""

import asyncio

import pytest
from langchain_openai import ChatOpenAI

import debategraph as dg

from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"


@pytest.fixture
def server(loopback):
    with serve(seed=3) as running:
        yield running


def chat(server, **kwargs):
    return ChatOpenAI(model="sim-0", base_url=server.base_url, api_key="sk-test", **kwargs)


def test_one_model_object_serves_run_after_run(server):
    model = chat(server)
    answers = [dg.run(ARITH, method="du", agents=2, rounds=1, models=model).answer
               for _ in range(3)]  # fmt: skip
    assert answers == ["15"] * 3
    assert server.stats()["chat_requests"] == 3 * 4


def test_arun_in_two_event_loops_and_a_streaming_object(server):
    model = chat(server, streaming=True)

    async def once():
        return await dg.arun(ARITH, method="mav", agents=2, models=model)

    assert asyncio.run(once()).answer == asyncio.run(once()).answer == "15"
    assert server.stats()["streamed"] == 4


def test_a_second_evaluation_with_the_object_fails_no_row(server, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    model = chat(server)
    items = arithmetic_items(3, seed=1)
    for out in ("one", "two"):
        arms = [Arm("cot", "cot", {"models": [model]})]
        outcome = evaluate(items, arms, tmp_path / out, dataset="arithmetic")
        assert outcome.failed == 0 and len(outcome.rows) == 3, outcome.rows


def test_the_users_object_is_left_as_it_was_and_keeps_working(server):
    model = chat(server, max_retries=4)
    client, http = model.root_async_client, model.root_async_client._client
    dg.run(ARITH, method="cot", models=model)
    dg.run(ARITH, method="cot", models=model)
    assert model.root_async_client is client and client._client is http
    assert model.max_retries == 4
    assert model.invoke(ARITH).text  # the synchronous client is the user's, untouched


def test_each_loop_gets_one_copy_with_its_own_client_and_the_users_settings(server):
    from debategraph.models.loops import for_this_loop

    model = chat(server, temperature=0.3)

    async def twice():
        return for_this_loop(model), for_this_loop(model)

    (a, a2), (b, _) = asyncio.run(twice()), asyncio.run(twice())
    assert a is a2 and a is not model and b is not a
    assert a.root_async_client._client is not b.root_async_client._client
    assert a.root_async_client.max_retries == 0  # the user set none: ours is the one layer
    assert (a.temperature, str(a.root_async_client.base_url)) == (0.3, server.base_url + "/")
    assert for_this_loop(model) is model  # no running loop: the synchronous path


def test_a_model_with_its_own_http_client_keeps_it():
    import httpx

    from debategraph.models.loops import for_this_loop

    own = httpx.AsyncClient()
    model = ChatOpenAI(model="m", api_key="sk-test", http_async_client=own)

    async def resolved():
        return for_this_loop(model)

    assert asyncio.run(resolved()) is model
