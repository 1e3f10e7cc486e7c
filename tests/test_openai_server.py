"""The loopback OpenAI server, driven by the real clients over real sockets."""

import asyncio
import contextlib
import json
import socket
import time
import urllib.error
import urllib.request

import openai
import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from debategraph.models.simulated import SimulatedDebater
from debategraph.policies.tokens import estimate_tokens
from tests.openai_server import FAULTS, Server, serve, spawn, split_tokens

pytestmark = pytest.mark.usefixtures("loopback")

QUESTION = (
    "Question: What is 3+4*5+6-2*3?\n"
    "Explain your reasoning. Your final answer should be a single numerical number, "
    "in the form \\boxed{answer}, at the end of your response."
)
KEY = "sk-test-0123456789abcdef"


def chat(server, **kwargs):
    return ChatOpenAI(
        base_url=server.base_url, api_key=KEY, model=kwargs.pop("model", "sim-1"), **kwargs
    )


_clients: list[openai.OpenAI] = []


@pytest.fixture(autouse=True)
def close_clients():
    yield
    while _clients:
        _clients.pop().close()


def client(server, **kwargs):
    c = openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0, **kwargs)
    _clients.append(c)
    return c


def ask(c, **kwargs):
    messages = [{"role": "user", "content": "hi"}]
    return c.chat.completions.create(model=kwargs.pop("model", "m"), messages=messages, **kwargs)


def raw_exchange(server, payload: bytes, *, read_until_close=True) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(payload)
        if not read_until_close:
            return sock.recv(65536)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data


# -- what ChatOpenAI users see ----------------------------------------------------------------


async def test_invoke_and_ainvoke_answer_like_the_simulated_debater_with_usage():
    with serve(seed=5) as server:
        model = chat(server, model="sim-2")
        reply = model.invoke(QUESTION)
        again = await model.ainvoke(QUESTION)
    expected = SimulatedDebater.for_agent(2, agent="a3", seed=5).invoke([HumanMessage(QUESTION)])
    assert reply.content == again.content == expected.content
    assert "\\boxed{" in reply.content
    usage = reply.usage_metadata
    assert usage["input_tokens"] == estimate_tokens(QUESTION)
    assert usage["output_tokens"] == estimate_tokens(reply.content)
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    assert reply.response_metadata["finish_reason"] == "stop"
    assert reply.response_metadata["model_name"] == "sim-2"
    assert reply.response_metadata["logprobs"] is None
    assert server.stats()["by_model"] == {"sim-2": 2}
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_stream_carries_usage_only_when_asked():
    with serve(seed=1) as server:
        model = chat(server)
        whole = model.invoke(QUESTION).content
        with_usage = list(model.stream(QUESTION, stream_usage=True))
        without = list(model.stream(QUESTION))
        bodies = [r.body for r in server.requests]
    for chunks in (with_usage, without):
        assert "".join(c.content for c in chunks) == whole
        assert len(chunks) > 10  # one chunk per token, as OpenAI streams
    assert sum(with_usage[1:], with_usage[0]).usage_metadata["output_tokens"] == estimate_tokens(
        whole
    )
    assert all(c.usage_metadata is None for c in without)
    assert bodies[1]["stream_options"] == {"include_usage": True}
    assert "stream_options" not in bodies[2]


def test_raw_stream_wire_format():
    with serve(responder=["one two"], chunk_delay=0.02) as server:
        body = json.dumps(
            {"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": True}
        ).encode()
        head = (
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
        )
        started = time.perf_counter()
        wire = raw_exchange(server, head + body)
        assert time.perf_counter() - started >= 0.08  # 4 pauses between 5 events
    header, _, chunked = wire.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in header
    assert b"text/event-stream" in header
    assert chunked.endswith(b"0\r\n\r\n")
    events = [line.strip() for line in chunked.split(b"\r\n") if line.startswith(b"data: ")]
    assert events[-1] == b"data: [DONE]"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    assert all("usage" not in c for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == "one two"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_logprobs_land_in_response_metadata_and_are_deterministic():
    with serve(seed=2) as server:
        model = chat(server).bind(logprobs=True, top_logprobs=3)
        first, second = model.invoke(QUESTION), model.invoke(QUESTION)
        streamed = list(chat(server).bind(logprobs=True).stream(QUESTION))
        plain = client(server).chat.completions.create(
            model="sim-1", messages=[{"role": "user", "content": QUESTION}]
        )
    content = first.response_metadata["logprobs"]["content"]
    assert content == second.response_metadata["logprobs"]["content"]
    assert "".join(e["token"] for e in content) == first.content
    assert len(content) == first.usage_metadata["output_tokens"]
    assert all(e["logprob"] <= 0 and len(e["top_logprobs"]) == 3 for e in content)
    assert all(e["bytes"] == list(e["token"].encode()) for e in content)
    merged = sum(streamed[1:], streamed[0])
    assert [e["token"] for e in merged.response_metadata["logprobs"]["content"]] == [
        e["token"] for e in content
    ]
    assert plain.choices[0].logprobs is None


def test_tokens_tile_the_text_and_match_the_estimate():
    for text in ("", "a", "Hello,  world!\n", "x = 12345 + 6.5;  ok  ", "naïve café 😀"):
        tokens = split_tokens(text)
        assert "".join(tokens) == text
        assert len(tokens) == estimate_tokens(text) or not text.strip()


def test_max_tokens_truncates_with_finish_reason_length():
    with serve(responder=["one two three four five"]) as server:
        reply = ask(client(server), max_tokens=2)
    assert reply.choices[0].message.content == "one two"
    assert reply.choices[0].finish_reason == "length"
    assert reply.usage.completion_tokens == 2


# -- responders -------------------------------------------------------------------------------


def test_echo_responder_returns_the_request_with_its_headers():
    with serve(responder="echo") as server:
        reply = chat(server, model="anything").invoke("ping")
    echoed = json.loads(reply.content)
    assert echoed["headers"]["authorization"] == f"Bearer {KEY}"
    assert echoed["body"]["messages"] == [{"role": "user", "content": "ping"}]
    assert echoed["path"] == "/v1/chat/completions"


def test_scripted_responder_list_and_callable_and_faults_do_not_use_up_replies():
    with serve(responder=["first", "second"], faults=["http500"]) as server:
        c = client(server)
        with pytest.raises(openai.InternalServerError):
            ask(c)
        assert [ask(c).choices[0].message.content for _ in range(3)] == [
            "first",
            "second",
            "second",
        ]
        server.reset()  # the script starts again, and so do the faults given at the start
        with pytest.raises(openai.InternalServerError):
            ask(c)
        assert ask(c).choices[0].message.content == "first"
    with serve(responder=lambda body: body["messages"][-1]["content"].upper()) as server:
        assert chat(server).invoke("shout").content == "SHOUT"


# -- faults, as the openai client sees them ---------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "error", "status"),
    [
        ("http500", openai.InternalServerError, 500),
        ("http429", openai.RateLimitError, 429),
        ("http400", openai.BadRequestError, 400),
        ("http401", openai.AuthenticationError, 401),
        ("http404", openai.NotFoundError, 404),
    ],
)
@pytest.mark.parametrize("stream", [False, True])
def test_http_error_faults(kind, error, status, stream):
    with serve(responder=["fine"], faults=[kind], retry_after=7) as server:
        c = client(server)
        with pytest.raises(error) as caught:
            ask(c, stream=stream)
        assert ask(c).choices[0].message.content == "fine"  # the next request is served
        stats = server.stats()
    assert caught.value.status_code == status
    body = caught.value.body
    assert set(body) == {"message", "type", "param", "code"}
    assert KEY not in json.dumps(body)
    if kind == "http429":
        assert caught.value.response.headers["retry-after"] == "7"
        assert body["code"] == "rate_limit_exceeded"
    assert stats["faulted"] == 1 and stats["completed"] == 1
    assert stats["faults"] == {kind: 1}


def test_echo_secrets_puts_the_key_in_error_messages():
    with serve(faults=["http401", "http500"], echo_secrets=True) as server:
        c = client(server)
        for _ in range(2):
            with pytest.raises(openai.APIStatusError) as caught:
                ask(c)
            assert KEY in caught.value.message


def test_wrong_api_key_is_refused_but_not_a_fault():
    with serve(responder=["x"], api_key="sk-right") as server:
        with pytest.raises(openai.AuthenticationError):
            ask(client(server))
        stats = server.stats()
    assert stats["errors"] == 1 and stats["faulted"] == 0 and stats["completed"] == 0


def test_fault_picker_targets_one_model():
    with serve(responder=["x"]) as server:
        server.faults.picker = lambda request: "http500" if request.model == "sim-2" else None
        c = client(server)
        assert ask(c, model="sim-1").choices[0].message.content == "x"
        with pytest.raises(openai.InternalServerError):
            ask(c, model="sim-2")
        assert [r.fault for r in server.requests] == [None, "http500"]


def test_hang_times_out():
    with serve(responder=["fine"], faults=["hang"]) as server:
        c = client(server, timeout=0.4)
        started = time.perf_counter()
        with pytest.raises(openai.APITimeoutError):
            ask(c)
        assert 0.35 < time.perf_counter() - started < 2
        assert server.stats()["faults"] == {"hang": 1}


async def test_hang_does_not_block_other_requests():
    with serve(responder=["fine"], faults=["hang"]) as server:
        async with openai.AsyncOpenAI(
            base_url=server.base_url, api_key=KEY, max_retries=0, timeout=0.5
        ) as c:
            hanging = asyncio.create_task(ask_async(c))
            await asyncio.sleep(0.05)
            answer = await ask_async(c)
            for _ in range(100):  # the answered one leaves in-flight right after its reply
                if server.stats()["in_flight"] == 1:  # the hanging one
                    break
                await asyncio.sleep(0.005)
            assert server.stats()["in_flight"] == 1
            with pytest.raises(openai.APITimeoutError):
                await hanging
    assert answer.choices[0].message.content == "fine"


async def ask_async(c):
    return await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])


@pytest.mark.parametrize("stream", [False, True])
def test_reset_is_a_connection_error(stream):
    with serve(responder=["a reply long enough to be cut in two"], faults=["reset"]) as server:
        c = client(server)
        received = []
        with pytest.raises(openai.APIConnectionError):
            received.extend(ask(c, stream=stream))
        assert ask(c).choices[0].message.content.startswith("a reply")
    if stream:
        assert len(received) == 2  # role and first token, then the connection drops


@pytest.mark.parametrize("stream", [False, True])
def test_malformed_body_fails_to_decode(stream):
    with serve(faults=["malformed"]) as server, pytest.raises(json.JSONDecodeError):
        list(ask(client(server), stream=stream)) if stream else ask(client(server))


def test_no_choices_empty_and_huge():
    with serve(faults=["no_choices", "no_choices", "empty", "huge"], huge_bytes=300_000) as s:
        c = client(s)
        assert ask(c).choices is None
        with pytest.raises((KeyError, TypeError), match="choices"):  # per langchain-openai
            chat(s, max_retries=0).invoke("x")
        empty = ask(c)
        assert empty.choices[0].message.content == ""
        assert empty.usage.completion_tokens == 0
        huge = ask(c)
        assert len(huge.choices[0].message.content) == 300_000
        assert s.stats()["faulted"] == 4


def test_random_faults_are_seeded():
    def run() -> list[str | None]:
        with serve(responder=["x"], fault_rates={"http500": 0.3, "empty": 0.2}, seed=9) as s:
            c = client(s)
            for _ in range(20):
                with contextlib.suppress(openai.InternalServerError):
                    ask(c)
            stats = s.stats()
            assert stats["faulted"] + stats["completed"] == stats["chat_requests"] == 20
            return [r.fault for r in s.requests]

    first = run()
    assert first == run()
    assert {"http500", "empty", None} == set(first)


def test_unknown_fault_names_are_refused():
    with pytest.raises(ValueError, match="unknown fault"):
        Server(faults=["boom"])
    with pytest.raises(ValueError, match="reserved"):
        Server(port=2024)
    assert len(FAULTS) == 14


# -- concurrency, keep-alive, HTTP details ----------------------------------------------------


async def raw_burst(port: int, n: int) -> float:
    """n requests on n fresh connections at once, with a bare HTTP client; wall seconds."""
    body = b'{"model": "m", "messages": [{"role": "user", "content": "x"}]}'
    request = b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: %d\r\n\r\n%b" % (
        len(body),
        body,
    )

    async def one():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        writer.close()
        await writer.wait_closed()

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return time.perf_counter() - started


@pytest.mark.slow
async def test_64_concurrent_requests_overlap():
    # A latency well above the time the client takes to send 64 requests (about 0.2 s, more
    # on a loaded machine), so that all of them are in flight before the first reply.
    latency = 1.0
    with serve(responder=["ok"], latency=latency) as server:
        async with openai.AsyncOpenAI(base_url=server.base_url, api_key=KEY, max_retries=0) as c:
            await ask_async(c)  # warm up the client
            server.reset()
            started = time.perf_counter()
            replies = await asyncio.gather(*(ask_async(c) for _ in range(64)))
            elapsed = time.perf_counter() - started
            first = server.stats()
            await asyncio.gather(*(ask_async(c) for _ in range(64)))
            second = server.stats()
        server.reset()
        bare = await raw_burst(server.port, 64)
        third = server.stats()
    assert {r.choices[0].message.content for r in replies} == {"ok"}
    # All 64 in flight at once is the proof of overlap; the wall times only have to be far
    # from serial (the client's CPU cost per request is measured in bench/client.py, not
    # here, where a loaded machine would make it flaky).
    serial = 64 * latency
    assert elapsed < serial / 4, elapsed
    assert bare < serial / 4, bare
    assert first["peak_in_flight"] == third["peak_in_flight"] == 64
    assert first["completed"] == 64 and first["in_flight"] == 0
    assert second["connections"] == first["connections"]  # keep-alive: the pool is reused


def test_pipelined_requests_chunked_body_and_http10():
    with serve(responder=["hi"]) as server:
        body = b'{"model": "m", "messages": [{"role": "user", "content": "x"}]}'
        one = b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: %d\r\n\r\n%b" % (
            len(body),
            body,
        )
        chunked = (
            b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n%x\r\n%b\r\n0\r\n\r\n" % (len(body), body)
        )
        wire = raw_exchange(server, one + chunked)
        assert wire.count(b"HTTP/1.1 200 OK") == 2
        assert wire.count(b'"content": "hi"') == 2
        stream = json.dumps(
            {"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": True}
        ).encode()
        old = b"POST /v1/chat/completions HTTP/1.0\r\nContent-Length: %d\r\n\r\n%b" % (
            len(stream),
            stream,
        )
        wire = raw_exchange(server, old)  # close-delimited stream
        assert b"Transfer-Encoding" not in wire and wire.endswith(b"data: [DONE]\n\n")
        assert raw_exchange(server, b"NONSENSE\r\n\r\n").startswith(b"HTTP/1.1 400")
        assert raw_exchange(server, b"GET /v2/x HTTP/1.1\r\nConnection: close\r\n\r\n").startswith(
            b"HTTP/1.1 404"
        )
        bad = (
            b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"
        )
        bad += b"{x}"
        reply = raw_exchange(server, bad)
        assert reply.startswith(b"HTTP/1.1 400") and b"invalid_request_error" in reply
        assert server.stats()["errors"] == 2


def control(server, path, body=None):
    url = server.base_url.removesuffix("/v1") + path
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_models_and_control_endpoints():
    with serve(responder=["x"]) as server:
        c = client(server)
        assert [m.id for m in c.models.list()][:2] == ["sim-0", "sim-1"]
        ask(c)
        status, stats = control(server, "/_stats")
        assert status == 200 and stats["requests"] == 2
        assert stats["log"][1]["body"]["model"] == "m"
        assert "log" not in control(server, "/_stats?log=0")[1]
        _, config = control(server, "/_config", {"faults": ["http500"], "latency": 0.01})
        assert config["faults"]["script"] == ["http500"] and config["latency"] == 0.01
        with pytest.raises(openai.InternalServerError):
            ask(c)
        assert control(server, "/_reset", {})[1]["requests"] == 0
        assert control(server, "/_config", {"nope": 1})[0] == 400
        assert server.stats()["requests"] == 0  # control requests are not counted


@pytest.mark.slow
def test_subprocess_mode_prints_its_url_and_answers():
    with spawn(latency=0.01, faults=["http429"], retry_after=0.5) as remote:
        assert remote.base_url.startswith("http://127.0.0.1:")
        assert not remote.base_url.endswith(":2024/v1")
        c = client(remote)
        with pytest.raises(openai.RateLimitError):
            ask(c, model="sim-0")
        reply = ask(c, model="sim-0")
        stats = remote.stats(log=True)
    assert reply.choices[0].message.content
    assert stats["faulted"] == 1 and stats["completed"] == 1
    assert stats["log"][0]["headers"]["authorization"] == f"Bearer {KEY}"


def test_loopback_fixture_still_refuses_other_hosts():
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock,
        pytest.raises(RuntimeError, match="network access"),
    ):
        sock.connect(("10.255.255.1", 80))


def test_no_finish_leaves_the_finish_reason_out_of_a_stream_and_a_whole_reply():
    with serve(responder=["one two"], faults=["no_finish", "no_finish"]) as server:
        messages = [{"role": "user", "content": "x"}]
        whole = client(server).chat.completions.create(model="m", messages=messages)
        stream = client(server).chat.completions.create(
            model="m", messages=messages, stream=True, stream_options={"include_usage": True}
        )
        chunks = list(stream)
    assert whole.choices[0].message.content == "one two"
    assert whole.choices[0].finish_reason is None and whole.usage.completion_tokens > 0
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "one two" and chunks[-1].usage.completion_tokens > 0
    assert all(c.choices[0].finish_reason is None for c in chunks if c.choices)
    assert server.stats()["faults"] == {"no_finish": 2}


def test_a_client_that_leaves_during_the_latency_gets_no_reply_and_is_not_billed():
    with serve(responder=["one two"], latency=0.3) as server:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}]})
        head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(head % len(body) + body.encode())
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (
            server.stats()["in_flight"] or not server.stats()["chat_requests"]
        ):
            time.sleep(0.01)
        (left,) = server.requests
        assert (left.status, left.usage) == (None, None) and server.stats()["completed"] == 0
        answered = client(server).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
        assert server.requests[-1].usage == {
            "prompt_tokens": answered.usage.prompt_tokens,
            "completion_tokens": answered.usage.completion_tokens,
            "cached_tokens": 0,
            "reasoning_tokens": 0,
        }
