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

import argparse
import asyncio
import contextlib
import email.utils
import functools
import json
import logging
import math
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
import zlib
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

HOST = "127.0.0.1"
"""The only address the server binds."""

FORBIDDEN_PORTS = frozenset({2024})
"""Ports the server never takes (2024 belongs to ``langgraph dev``)."""

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------------------
# HTTP layer
# ---------------------------------------------------------------------------------------------

MAX_LINE = 64 * 1024
"""Longest request line or header line accepted, in bytes."""
MAX_HEADERS = 128
"""Most header fields accepted in one request."""
MAX_BODY = 64 * 1024 * 1024
"""Largest request body accepted, in bytes."""


class ProtocolError(Exception):
    """A request the HTTP layer cannot read: answered with ``status``, then the connection closes.

    Args:
        status: HTTP status code of the answer.
        message: What was wrong, sent as the error message.
    """

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class HttpRequest:
    """One HTTP request as read from the wire.

    Attributes:
        method: Request method, e.g. ``"POST"``.
        target: Request target as sent, path and query.
        version: ``"HTTP/1.1"`` or ``"HTTP/1.0"``.
        headers: Header fields, names lower-cased; repeated fields joined with ``", "``.
        body: The body, de-chunked.
    """

    method: str
    target: str
    version: str
    headers: dict[str, str]
    body: bytes

    @property
    def path(self) -> str:
        """The target's path, without the query."""
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, str]:
        """The target's query parameters."""
        return dict(parse_qsl(urlsplit(self.target).query))

    @property
    def keep_alive(self) -> bool:
        """Whether the client lets the connection stay open after this exchange."""
        tokens = {t.strip().lower() for t in self.headers.get("connection", "").split(",")}
        if self.version == "HTTP/1.0":
            return "keep-alive" in tokens
        return "close" not in tokens


async def _read_line(reader: asyncio.StreamReader) -> bytes | None:
    """One CRLF- (or LF-) terminated line without its terminator; ``None`` at a clean EOF."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise ProtocolError(400, "the request ended in the middle of a line") from None
        return None
    except asyncio.LimitOverrunError:
        raise ProtocolError(431, f"a request line or header is over {MAX_LINE} bytes") from None
    return line[:-2] if line.endswith(b"\r\n") else line[:-1]


async def _read_exactly(reader: asyncio.StreamReader, n: int) -> bytes:
    try:
        return await reader.readexactly(n)
    except asyncio.IncompleteReadError:
        raise ProtocolError(400, "the request body is shorter than announced") from None


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    """A ``Transfer-Encoding: chunked`` body; chunk extensions and trailers are skipped."""
    parts: list[bytes] = []
    size_total = 0
    while True:
        line = await _read_line(reader)
        if line is None:
            raise ProtocolError(400, "the chunked body ended early")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise ProtocolError(400, "bad chunk size") from None
        if size == 0:
            break
        size_total += size
        if size_total > MAX_BODY:
            raise ProtocolError(413, f"the request body is over {MAX_BODY} bytes")
        parts.append(await _read_exactly(reader, size))
        if await _read_line(reader) != b"":
            raise ProtocolError(400, "a chunk is not followed by CRLF")
    while True:  # trailer section
        line = await _read_line(reader)
        if not line:
            return b"".join(parts)


async def read_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> HttpRequest | None:
    """Read the next request of a connection.

    Handles ``Content-Length`` and chunked bodies and answers ``Expect: 100-continue``.

    Args:
        reader: The connection's reader.
        writer: The connection's writer (for the interim ``100 Continue``).

    Returns:
        The request, or ``None`` when the client closed the connection between requests.

    Raises:
        ProtocolError: The bytes are not an HTTP/1.x request this server accepts.
    """
    line = await _read_line(reader)
    while line == b"":  # RFC 9112 2.2: ignore empty lines before a request line
        line = await _read_line(reader)
    if line is None:
        return None
    parts = line.decode("latin-1").split(" ")
    if len(parts) != 3 or not parts[0].isalpha() or not parts[2].startswith("HTTP/"):
        raise ProtocolError(400, "malformed request line")
    method, target, version = parts
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        raise ProtocolError(505, f"{version} is not supported")
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS + 1):
        raw = await _read_line(reader)
        if raw is None:
            raise ProtocolError(400, "the request ended inside its header")
        if raw == b"":
            break
        name, colon, value = raw.decode("latin-1").partition(":")
        if not colon or not name or name != name.strip() or " " in name:
            raise ProtocolError(400, f"malformed header line {raw[:60]!r}")
        key = name.lower()
        value = value.strip(" \t")
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    else:
        raise ProtocolError(431, f"more than {MAX_HEADERS} header fields")

    if "transfer-encoding" in headers:
        if "content-length" in headers:
            raise ProtocolError(400, "both Transfer-Encoding and Content-Length")
        if headers["transfer-encoding"].split(",")[-1].strip().lower() != "chunked":
            raise ProtocolError(501, "only the chunked transfer coding is supported")
        length = None
    else:
        values = {v.strip() for v in headers.get("content-length", "0").split(",")}
        if len(values) != 1 or not (text := values.pop()).isdigit():
            raise ProtocolError(400, "bad Content-Length")
        length = int(text)
        if length > MAX_BODY:
            raise ProtocolError(413, f"the request body is over {MAX_BODY} bytes")
    if (
        headers.get("expect", "").lower() == "100-continue"
        and version == "HTTP/1.1"
        and length != 0
    ):
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    body = await _read_chunked(reader) if length is None else await _read_exactly(reader, length)
    return HttpRequest(method, target, version, headers, body)


_date_cache: tuple[int, str] = (0, "")


def _http_date() -> str:
    global _date_cache
    now = int(time.time())
    if _date_cache[0] != now:
        _date_cache = (now, email.utils.formatdate(now, usegmt=True))
    return _date_cache[1]


def _head(status: int, headers: Sequence[tuple[str, str]]) -> bytes:
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", f"Date: {_http_date()}"]
    lines += ["Server: debategraph-openai-server", *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def send_response(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    *,
    content_type: str = "application/json",
    headers: Sequence[tuple[str, str]] = (),
    keep_alive: bool = True,
) -> None:
    """Write a complete response with a ``Content-Length``.

    Args:
        writer: The connection's writer.
        status: HTTP status code.
        body: The body.
        content_type: Its media type.
        headers: Further header fields.
        keep_alive: Announce that the connection stays open (else ``Connection: close``).
    """
    fields = [
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
        ("Connection", "keep-alive" if keep_alive else "close"),
        *headers,
    ]
    writer.write(_head(status, fields) + body)
    await writer.drain()


class ResponseStream:
    """A response whose body is written piece by piece (chunked, or close-delimited for HTTP/1.0).

    Args:
        writer: The connection's writer.
        chunked: Use ``Transfer-Encoding: chunked``; otherwise the end of the body is the end
            of the connection.
    """

    def __init__(self, writer: asyncio.StreamWriter, *, chunked: bool = True):
        self.writer = writer
        self.chunked = chunked

    async def start(
        self, status: int, headers: Sequence[tuple[str, str]], *, keep_alive: bool = True
    ) -> None:
        """Write the status line and header."""
        framing = ("Transfer-Encoding", "chunked") if self.chunked else ("Connection", "close")
        fields = [*headers, framing]
        if self.chunked:
            fields.append(("Connection", "keep-alive" if keep_alive else "close"))
        self.writer.write(_head(status, fields))
        await self.writer.drain()

    async def send(self, data: bytes) -> None:
        """Write one piece of the body (an empty piece is skipped: it would end the body)."""
        if data:
            self.writer.write(b"%x\r\n%b\r\n" % (len(data), data) if self.chunked else data)
            await self.writer.drain()

    async def finish(self) -> None:
        """End the body."""
        if self.chunked:
            self.writer.write(b"0\r\n\r\n")
            await self.writer.drain()


def drop_connection(writer: asyncio.StreamWriter) -> None:
    """Abort the connection with a TCP reset (``SO_LINGER`` 0), as a crashing peer would."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


# ---------------------------------------------------------------------------------------------
# Responder layer
# ---------------------------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"\s*(?:[A-Za-z]{1,8}|\d{1,3}|[^\sA-Za-z\d])")
"""Tokens that tile a text: the pieces of ``estimate_tokens``, each with its leading space."""


def split_tokens(text: str) -> list[str]:
    """Cut ``text`` into tokens whose concatenation is ``text``.

    There are as many tokens as :func:`debategraph.policies.tokens.estimate_tokens` counts
    (trailing whitespace joins the last token; a text of only whitespace is one token).
    """
    tokens = _TOKEN_RE.findall(text)
    if not tokens:
        return [text] if text else []
    tail = len(text) - sum(map(len, tokens))
    if tail:
        tokens[-1] += text[-tail:]
    return tokens


@functools.cache
def _estimator() -> Callable[[str], int]:
    from debategraph.policies.tokens import estimate_tokens as estimate

    return estimate


def estimate_tokens(text: str) -> int:
    """The project's offline token estimate (imported on first use: it loads the package)."""
    return _estimator()(text)


def message_text(content: Any) -> str:
    """The text of an OpenAI message ``content``: a string, a list of parts, or ``None``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content
        )
    return str(content)


def to_langchain_messages(messages: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Turn OpenAI chat messages into LangChain messages (text content only).

    ``system``/``developer`` become ``SystemMessage``, ``assistant`` ``AIMessage``, ``tool``
    ``ToolMessage``, anything else ``HumanMessage``.
    """
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = []
    for message in messages:
        role, text = message.get("role"), message_text(message.get("content"))
        if role in ("system", "developer"):
            out.append(SystemMessage(content=text))
        elif role == "assistant":
            out.append(AIMessage(content=text))
        elif role == "tool":
            out.append(ToolMessage(content=text, tool_call_id=str(message.get("tool_call_id"))))
        else:
            out.append(HumanMessage(content=text))
    return out


@dataclass(frozen=True)
class ChatRequest:
    """A chat-completions request as responders and fault pickers see it.

    Attributes:
        body: The JSON body.
        headers: The HTTP header fields, names lower-cased.
        index: Its position among the chat requests since the server started or was reset.
        method: HTTP method.
        path: Request path.
    """

    body: dict[str, Any]
    headers: dict[str, str]
    index: int = 0
    method: str = "POST"
    path: str = "/v1/chat/completions"

    @property
    def model(self) -> str:
        """The requested model name."""
        return str(self.body.get("model", ""))

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's messages, OpenAI style."""
        return list(self.body.get("messages") or [])

    @property
    def stream(self) -> bool:
        """Whether an SSE stream was asked for."""
        return bool(self.body.get("stream"))


@dataclass
class Completion:
    """What a responder says; the server fills in whatever is left ``None``.

    Attributes:
        content: The assistant's text.
        prompt_tokens: Input tokens; default: ``estimate_tokens`` over the messages' text.
        completion_tokens: Output tokens; default: ``estimate_tokens(content)``.
        token_logprobs: One logprob per token of :func:`split_tokens` (``content``); default:
            drawn deterministically from the request.
        finish_reason: ``"stop"``, or e.g. ``"length"``.
        cached_tokens: Of the prompt tokens, those served from the prompt cache; default:
            the server's simulated prefix cache (``prompt_cache_block``), else 0.
        reasoning_tokens: Hidden reasoning tokens, part of ``completion_tokens`` (added to
            the default count); default: the server's ``reasoning_tokens``.
    """

    content: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    token_logprobs: list[float] | None = None
    finish_reason: str = "stop"
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None


class Responder:
    """Decides the assistant's reply; subclass it and override :meth:`respond`."""

    async def respond(self, request: ChatRequest) -> Completion | str:
        """The reply to ``request`` (a bare string is the content)."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget per-run state; :meth:`Server.reset` calls it."""

    def warm_up(self) -> None:
        """Load what the first request would otherwise wait for; called when the server starts."""


class SimulatedResponder(Responder):
    """Answers like a debater through the project's offline ``SimulatedDebater``.

    Model ``sim-<k>`` is ``SimulatedDebater.for_agent(k, agent=f"a{k + 1}", seed=seed)`` — the
    model the engine gives agent ``k`` for the spec ``"simulated"`` — and any other model name
    is ``sim-0``. Its usage and token logprobs are passed on.

    Args:
        seed: The simulated models' seed.
    """

    _MODEL_RE = re.compile(r"sim-(\d+)")

    def __init__(self, seed: int = 0):
        self.seed = seed
        self._models: dict[int, Any] = {}

    def warm_up(self) -> None:
        """Import the simulated model and LangChain's message classes."""
        self.debater(0)
        to_langchain_messages([])

    def debater(self, k: int) -> Any:
        """The simulated debater playing agent ``k``."""
        if k not in self._models:
            from debategraph.models.simulated import SimulatedDebater

            self._models[k] = SimulatedDebater.for_agent(k, agent=f"a{k + 1}", seed=self.seed)
        return self._models[k]

    def profile_of(self, model: str) -> int:
        """The agent index a model name stands for: ``k`` for ``sim-<k>``, else 0."""
        match = self._MODEL_RE.fullmatch(model)
        return int(match.group(1)) if match else 0

    async def respond(self, request: ChatRequest) -> Completion:
        """Ask the simulated debater."""
        debater = self.debater(self.profile_of(request.model))
        reply = await debater.ainvoke(to_langchain_messages(request.messages))
        text = message_text(reply.content)
        usage = reply.usage_metadata or {}
        logprobs = (reply.response_metadata.get("logprobs") or {}).get("content")
        values = [float(entry["logprob"]) for entry in logprobs] if logprobs else None
        return Completion(
            content=text,
            prompt_tokens=usage.get("input_tokens"),
            completion_tokens=usage.get("output_tokens"),
            token_logprobs=values,
        )


class EchoResponder(Responder):
    """Replies with a JSON dump of the request it received: method, path, headers and body.

    Secrets the client sent (the ``Authorization`` header) come back in the reply, to test that
    nothing downstream writes replies where secrets must not go.
    """

    async def respond(self, request: ChatRequest) -> str:
        """The request, as sorted JSON."""
        dump = {
            "method": request.method,
            "path": request.path,
            "headers": request.headers,
            "body": request.body,
        }
        return json.dumps(dump, sort_keys=True)


class ScriptedResponder(Responder):
    """Replies from a script: a list of replies, or a function of the request's JSON body.

    With a list, the k-th answered request gets ``replies[k]`` and the last reply repeats.
    Faulted requests do not use up a reply. A function gets the JSON body and returns the
    content (or a :class:`Completion`); it may be ``async``.

    Args:
        replies: The replies, or the function.
    """

    def __init__(self, replies: Sequence[str] | Callable[[dict[str, Any]], Any]):
        if not callable(replies) and not replies:
            raise ValueError("a scripted responder needs at least one reply")
        self.replies = replies
        self.calls = 0

    def reset(self) -> None:
        """Start the script again."""
        self.calls = 0

    async def respond(self, request: ChatRequest) -> Completion | str:
        """The next scripted reply."""
        k, self.calls = self.calls, self.calls + 1
        if callable(self.replies):
            result = self.replies(request.body)
            return await result if isinstance(result, Awaitable) else result
        return self.replies[min(k, len(self.replies) - 1)]


ResponderSpec = str | Sequence[str] | Callable[[dict[str, Any]], Any] | Responder
"""``"simulated"``, ``"echo"``, a list of replies, a function of the body, or a Responder."""


def make_responder(spec: ResponderSpec, *, seed: int = 0) -> Responder:
    """Build a responder from a spec.

    Args:
        spec: ``"simulated"`` (the default debater), ``"echo"``, a list of replies or a
            function ``(request_json) -> str`` (scripted), or a :class:`Responder`.
        seed: Seed of the simulated responder.

    Raises:
        ValueError: An unknown name.
    """
    if isinstance(spec, Responder):
        return spec
    if spec == "simulated":
        return SimulatedResponder(seed)
    if spec == "echo":
        return EchoResponder()
    if isinstance(spec, str):
        raise ValueError(f"unknown responder {spec!r}: use 'simulated', 'echo' or a script")
    return ScriptedResponder(spec)


_ALTERNATIVES = (" the", " a", ",", ".", " and", " is", " of", " to", "\n", " it", " 1", " 0")


def logprobs_object(
    tokens: Sequence[str], values: Sequence[float], top: int, rng: random.Random
) -> dict[str, Any]:
    """OpenAI's ``choices[0].logprobs``: one entry per token, ``top`` alternatives each.

    The sampled token is among its alternatives; the others share what probability is left.
    """
    content = []
    for token, value in zip(tokens, values, strict=True):
        entry: dict[str, Any] = {
            "token": token,
            "logprob": value,
            "bytes": list(token.encode()),
            "top_logprobs": [],
        }
        if top:
            rest = max(1.0 - math.exp(value), 1e-9)
            others = [a for a in _ALTERNATIVES if a != token][: top - 1]
            shares = [rng.random() + 0.01 for _ in others]
            scale = 0.9 * rest / (sum(shares) or 1.0)
            ranked = [(token, value)] + [
                (a, math.log(s * scale)) for a, s in zip(others, shares, strict=True)
            ]
            ranked.sort(key=lambda pair: -pair[1])
            entry["top_logprobs"] = [
                {"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in ranked
            ]
        content.append(entry)
    return {"content": content, "refusal": None}


# ---------------------------------------------------------------------------------------------
# Fault layer
# ---------------------------------------------------------------------------------------------

FAULTS = (
    "http500",
    "http429",
    "http400",
    "http401",
    "http404",
    "hang",
    "reset",
    "malformed",
    "no_choices",
    "empty",
    "huge",
    "non_utf8",
    "trickle",
    "no_finish",
)
"""Fault kinds, applied to chat-completions requests only."""

NO_FAULT = ("ok", "none")
"""Names that stand for "no fault" in a fault script (``None`` does too)."""


def _check_kind(kind: str | None) -> str | None:
    if kind is None or kind in NO_FAULT:
        return None
    if kind not in FAULTS:
        raise ValueError(f"unknown fault {kind!r}; faults: {', '.join(FAULTS)}")
    return kind


class FaultPlan:
    """Which fault, if any, the next chat request gets. Safe to use from any thread.

    A scripted queue goes first (one entry per request, ``None``/``"ok"`` for no fault); when
    it is empty, an optional ``picker(request) -> kind | None``; then the random rates, drawn
    from a generator seeded with ``seed`` (one draw per request).

    Args:
        script: Faults for the next requests, in order.
        rates: Probability of each fault kind per request (their sum at most 1).
        seed: Seed of the random draws.
        picker: A function choosing a fault from the :class:`ChatRequest`.
    """

    def __init__(
        self,
        script: Sequence[str | None] = (),
        rates: Mapping[str, float] | None = None,
        seed: int = 0,
        picker: Callable[[ChatRequest], str | None] | None = None,
    ):
        self._lock = threading.Lock()
        self._queue: deque[str | None] = deque()
        self._rates: dict[str, float] = {}
        self.seed = seed
        self.picker = picker
        self._rng = random.Random(seed)
        self.push(*script)
        self.rates = dict(rates or {})

    @property
    def pending(self) -> list[str | None]:
        """The scripted faults not yet applied."""
        with self._lock:
            return list(self._queue)

    @property
    def rates(self) -> dict[str, float]:
        """Probability of each fault kind per request."""
        with self._lock:
            return dict(self._rates)

    @rates.setter
    def rates(self, rates: Mapping[str, float]) -> None:
        checked = {_check_kind(k): float(p) for k, p in rates.items()}
        if None in checked or any(not 0 <= p <= 1 for p in checked.values()):
            raise ValueError(f"fault rates must name faults and lie in [0, 1]: {dict(rates)}")
        if sum(checked.values()) > 1 + 1e-9:
            raise ValueError(f"fault rates sum to more than 1: {dict(rates)}")
        with self._lock:
            self._rates = {k: p for k, p in checked.items() if k is not None and p > 0}

    def push(self, *kinds: str | None) -> None:
        """Queue faults for the next requests (``None`` or ``"ok"``: a request without fault)."""
        checked = [_check_kind(k) for k in kinds]
        with self._lock:
            self._queue.extend(checked)

    def clear(self) -> None:
        """Drop the queue, the rates and the picker; re-seed the random draws."""
        with self._lock:
            self._queue.clear()
            self._rates = {}
            self._rng = random.Random(self.seed)
        self.picker = None

    def next_for(self, request: ChatRequest) -> str | None:
        """The fault of this request (and consume it)."""
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.picker is not None:
            picked = _check_kind(self.picker(request))
            if picked is not None:
                return picked
        with self._lock:
            if not self._rates:
                return None
            draw, edge = self._rng.random(), 0.0
            for kind, p in self._rates.items():
                edge += p
                if draw < edge:
                    return kind
        return None

    def snapshot(self) -> dict[str, Any]:
        """The queue and rates, as JSON."""
        return {"script": self.pending, "rates": self.rates, "seed": self.seed}


@dataclass(frozen=True)
class FaultEffect:
    """What a fault does to a response.

    Attributes:
        kind: The fault.
        status: HTTP status (200 for the faults that hide inside a success).
        error: OpenAI error object, for the HTTP error faults.
        headers: Extra header fields (``Retry-After``).
        content: Content that replaces the responder's (``empty``, ``huge``).
        sabotage: ``"hang"``, ``"reset"``, ``"malformed"``, ``"no_choices"``, ``"non_utf8"``
            (the reply's bytes are not UTF-8), ``"trickle"`` (the body arrives one byte per
            ``trickle_delay`` seconds) or ``"no_finish"`` (the reply has no finish reason: a
            stream ends, usage and ``[DONE]`` included, without its finish chunk; a whole
            reply says ``"finish_reason": null``): the wire itself is broken.
    """

    kind: str
    status: int = 200
    error: dict[str, Any] | None = None
    headers: tuple[tuple[str, str], ...] = ()
    content: str | None = None
    sabotage: str | None = None


def openai_error(
    message: str, type_: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """An error body shaped like OpenAI's."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def bearer_token(headers: Mapping[str, str]) -> str:
    """The API key a request carries (``Authorization: Bearer ...`` or ``api-key``)."""
    auth = headers.get("authorization", "")
    return auth[7:] if auth[:7].lower() == "bearer " else headers.get("api-key", auth)


_HUGE_SENTENCE = "Each intermediate value follows from the previous line, and so on. "


def huge_text(size: int) -> str:
    """About ``size`` bytes of plain prose."""
    return (_HUGE_SENTENCE * (size // len(_HUGE_SENTENCE) + 1))[:size]


def fault_effect(
    kind: str,
    request: ChatRequest,
    *,
    retry_after: float = 1.0,
    echo_secrets: bool = False,
    huge_bytes: int = 1_000_000,
) -> FaultEffect:
    """Describe what fault ``kind`` does to ``request``.

    Args:
        kind: One of :data:`FAULTS`.
        request: The faulted request.
        retry_after: Seconds announced by ``http429`` in ``Retry-After``.
        echo_secrets: Put the request's API key in error messages, like a careless provider.
        huge_bytes: Size of the ``huge`` content.
    """
    key = bearer_token(request.headers)
    leak = f" (request sent Authorization: Bearer {key})" if echo_secrets and key else ""
    model = request.model
    if kind == "http500":
        error = openai_error(
            "The server had an error while processing your request. Sorry about that!" + leak,
            "server_error",
        )
        return FaultEffect(kind, 500, error)
    if kind == "http429":
        error = openai_error(
            f"Rate limit reached for {model} on requests per min (RPM): Limit 3, Used 3, "
            f"Requested 1. Please try again in {retry_after:g}s.{leak}",
            "requests",
            "rate_limit_exceeded",
        )
        return FaultEffect(kind, 429, error, (("Retry-After", f"{retry_after:g}"),))
    if kind == "http400":
        error = openai_error(
            f"Invalid value for 'messages': the request was rejected.{leak}",
            "invalid_request_error",
            param="messages",
        )
        return FaultEffect(kind, 400, error)
    if kind == "http401":
        shown = key if echo_secrets else "(hidden)"
        error = openai_error(
            f"Incorrect API key provided: {shown}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
        )
        return FaultEffect(kind, 401, error)
    if kind == "http404":
        error = openai_error(
            f"The model `{model}` does not exist or you do not have access to it.{leak}",
            "invalid_request_error",
            "model_not_found",
        )
        return FaultEffect(kind, 404, error)
    if kind == "empty":
        return FaultEffect(kind, content="")
    if kind == "huge":
        return FaultEffect(kind, content=huge_text(huge_bytes))
    if kind in ("hang", "reset", "malformed", "no_choices", "non_utf8", "trickle", "no_finish"):
        return FaultEffect(kind, sabotage=kind)
    raise ValueError(f"unknown fault {kind!r}")


# ---------------------------------------------------------------------------------------------
# The server: routing, the OpenAI wire format, accounting
# ---------------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """A request the server received, for tests to inspect.

    Attributes:
        method: HTTP method.
        path: Request path.
        headers: Header fields, names lower-cased (secrets included, as sent).
        body: The JSON body, the raw text when it is not JSON, ``None`` when empty.
        fault: The fault applied, if any.
        status: Status code answered (``None`` while in flight or when none was sent).
        usage: ``prompt_tokens`` and ``completion_tokens`` of the reply sent, when one was
            (a client that left during the latency gets none), and its ``cached_tokens`` and
            ``reasoning_tokens`` when its usage states them.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    fault: str | None = None
    status: int | None = None
    usage: dict[str, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """As JSON."""
        return asdict(self)


@dataclass
class _Counters:
    requests: int = 0
    chat_requests: int = 0
    streamed: int = 0
    completed: int = 0
    faulted: int = 0
    errors: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0
    connections: int = 0
    open_connections: int = 0
    peak_connections: int = 0
    by_model: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)


class _Inconsistent(Exception):
    """A request body that is JSON but not a chat request; answered with a 400."""

    def __init__(self, message: str, param: str | None):
        super().__init__(message)
        self.param = param


CONTROL_PATHS = ("/_stats", "/_reset", "/_config")

USAGE_DETAILS = ("openai", "llama.cpp", "null", "none")
"""The shapes of ``usage``'s token details the server can send (``usage_details``)."""


class Server:
    """An OpenAI-compatible chat-completions server on 127.0.0.1.

    Run it with :func:`serve` (background thread), ``async with Server(...)`` (the current
    event loop), or ``python -m tests.openai_server`` (a process; see :func:`spawn`).

    Args:
        port: Port to bind; 0 picks a free one (never 2024).
        responder: ``"simulated"`` (default), ``"echo"``, a list of replies, a function
            ``(request_json) -> str``, or a :class:`Responder`.
        seed: Seed of the simulated debaters and of the drawn logprobs.
        latency: Seconds every chat request waits (without blocking others) before its answer.
        chunk_delay: Seconds between streamed chunks.
        trickle_delay: Seconds between the bytes of a ``trickle`` fault's body.
        faults: Faults for the next chat requests, in order (see :class:`FaultPlan`).
        fault_rates: Probability of each fault kind per chat request.
        fault_seed: Seed of the random faults (default: ``seed``).
        retry_after: Seconds in the ``Retry-After`` header of ``http429``.
        echo_secrets: Error messages quote the request's API key.
        huge_bytes: Size of the ``huge`` fault's content.
        api_key: When set, chat requests with another key get a 401 (not counted as a fault).
        log_limit: Most recorded requests kept (oldest dropped); ``None`` keeps all.
        usage_details: The shape of the token details in ``usage`` (see
            :data:`USAGE_DETAILS`): ``"openai"`` (both details objects, as OpenAI sends
            them), ``"llama.cpp"`` (``prompt_tokens_details.cached_tokens`` only, as
            llama.cpp and vLLM with ``--enable-prompt-tokens-details`` send it), ``"null"``
            (both ``null``: vLLM's default) or ``"none"`` (no details: older llama.cpp).
        prompt_cache_block: Simulate a provider's prompt cache: a prompt whose first tokens
            (of :func:`split_tokens`, over the messages) repeat an earlier request's to the
            same model reports the common prefix, rounded down to whole blocks of this many
            tokens, as ``cached_tokens`` (at most its prompt tokens); 0 reports none.
        reasoning_tokens: Hidden reasoning tokens every reply spends, counted in
            ``completion_tokens`` and reported as ``reasoning_tokens``.

    Attributes:
        faults: The :class:`FaultPlan`; change it at any time.
        responder: The :class:`Responder`.
        latency: As above; may be changed at any time.
    """

    def __init__(
        self,
        *,
        port: int = 0,
        responder: ResponderSpec = "simulated",
        seed: int = 0,
        latency: float = 0.0,
        chunk_delay: float = 0.0,
        trickle_delay: float = 1.0,
        faults: Sequence[str | None] = (),
        fault_rates: Mapping[str, float] | None = None,
        fault_seed: int | None = None,
        retry_after: float = 1.0,
        echo_secrets: bool = False,
        huge_bytes: int = 1_000_000,
        api_key: str | None = None,
        log_limit: int | None = 10_000,
        usage_details: str = "openai",
        prompt_cache_block: int = 0,
        reasoning_tokens: int = 0,
    ):
        if port in FORBIDDEN_PORTS:
            raise ValueError(f"port {port} is reserved; use 0 for a free port")
        if usage_details not in USAGE_DETAILS:
            raise ValueError(f"usage_details must be one of {USAGE_DETAILS}, got {usage_details!r}")
        self.usage_details = usage_details
        self.prompt_cache_block = int(prompt_cache_block)
        self.reasoning_tokens = int(reasoning_tokens)
        self._prompt_prefixes: dict[str, deque[tuple[str, ...]]] = {}
        self.port = port
        self.seed = seed
        self.latency = float(latency)
        self.chunk_delay = float(chunk_delay)
        self.trickle_delay = float(trickle_delay)
        self.retry_after = float(retry_after)
        self.echo_secrets = echo_secrets
        self.huge_bytes = huge_bytes
        self.api_key = api_key
        self.responder = make_responder(responder, seed=seed)
        self._initial_faults = (list(faults), dict(fault_rates or {}))
        self.faults = FaultPlan(faults, fault_rates, seed if fault_seed is None else fault_seed)
        self._lock = threading.Lock()
        self._counters = _Counters()
        self._log: deque[RecordedRequest] = deque(maxlen=log_limit)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, for ``base_url=`` of the clients."""
        return f"http://{HOST}:{self.port}/v1"

    async def start(self) -> None:
        """Bind and start serving on the running event loop."""
        self.responder.warm_up()
        estimate_tokens("")  # load the estimator now rather than in the first request
        while True:
            self._server = await asyncio.start_server(
                self._connection, HOST, self.port, limit=MAX_LINE, backlog=1024
            )
            port = self._server.sockets[0].getsockname()[1]
            if port not in FORBIDDEN_PORTS:
                self.port = port
                return
            self._server.close()

    async def aclose(self) -> None:
        """Stop listening and drop every connection (hanging ones included)."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
        for _ in range(3):  # let the closed transports release their sockets
            await asyncio.sleep(0)

    async def __aenter__(self) -> Server:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- accounting ----------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """A snapshot of the counters.

        Returns:
            ``requests`` (all but control requests), ``chat_requests``, ``streamed``,
            ``by_model``, ``completed`` (chat requests answered normally), ``faulted`` and
            ``faults`` (per kind), ``errors`` (other error answers: bad JSON, unknown path,
            wrong key, responder exceptions), ``in_flight`` and ``peak_in_flight`` (requests
            read but not fully answered), ``connections``, ``open_connections`` and
            ``peak_connections``.
        """
        with self._lock:
            c = self._counters
            snapshot: dict[str, Any] = {f.name: getattr(c, f.name) for f in fields(c)}
            snapshot["by_model"] = dict(c.by_model)
            snapshot["faults"] = dict(c.faults)
        return snapshot

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received, oldest first (control requests excluded)."""
        with self._lock:
            return list(self._log)

    def reset(self) -> None:
        """Zero the counters (open connections and in-flight requests stay), empty the log,
        restore the faults given at construction (random draws re-seeded), restart the
        responder's script."""
        with self._lock:
            old = self._counters
            self._counters = _Counters(
                in_flight=old.in_flight,
                peak_in_flight=old.in_flight,
                open_connections=old.open_connections,
                peak_connections=old.open_connections,
            )
            self._log.clear()
        self._prompt_prefixes.clear()
        self.faults.clear()
        self.faults.push(*self._initial_faults[0])
        self.faults.rates = self._initial_faults[1]
        self.responder.reset()

    def config(self) -> dict[str, Any]:
        """The settings that can change at run time (see :meth:`configure`)."""
        return {
            "latency": self.latency,
            "chunk_delay": self.chunk_delay,
            "trickle_delay": self.trickle_delay,
            "retry_after": self.retry_after,
            "echo_secrets": self.echo_secrets,
            "faults": self.faults.snapshot(),
        }

    def configure(self, settings: Mapping[str, Any]) -> None:
        """Change settings at run time.

        Args:
            settings: Any of ``latency``, ``chunk_delay``, ``trickle_delay``, ``retry_after``,
                ``echo_secrets``,
                ``faults`` (a list queued after the pending ones), ``fault_rates`` (replace
                the rates), ``clear_faults`` (true: drop queue and rates first).

        Raises:
            ValueError: An unknown setting or fault.
        """
        unknown = set(settings) - {
            "latency",
            "chunk_delay",
            "trickle_delay",
            "retry_after",
            "echo_secrets",
            "faults",
            "fault_rates",
            "clear_faults",
        }
        if unknown:
            raise ValueError(f"unknown settings: {sorted(unknown)}")
        if settings.get("clear_faults"):
            self.faults.clear()
        for name in ("latency", "chunk_delay", "trickle_delay", "retry_after"):
            if name in settings:
                setattr(self, name, float(settings[name]))
        if "echo_secrets" in settings:
            self.echo_secrets = bool(settings["echo_secrets"])
        if "faults" in settings:
            self.faults.push(*settings["faults"])
        if "fault_rates" in settings:
            self.faults.rates = settings["fault_rates"]

    def _count(self, **increments: int) -> None:
        with self._lock:
            c = self._counters
            for name, n in increments.items():
                setattr(c, name, getattr(c, name) + n)
            c.peak_in_flight = max(c.peak_in_flight, c.in_flight)
            c.peak_connections = max(c.peak_connections, c.open_connections)

    # -- connections and routing ---------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        self._count(connections=1, open_connections=1)
        try:
            while True:
                try:
                    request = await read_request(reader, writer)
                except ProtocolError as exc:
                    body = json.dumps(openai_error(exc.message, "invalid_request_error"))
                    await send_response(writer, exc.status, body.encode(), keep_alive=False)
                    break
                if request is None or not await self._exchange(request, reader, writer):
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            # Only aclose() cancels; ending quietly keeps Python 3.11's stream callback from
            # logging the cancellation as an error.
            pass
        finally:
            self._count(open_connections=-1)
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _exchange(
        self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer one request; ``False`` when the connection must end."""
        path, method = request.path, request.method
        if path in CONTROL_PATHS:
            status, reply = self._control(request)
            await send_response(writer, status, reply, keep_alive=request.keep_alive)
            return request.keep_alive
        record = RecordedRequest(method, path, request.headers, _decode_body(request.body))
        with self._lock:
            self._log.append(record)
        self._count(requests=1, in_flight=1)
        try:
            if method == "POST" and path == "/v1/chat/completions":
                return await self._chat(request, record, reader, writer)
            if method == "GET" and (path == "/v1/models" or path.startswith("/v1/models/")):
                body = self._models(path.removeprefix("/v1/models").strip("/"))
                return await self._reply(request, record, writer, 200, body)
            self._count(errors=1)
            error = openai_error(f"Invalid URL ({method} {path})", "invalid_request_error")
            return await self._reply(request, record, writer, 404, error)
        finally:
            self._count(in_flight=-1)

    async def _reply(
        self,
        request: HttpRequest,
        record: RecordedRequest,
        writer: asyncio.StreamWriter,
        status: int,
        body: Any,
        headers: Sequence[tuple[str, str]] = (),
    ) -> bool:
        record.status = status
        data = json.dumps(body).encode()
        await send_response(writer, status, data, headers=headers, keep_alive=request.keep_alive)
        return request.keep_alive

    def _control(self, request: HttpRequest) -> tuple[int, bytes]:
        try:
            if request.path == "/_stats":
                reply = self.stats()
                if request.query.get("log", "1") not in ("0", "false", "no"):
                    reply["log"] = [r.to_dict() for r in self.requests]
            elif request.path == "/_reset" and request.method == "POST":
                self.reset()
                reply = self.stats()
            elif request.path == "/_config":
                if request.method == "POST":
                    self.configure(json.loads(request.body or b"{}"))
                reply = self.config()
            else:
                return 404, json.dumps(
                    openai_error("Invalid URL", "invalid_request_error")
                ).encode()
        except (ValueError, TypeError, AttributeError) as exc:
            return 400, json.dumps(openai_error(str(exc), "invalid_request_error")).encode()
        return 200, json.dumps(reply).encode()

    def _models(self, model_id: str) -> dict[str, Any]:
        def card(name: str) -> dict[str, Any]:
            return {"id": name, "object": "model", "created": 1700000000, "owned_by": "debategraph"}

        if model_id:
            return card(model_id)
        return {"object": "list", "data": [card(f"sim-{k}") for k in range(5)]}

    # -- chat completions ----------------------------------------------------------------------

    async def _chat(
        self,
        http: HttpRequest,
        record: RecordedRequest,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        try:
            body = _chat_body(record.body)
        except _Inconsistent as exc:
            self._count(errors=1)
            error = openai_error(str(exc), "invalid_request_error", param=exc.param)
            return await self._reply(http, record, writer, 400, error)
        with self._lock:
            index = self._counters.chat_requests
            self._counters.chat_requests += 1
            self._counters.by_model[str(body["model"])] += 1
            self._counters.streamed += bool(body.get("stream"))
        request = ChatRequest(body, http.headers, index, http.method, http.path)
        if self.api_key is not None and bearer_token(http.headers) != self.api_key:
            self._count(errors=1)
            error = openai_error(
                "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"
            )
            return await self._reply(http, record, writer, 401, error)

        kind = self.faults.next_for(request)
        record.fault = kind
        if kind is not None:
            with self._lock:
                self._counters.faulted += 1
                self._counters.faults[kind] += 1
        if kind == "hang":
            while await reader.read(65536):  # until the client gives up
                pass
            return False
        if self.latency > 0:
            await asyncio.sleep(self.latency)
            if reader.at_eof():  # the client gave up meanwhile: nothing is generated
                return False
        effect = None
        if kind is not None:
            effect = fault_effect(
                kind,
                request,
                retry_after=self.retry_after,
                echo_secrets=self.echo_secrets,
                huge_bytes=self.huge_bytes,
            )
        if effect is not None and effect.error is not None:
            return await self._reply(
                http, record, writer, effect.status, effect.error, effect.headers
            )

        if effect is None or effect.sabotage == "no_finish":
            try:
                completion = await self._complete(request)
            except Exception as exc:
                log.exception("responder failed")
                self._count(errors=1)
                error = openai_error(f"responder failed: {exc!r}", "server_error")
                return await self._reply(http, record, writer, 500, error)
        elif effect.content is not None:
            completion = Completion(effect.content)
        else:
            completion = Completion("This reply is cut short on purpose.")
        reply = _Reply.build(self, request, completion)
        record.status = 200
        record.usage = {k: reply.usage[k] for k in ("prompt_tokens", "completion_tokens")}
        for group, name in (
            ("prompt_tokens_details", "cached_tokens"),
            ("completion_tokens_details", "reasoning_tokens"),
        ):
            if name in (reply.usage.get(group) or {}):
                record.usage[name] = reply.usage[group][name]
        if kind is None:
            self._count(completed=1)
        sabotage = effect.sabotage if effect is not None else None
        if request.stream:
            return await self._send_stream(http, writer, reply, sabotage)
        return await self._send_whole(http, writer, reply, sabotage)

    def cached_prefix(self, request: ChatRequest) -> int:
        """Tokens of this prompt an earlier request to the same model began with, in blocks.

        The simulated prompt cache (``prompt_cache_block``); remembers this prompt for later
        requests (the last 256 per model).
        """
        if self.prompt_cache_block <= 0:
            return 0
        tokens = tuple(
            piece
            for m in request.messages
            for piece in split_tokens(f"{m.get('role')}: {message_text(m.get('content'))}\n")
        )
        seen = self._prompt_prefixes.setdefault(request.model, deque(maxlen=256))
        common = 0
        for earlier in seen:
            n = 0
            for a, b in zip(earlier, tokens, strict=False):
                if a != b:
                    break
                n += 1
            common = max(common, n)
        seen.append(tokens)
        return common // self.prompt_cache_block * self.prompt_cache_block

    async def _complete(self, request: ChatRequest) -> Completion:
        result = await self.responder.respond(request)
        return Completion(result) if isinstance(result, str) else result

    async def _send_whole(
        self,
        http: HttpRequest,
        writer: asyncio.StreamWriter,
        reply: _Reply,
        sabotage: str | None,
    ) -> bool:
        headers = (("x-request-id", reply.request_id),)
        if sabotage == "no_choices":
            data = json.dumps(reply.completion_json(choices=False)).encode()
        else:
            data = json.dumps(reply.completion_json()).encode()
        if sabotage == "malformed":
            data = data[: max(len(data) // 2, 1)]
        if sabotage == "non_utf8":
            data = data.replace(b"This reply", b"This \xff\xfe reply", 1)
        if sabotage == "no_finish":
            body = reply.completion_json()
            body["choices"][0]["finish_reason"] = None
            data = json.dumps(body).encode()
        if sabotage == "trickle":
            fields = [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
            writer.write(_head(200, [*fields, *headers]))
            for byte in data:
                await writer.drain()
                await asyncio.sleep(self.trickle_delay)
                writer.write(bytes([byte]))
            await writer.drain()
            return http.keep_alive
        if sabotage == "reset":
            fields = [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
            writer.write(_head(200, [*fields, *headers]) + data[: len(data) // 2])
            await writer.drain()
            drop_connection(writer)
            return False
        await send_response(writer, 200, data, headers=headers, keep_alive=http.keep_alive)
        return http.keep_alive

    async def _send_stream(
        self,
        http: HttpRequest,
        writer: asyncio.StreamWriter,
        reply: _Reply,
        sabotage: str | None,
    ) -> bool:
        chunked = http.version == "HTTP/1.1"
        keep_alive = http.keep_alive and chunked
        stream = ResponseStream(writer, chunked=chunked)
        headers = [
            ("Content-Type", "text/event-stream; charset=utf-8"),
            ("Cache-Control", "no-cache"),
            ("x-request-id", reply.request_id),
        ]
        await stream.start(200, headers, keep_alive=keep_alive)
        events = [json.dumps(e) for e in reply.stream_events(choices=sabotage != "no_choices")]
        if sabotage == "malformed":
            events[1:] = [events[min(1, len(events) - 1)][:40]]
        if sabotage == "no_finish":
            events = [e for e in events if '"finish_reason": null' in e or '"choices": []' in e]
        for n, event in enumerate([*events, "[DONE]"]):
            if sabotage == "reset" and n == 2:
                drop_connection(writer)
                return False
            if n and self.chunk_delay > 0:
                await asyncio.sleep(self.chunk_delay)
            await stream.send(b"data: " + event.encode() + b"\n\n")
        await stream.finish()
        return keep_alive


def _decode_body(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _chat_body(body: Any) -> dict[str, Any]:
    """Check a chat-completions body the way OpenAI does, for the few fields used here."""
    if not isinstance(body, dict):
        raise _Inconsistent(
            "We could not parse the JSON body of your request. (HINT: This likely means you "
            "aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)",
            None,
        )
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise _Inconsistent("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _Inconsistent("[] is too short - 'messages'", "messages")
    if not all(isinstance(m, dict) and "role" in m for m in messages):
        raise _Inconsistent("Invalid value for 'messages': each needs a 'role'.", "messages")
    return body


def usage_object(
    prompt: int, completion: int, cached: int, reasoning: int, details: str = "openai"
) -> dict[str, Any]:
    """The ``usage`` of a reply, its token details in the shape ``details`` names.

    Args:
        prompt: Prompt tokens.
        completion: Completion tokens (reasoning included).
        cached: Of the prompt tokens, those served from the prompt cache.
        reasoning: Of the completion tokens, hidden reasoning.
        details: One of :data:`USAGE_DETAILS`.
    """
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if details == "openai":
        usage["prompt_tokens_details"] = {"cached_tokens": cached, "audio_tokens": 0}
        usage["completion_tokens_details"] = {
            "reasoning_tokens": reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        }
    elif details == "llama.cpp":
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    elif details == "null":
        usage["prompt_tokens_details"] = usage["completion_tokens_details"] = None
    return usage


@dataclass
class _Reply:
    """One answer, ready to be rendered as a completion or as stream chunks."""

    request_id: str
    id: str
    created: int
    model: str
    tokens: list[str]
    finish_reason: str
    usage: dict[str, Any]
    logprobs: dict[str, Any] | None
    include_usage: bool

    @classmethod
    def build(cls, server: Server, request: ChatRequest, completion: Completion) -> _Reply:
        body = request.body
        content = completion.content
        tokens = split_tokens(content)
        values = completion.token_logprobs
        finish = completion.finish_reason
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        n_out = completion.completion_tokens
        if isinstance(limit, int) and 0 < limit < len(tokens):
            tokens, values, finish, n_out = tokens[:limit], (values or [])[:limit], "length", limit
        if n_out is None:
            n_out = estimate_tokens(content)
        n_in = completion.prompt_tokens
        if n_in is None:
            n_in = sum(estimate_tokens(message_text(m.get("content"))) for m in request.messages)
        n_reasoning = completion.reasoning_tokens
        if n_reasoning is None:
            n_reasoning = server.reasoning_tokens
        if completion.completion_tokens is None:
            n_out += n_reasoning  # hidden reasoning is billed as output
        n_reasoning = min(n_reasoning, n_out)
        n_cached = completion.cached_tokens
        if n_cached is None:
            n_cached = server.cached_prefix(request)
        n_cached = min(n_cached, n_in)
        logprobs = None
        if body.get("logprobs"):
            rng = random.Random(zlib.crc32(json.dumps(body, sort_keys=True).encode()) ^ server.seed)
            if values is None or len(values) != len(tokens):
                values = [-rng.expovariate(4.0) for _ in tokens]
            top = int(body.get("top_logprobs") or 0)
            logprobs = logprobs_object(tokens, values, top, rng)
        usage = usage_object(n_in, n_out, n_cached, n_reasoning, server.usage_details)
        options = body.get("stream_options") or {}
        return cls(
            request_id=f"req_{request.index + 1:024x}",
            id=f"chatcmpl-{server.seed:x}{request.index + 1:020x}",
            created=int(time.time()),
            model=request.model,
            tokens=tokens,
            finish_reason=finish,
            usage=usage,
            logprobs=logprobs,
            include_usage=bool(isinstance(options, dict) and options.get("include_usage")),
        )

    def _base(self, object_: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": object_,
            "created": self.created,
            "model": self.model,
            "service_tier": "default",
            "system_fingerprint": "fp_debategraph",
        }

    def completion_json(self, *, choices: bool = True) -> dict[str, Any]:
        """The ``chat.completion`` object (``choices=False``: without its choices)."""
        body = self._base("chat.completion")
        if choices:
            message: dict[str, Any] = {
                "role": "assistant",
                "content": "".join(self.tokens),
                "refusal": None,
                "annotations": [],
            }
            body["choices"] = [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": self.logprobs,
                    "finish_reason": self.finish_reason,
                }
            ]
        body["usage"] = self.usage
        return body

    def stream_events(self, *, choices: bool = True) -> list[dict[str, Any]]:
        """The ``chat.completion.chunk`` objects: role, content pieces, finish, usage.

        Up to 1024 content chunks; longer replies put several tokens in a chunk.
        """
        base = self._base("chat.completion.chunk")
        if self.include_usage:
            base["usage"] = None

        def chunk(delta: dict[str, Any], logprobs: Any = None, finish: str | None = None):
            choice = {"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
            return {**base, "choices": [choice]}

        if not choices:
            return [base]
        events = [chunk({"role": "assistant", "content": "", "refusal": None})]
        step = max(1, math.ceil(len(self.tokens) / 1024))
        entries = self.logprobs["content"] if self.logprobs else None
        for start in range(0, len(self.tokens), step):
            piece = "".join(self.tokens[start : start + step])
            lp = None if entries is None else {"content": entries[start : start + step]}
            if lp is not None:
                lp["refusal"] = None
            events.append(chunk({"content": piece}, lp))
        events.append(chunk({}, None, self.finish_reason))
        if self.include_usage:
            events.append({**base, "choices": [], "usage": self.usage})
        return events


# ---------------------------------------------------------------------------------------------
# Starting it: a background thread, a process, the command line
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def serve(**options: Any) -> Iterator[Server]:
    """Run a :class:`Server` on a background thread with its own event loop.

    Args:
        **options: The :class:`Server` options.

    Yields:
        The running server; ``base_url`` is ready for the clients.
    """
    server = Server(**options)
    started = threading.Event()
    state: dict[str, Any] = {}

    async def main() -> None:
        try:
            await server.start()
        except BaseException as exc:
            state["error"] = exc
            started.set()
            return
        state["loop"], state["stop"] = asyncio.get_running_loop(), asyncio.Event()
        started.set()
        await state["stop"].wait()
        await server.aclose()

    thread = threading.Thread(target=asyncio.run, args=(main(),), name="openai-server")
    thread.daemon = True
    thread.start()
    started.wait()
    if "error" in state:
        thread.join()
        raise state["error"]
    try:
        yield server
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(timeout=10)


class RemoteServer:
    """A server running in another process (see :func:`spawn`), driven over HTTP.

    Attributes:
        base_url: ``http://127.0.0.1:<port>/v1``.
        process: The server process.
    """

    def __init__(self, base_url: str, process: subprocess.Popen[str]):
        self.base_url = base_url
        self.process = process
        self._root = base_url.removesuffix("/v1")

    def _call(self, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self._root + path, data=data, method="POST" if data else "GET"
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def stats(self, *, log: bool = False) -> dict[str, Any]:
        """The counters (``log=True``: with the request log under ``"log"``)."""
        return self._call(f"/_stats?log={int(log)}")

    def reset(self) -> dict[str, Any]:
        """As :meth:`Server.reset`; returns the fresh counters."""
        return self._call("/_reset", {})

    def configure(self, **settings: Any) -> dict[str, Any]:
        """As :meth:`Server.configure`; returns the settings now in force."""
        return self._call("/_config", settings)


def command_line(**options: Any) -> list[str]:
    """The ``python -m tests.openai_server`` arguments for :class:`Server` options.

    Only options the command line can express: a responder given by name or as a list of
    replies, faults by name.
    """
    args = ["--port", str(options.pop("port", 0))]
    responder = options.pop("responder", "simulated")
    if callable(responder) or isinstance(responder, Responder):
        raise ValueError("a separate process takes a responder name or a list of replies")
    if isinstance(responder, str):
        args += ["--responder", responder]
    else:
        for reply in responder:
            args += ["--reply", reply]
    for fault in options.pop("faults", ()):
        args += ["--fault", fault or "ok"]
    for kind, p in (options.pop("fault_rates", None) or {}).items():
        args += ["--fault-rate", f"{kind}={p}"]
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value not in (None, False):
            args += [flag, str(value)]
    return args


@contextlib.contextmanager
def spawn(*, startup_timeout: float = 30.0, **options: Any) -> Iterator[RemoteServer]:
    """Run the server as a separate process, for benchmarks that must not share its CPU.

    Args:
        startup_timeout: Seconds to wait for the base URL.
        **options: :class:`Server` options the command line can express.

    Yields:
        The running server; the process is terminated on exit.
    """
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.openai_server", *command_line(**options)],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        timer = threading.Timer(startup_timeout, process.kill)
        timer.start()
        try:
            line = process.stdout.readline().strip()
        finally:
            timer.cancel()
        if not line.startswith("http://"):
            raise RuntimeError(f"the server did not start (exit code {process.poll()})")
        yield RemoteServer(line, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tests.openai_server",
        description="OpenAI-compatible chat-completions server on 127.0.0.1 with faults. "
        "Prints its base URL on the first line, then serves until killed.",
    )
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--responder", default="simulated", choices=["simulated", "echo"])
    parser.add_argument("--reply", action="append", help="scripted reply (repeat for more)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per chat request")
    parser.add_argument("--chunk-delay", type=float, default=0.0)
    parser.add_argument("--fault", action="append", default=[], help="scripted fault, in order")
    parser.add_argument(
        "--fault-rate", action="append", default=[], metavar="KIND=P", help="random fault rate"
    )
    parser.add_argument("--fault-seed", type=int)
    parser.add_argument("--retry-after", type=float, default=1.0)
    parser.add_argument("--echo-secrets", action="store_true")
    parser.add_argument("--huge-bytes", type=int, default=1_000_000)
    parser.add_argument("--api-key")
    parser.add_argument("--log-limit", type=int, default=10_000)
    parser.add_argument("--usage-details", default="openai", choices=USAGE_DETAILS)
    parser.add_argument("--prompt-cache-block", type=int, default=0)
    parser.add_argument("--reasoning-tokens", type=int, default=0)
    return parser


async def _serve_forever(server: Server) -> None:
    await server.start()
    print(server.base_url, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.aclose()


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point: ``python -m tests.openai_server --help``."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        rates = {kind: float(p) for kind, _, p in (r.partition("=") for r in args.fault_rate)}
        server = _server_from(args, rates)
    except ValueError as exc:
        parser.error(str(exc))
    asyncio.run(_serve_forever(server))


def _server_from(args: argparse.Namespace, rates: dict[str, float]) -> Server:
    return Server(
        port=args.port,
        responder=args.reply or args.responder,
        seed=args.seed,
        latency=args.latency,
        chunk_delay=args.chunk_delay,
        faults=args.fault,
        fault_rates=rates,
        fault_seed=args.fault_seed,
        retry_after=args.retry_after,
        echo_secrets=args.echo_secrets,
        huge_bytes=args.huge_bytes,
        api_key=args.api_key,
        log_limit=args.log_limit,
        usage_details=args.usage_details,
        prompt_cache_block=args.prompt_cache_block,
        reasoning_tokens=args.reasoning_tokens,
    )


if __name__ == "__main__":
    main()
