"""The server: routing, the control endpoints and the accounting."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from tests.openai_server.faults import FaultPlan, bearer_token, fault_effect, openai_error
from tests.openai_server.http_io import (
    MAX_LINE,
    HttpRequest,
    ProtocolError,
    ResponseStream,
    _head,
    drop_connection,
    read_request,
    send_response,
)
from tests.openai_server.replies import (
    USAGE_DETAILS,
    _chat_body,
    _decode_body,
    _Inconsistent,
    _Reply,
)
from tests.openai_server.responders import (
    ChatRequest,
    Completion,
    ResponderSpec,
    estimate_tokens,
    make_responder,
    message_text,
    split_tokens,
)

HOST = "127.0.0.1"
"""The only address the server binds."""


FORBIDDEN_PORTS = frozenset({2024})
"""Ports the server never takes (2024 belongs to ``langgraph dev``)."""


log = logging.getLogger(__name__)


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


CONTROL_PATHS = ("/_stats", "/_reset", "/_config")


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
