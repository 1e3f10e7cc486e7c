"""An OpenAI-compatible HTTP server on loopback, with fault injection, for tests and benchmarks.

It speaks the Chat Completions wire format over real HTTP/1.1 sockets, so that
``langchain_openai.ChatOpenAI`` and the ``openai`` client are tested the way users run them:
connection pooling, keep-alive, SSE streaming, status codes, headers and broken connections
included. It is built from the standard library only and has three layers:

* the HTTP layer (:func:`read_request`, :func:`send_response`, :class:`ResponseStream`): a
  small HTTP/1.1 parser and writer on ``asyncio`` streams;
* the responder layer (:class:`Responder` and its subclasses): what the assistant says;
* the fault layer (:data:`FAULTS`, :class:`FaultPlan`, :func:`fault_effect`): which request
  goes wrong, and how.

:class:`Server` ties them together and keeps the accounting. Start it in-process on a
background thread::

    from langchain_openai import ChatOpenAI
    from tests.openai_server import serve

    with serve(latency=0.1, seed=7) as server:
        model = ChatOpenAI(base_url=server.base_url, api_key="sk-test", model="sim-2")
        print(model.invoke("Question: What is 2+3*4?").content)
        server.faults.push("http429", "hang")  # the next two chat requests fail
        print(server.stats()["completed"])

or as a separate process, which prints its base URL on the first line of stdout::

    python -m tests.openai_server --port 0 --latency 0.1 --fault-rate http500=0.05

(:func:`spawn` does that from Python and hands back a :class:`RemoteServer`).

Not implemented: TLS, HTTP/2, ``HEAD``/``OPTIONS``, an idle timeout for keep-alive
connections, concurrent work on pipelined requests (they are read and answered one at a time),
``n > 1``, ``stop``, tools and structured output (replies are plain text), other APIs
(``/v1/responses``, embeddings).

Endpoints: ``POST /v1/chat/completions``, ``GET /v1/models``, ``GET /v1/models/<id>``, and the
control endpoints ``GET /_stats`` (counters and the request log; ``?log=0`` leaves the log
out), ``POST /_reset`` and ``GET|POST /_config`` (latency and faults at run time). Control
requests are neither counted nor logged.
"""

from __future__ import annotations

from tests.openai_server.cli import main
from tests.openai_server.faults import (
    FAULTS,
    NO_FAULT,
    FaultEffect,
    FaultPlan,
    bearer_token,
    fault_effect,
    huge_text,
    openai_error,
)
from tests.openai_server.http_io import (
    MAX_BODY,
    MAX_HEADERS,
    MAX_LINE,
    HttpRequest,
    ProtocolError,
    ResponseStream,
    drop_connection,
    read_request,
    send_response,
)
from tests.openai_server.replies import USAGE_DETAILS, usage_object
from tests.openai_server.responders import (
    ChatRequest,
    Completion,
    EchoResponder,
    Responder,
    ResponderSpec,
    ScriptedResponder,
    SimulatedResponder,
    estimate_tokens,
    logprobs_object,
    make_responder,
    message_text,
    split_tokens,
    to_langchain_messages,
)
from tests.openai_server.running import RemoteServer, command_line, serve, spawn
from tests.openai_server.server import CONTROL_PATHS, FORBIDDEN_PORTS, HOST, RecordedRequest, Server

__all__ = [
    "CONTROL_PATHS",
    "FAULTS",
    "FORBIDDEN_PORTS",
    "HOST",
    "MAX_BODY",
    "MAX_HEADERS",
    "MAX_LINE",
    "NO_FAULT",
    "USAGE_DETAILS",
    "ChatRequest",
    "Completion",
    "EchoResponder",
    "FaultEffect",
    "FaultPlan",
    "HttpRequest",
    "ProtocolError",
    "RecordedRequest",
    "RemoteServer",
    "Responder",
    "ResponderSpec",
    "ResponseStream",
    "ScriptedResponder",
    "Server",
    "SimulatedResponder",
    "bearer_token",
    "command_line",
    "drop_connection",
    "estimate_tokens",
    "fault_effect",
    "huge_text",
    "logprobs_object",
    "main",
    "make_responder",
    "message_text",
    "openai_error",
    "read_request",
    "send_response",
    "serve",
    "spawn",
    "split_tokens",
    "to_langchain_messages",
    "usage_object",
]
