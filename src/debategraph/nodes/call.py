"""The call node: every model call of every method goes through here.

One call: render the method's prompt for it, resolve the speaker's model, apply the model
bindings, wait for the shared call limiter, ask the model (LangGraph's retry policy on the
node retries transient failures), and record a :class:`~debategraph.state.records.Turn` with
the call's id and kind, its tokens and latency. A speaker may be a chat model or any LangChain
``Runnable`` (a tool-using agent); the tokens of every model call inside an agent are summed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.callbacks.manager import dispatch_custom_event
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import ensure_config, merge_configs
from langgraph.runtime import get_runtime
from typing_extensions import TypedDict

from debategraph.errors import UnusableReplyError
from debategraph.methods.contract import Method
from debategraph.models.resolve import Models, model_label
from debategraph.models.roster import Agent
from debategraph.models.token_field import with_token_limit
from debategraph.models.usage_details import usage_details
from debategraph.models.wire import REJECTED_USAGE
from debategraph.nodes.patience import BOARD, Patience
from debategraph.nodes.runnable import DualNode
from debategraph.nodes.thinking import read_reply, thinking_message
from debategraph.policies.answers import PARSERS, AnswerParser, Extraction
from debategraph.policies.ballots import DEFAULT_POINTS, parse_ballot, strip_ballot
from debategraph.policies.confidence import read_confidence
from debategraph.policies.thinking import with_thinking
from debategraph.policies.tokens import estimate_tokens
from debategraph.policies.types import TaskKind
from debategraph.policies.verdicts import parse_verdict
from debategraph.prompts.common import ADVERSARY_INSTRUCTION, PromptInput
from debategraph.prompts.decision import PROMPTS as DECISION_PROMPTS
from debategraph.prompts.decision import ballot_request
from debategraph.state.context import DebateContext
from debategraph.state.records import Call, Turn
from debategraph.tracing import call_run_config


class CallTask(TypedDict):
    """The payload of one call; everything it needs, so a node cache keys on all of it.

    Attributes:
        call: The call as planned.
        question: The debate's question.
        task: The answer kind.
        choices: Multiple-choice options, if any.
        reads: The turns the call reads, in the planned order.
        history: The speaker's own earlier answer (and, for an evaluation call, evaluation)
            turns, when the call keeps history.
        model_kwargs: Keyword arguments bound to the model for this call.
        seed: The run's seed.
        identity: What else decides the reply (method, model, prompt settings); only a
            node cache reads it, so that a cached reply is never served to another setup.
    """

    call: Call
    question: str
    task: TaskKind
    choices: list[str] | None
    reads: list[Turn]
    history: list[Turn]
    model_kwargs: dict[str, Any]
    seed: int
    identity: dict[str, Any]


CALLS_HALTED: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "debategraph_calls_halted", default=None
)
"""Set by a run that is stopping (its spend limit is reached): a :class:`CallLimiter` then sends
no further call; a call waiting for a slot waits for the run's cancellation instead."""


class CallLimiter:
    """Bounds in-flight model calls across every debate that shares it, and counts the peak.

    Once :data:`CALLS_HALTED` is set, no call takes a slot: the calls in flight are the last.

    Args:
        limit: Most calls in flight at once.
    """

    def __init__(self, limit: int) -> None:
        import asyncio

        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"a call limit must be an integer of at least 1, got {limit!r}")
        self.limit = limit
        self._semaphore = asyncio.Semaphore(limit)
        self.in_flight = 0
        self.peak = 0

    async def __aenter__(self) -> None:
        await self._semaphore.acquire()
        halted = CALLS_HALTED.get()
        if halted is not None and halted.is_set():
            self._semaphore.release()
            await asyncio.get_running_loop().create_future()  # until the run is cancelled
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)

    async def __aexit__(self, *exc: object) -> None:
        self.in_flight -= 1
        self._semaphore.release()


def exchange(turn: Turn) -> list[BaseMessage]:
    """A history turn as chat messages: its prompt, then its reply's answer part.

    The reply's thinking goes back only in the message field it came in (see
    :func:`~debategraph.nodes.thinking.thinking_message`), never as content.
    """
    reply = thinking_message(turn["text"], turn.get("reasoning", ""), turn.get("reasoning_field"))
    return [HumanMessage(turn["prompt"]), reply]


def peer_with_thinking(turn: Turn) -> Turn:
    """A peer turn whose text shows its thinking before its answer part (delimited)."""
    thinking = turn.get("reasoning")
    if not thinking:
        return turn
    shown = dict(turn, text=with_thinking(turn["text"], thinking))
    return cast(Turn, shown)


def render(
    method: Method[Any],
    task: CallTask,
    ctx: DebateContext,
    *,
    history: Callable[[Turn], list[BaseMessage]] = exchange,
) -> list[BaseMessage]:
    """The messages of a call: system prompt, the speaker's history, then the call's prompt.

    ``history`` turns a history turn into its messages (a call node reuses them).
    """
    c = task["call"]
    peers = task["reads"]
    if ctx.peer_reasoning == "full" and c["kind"] in ("answer", "pairwise"):
        peers = [peer_with_thinking(t) for t in peers]
    view = PromptInput(
        question=task["question"],
        task=task["task"],
        choices=task["choices"],
        peers=peers,
        agent=c["speaker"],
        round=c["round"],
        anonymize=ctx.anonymize,
        confidence=method.confidence,
        options=method.options_for(ctx),
        vars=c["vars"],
    )
    decision = c["kind"] == "decision"  # a decision rule's own call: its own prompts
    prompt = (DECISION_PROMPTS if decision else method.prompts)[c["template"]](view)
    if c["kind"] in ("answer", "pairwise") and c["speaker"] in ctx.adversaries:
        prompt = f"{prompt}\n\n{ADVERSARY_INSTRUCTION.format(answer=ctx.adversaries[c['speaker']])}"
    if "ballot" in c["vars"]:
        prompt = f"{prompt}\n\n{ballot_request(c['vars']['ballot'])}"
    system = None if decision else method.system_for(c["template"])
    persona = None if decision else ctx.personas.get(c["speaker"])
    if persona:
        system = f"{persona}\n\n{system}" if system else persona
    messages: list[BaseMessage] = [SystemMessage(system)] if system else []
    for turn in task["history"]:
        messages += history(turn)
    messages.append(HumanMessage(prompt))
    return messages


def logprob_stats(reply: AIMessage) -> dict[str, float] | None:
    """Statistics of the sampled tokens' logprobs, if the model returned them.

    ``mean`` and ``min`` of the sampled tokens' logprobs and their count ``n``; with top
    logprobs, ``top1_mean``, the mean logprob of the most likely token at each position.
    """
    content = (reply.response_metadata.get("logprobs") or {}).get("content") or []
    values = [float(tok["logprob"]) for tok in content if tok.get("logprob") is not None]
    if not values:
        return None
    stats = {"mean": sum(values) / len(values), "min": min(values), "n": float(len(values))}
    tops = [
        max(float(alt["logprob"]) for alt in tok["top_logprobs"])
        for tok in content
        if tok.get("top_logprobs")
    ]
    if tops:
        stats["top1_mean"] = sum(tops) / len(tops)
    return stats


class UsageTotal(BaseCallbackHandler):
    """Sums the token usage of every chat-model call made under it (any model, named or not).

    LangChain's ``UsageMetadataCallbackHandler`` keys usage by model name and skips replies
    that carry none; an agent's debater turn must count every call inside it. It runs inline
    (no thread-pool hop per event) and ignores chain events.
    """

    run_inline = True

    @property
    def ignore_chain(self) -> bool:
        """Chain events carry no usage."""
        return True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.input_tokens = self.output_tokens = self.calls = 0
        self.details: dict[str, int] = {}  # cached input and reasoning tokens, where stated

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        """Add the usage of one finished model call."""
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    with self._lock:
                        self.input_tokens += usage["input_tokens"]
                        self.output_tokens += usage["output_tokens"]
                        self.calls += 1
                        for field, value in usage_details(usage).items():
                            self.details[field] = self.details.get(field, 0) + value

    def usage(self) -> UsageMetadata | None:
        """The summed usage, or ``None`` when no call reported any."""
        if not self.calls:
            return None
        usage = UsageMetadata(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            total_tokens=self.input_tokens + self.output_tokens,
        )
        if "cached_input_tokens" in self.details:
            usage["input_token_details"] = {"cache_read": self.details["cached_input_tokens"]}
        if "reasoning_tokens" in self.details:
            usage["output_token_details"] = {"reasoning": self.details["reasoning_tokens"]}
        return usage


def _agent_input(model: Runnable[Any, Any], messages: list[BaseMessage]) -> Any:
    from langgraph.pregel import Pregel

    return {"messages": messages} if isinstance(model, Pregel) else messages


def _agent_reply(output: Any) -> AIMessage:
    if isinstance(output, dict) and "messages" in output:
        output = output["messages"]
    if isinstance(output, list):
        output = next((m for m in reversed(output) if isinstance(m, AIMessage)), output[-1])
    if isinstance(output, AIMessage):
        return output
    if isinstance(output, BaseMessage):
        return AIMessage(content=output.content)
    return AIMessage(content=str(output))


UNUSABLE_REPLY_EVENT = "debategraph_unusable_reply"
"""Custom callback event sent when a reply arrived but was rejected (so spend meters see it)."""

REJECTED_USAGE_EVENT = "debategraph_rejected_usage"
"""Custom callback event with the token usage of replies the provider's client rejected."""


def _usable(reply: AIMessage) -> AIMessage:
    """``reply``, or :class:`UnusableReplyError` (retried) when it carries no text.

    A reply with thinking but no answer part is usable: it is recorded as a ``cut_off``
    abstention, not asked again.
    """
    if not reply.text.strip() and not reply.tool_calls and not read_reply(reply).thinking:
        # Outside a runnable nobody listens, and dispatching raises RuntimeError.
        with contextlib.suppress(RuntimeError):
            dispatch_custom_event(UNUSABLE_REPLY_EVENT, {"reason": "empty content"})
        raise UnusableReplyError("the model replied with empty content")
    return reply


def _finished(reply: AIMessage, model: BaseChatModel) -> AIMessage:
    """``reply``, or :class:`UnusableReplyError` (retried) if it has no finish reason.

    Every Chat Completions reply states why it ended (``stop``, ``length``, ...); a stream
    that ends without that chunk was cut off, so its text is not an answer. Only models of
    ``langchain-openai`` (Chat Completions; the Responses API reports a ``status`` instead)
    are checked: other providers name the field differently.
    """
    if "BaseChatOpenAI" not in {cls.__name__ for cls in type(model).__mro__}:
        return reply
    metadata = reply.response_metadata
    if metadata.get("finish_reason") is None and "status" not in metadata:
        with contextlib.suppress(RuntimeError):
            dispatch_custom_event(UNUSABLE_REPLY_EVENT, {"reason": "no finish reason"})
        raise UnusableReplyError("the model's reply ended without a finish reason (cut off)")
    return reply


def _unusable(exc: Exception) -> Exception:
    """A reply without choices, or not UTF-8, as a retryable error; others as they are."""
    if isinstance(exc, UnicodeDecodeError):
        return UnusableReplyError(f"the model's reply was not valid UTF-8 ({exc.reason})")
    if isinstance(exc, TypeError | KeyError) and "choices" in str(exc):
        return UnusableReplyError(f"the model's reply had no choices ({exc})")
    return exc


def _report_rejected(usage: list[dict[str, int]]) -> None:
    """Tell spend meters what the replies the client rejected cost (when they said)."""
    if usage:
        total = {k: sum(u[k] for u in usage) for k in ("input_tokens", "output_tokens")}
        with contextlib.suppress(RuntimeError):  # outside a runnable nobody listens
            dispatch_custom_event(REJECTED_USAGE_EVENT, total)


def run_slots(context: object, limit: int | None, *, threads: bool = False) -> Any:
    """The bound on one debate's in-flight calls (``max_concurrency``), or ``None``.

    It lives on the run's context object, which every node of the run shares: runs given one
    context object share its bound. ``threads`` gives the synchronous path's semaphore.
    """
    if limit is None or not isinstance(context, DebateContext):
        return None
    key = "_call_slots_threads" if threads else "_call_slots"
    slots = context.__dict__.get(key)
    if slots is None:
        made = threading.BoundedSemaphore(limit) if threads else asyncio.Semaphore(limit)
        slots = context.__dict__.setdefault(key, made)
    return slots


def _bound(model: BaseChatModel, kwargs: dict[str, Any]) -> Any:
    """The model with the call's settings bound.

    A top-k goes onto the model itself where its class takes it as a field rather than as a
    call argument (Anthropic, Ollama, ...); a token limit goes out in the field the model's
    server honours (:func:`~debategraph.models.token_field.with_token_limit`).
    """
    model, kwargs = with_token_limit(model, kwargs)
    if "thinking" in kwargs and not getattr(type(model), "sends_thinking", False):
        kwargs = {k: v for k, v in kwargs.items() if k != "thinking"}  # refused before the run
    fields = type(model).model_fields
    if "top_k" in kwargs and not getattr(type(model), "sends_top_k", False) and "top_k" in fields:
        kwargs = dict(kwargs)
        model = model.model_copy(update={"top_k": kwargs.pop("top_k")})
    return model.bind(**kwargs) if kwargs else model


def _traced(trace: RunnableConfig | None, extra: RunnableConfig | None = None) -> RunnableConfig:
    """The current config with the call's trace and ``extra`` merged in.

    Merged, not replaced: the run keeps the graph's callbacks (usage meters, LangSmith) and
    its tags and metadata (``langgraph_node`` drives ``stream_mode="messages"``).
    """
    config = ensure_config() if extra is None else merge_configs(ensure_config(), extra)
    if trace is not None:
        config["run_name"] = trace["run_name"]
        config["tags"] = [*config.get("tags", ()), *trace["tags"]]
        config["metadata"] = {**config.get("metadata", {}), **trace["metadata"]}
    return config


async def ainvoke_model(
    model: Any,
    messages: list[BaseMessage],
    kwargs: dict[str, Any],
    deadline: float | None = None,
    trace: RunnableConfig | None = None,
) -> tuple[AIMessage, UsageMetadata | None]:
    """Ask a chat model (or an agent runnable) and return its reply and token usage.

    Args:
        model: A chat model or agent runnable.
        messages: The call's messages.
        kwargs: Model-call keyword arguments to bind.
        deadline: Seconds the whole call may take, its body included (``None``: no bound).
        trace: Run name, tags and metadata of the call's run (see
            :func:`debategraph.tracing.call_run_config`), merged into the current config.

    Raises:
        UnusableReplyError: The reply arrived without choices, not UTF-8, empty, or (an
            OpenAI-wire reply) without a finish reason.
        TimeoutError: The call took longer than ``deadline``.
    """
    call = asyncio.ensure_future(_ainvoke_model(model, messages, kwargs, deadline, trace))
    try:
        return await asyncio.shield(call)
    except asyncio.CancelledError:
        # Cancelled from outside (Ctrl-C, a failing sibling): a request in flight may already
        # be answered and billed; waiting briefly lets its usage reach the spend meters. A
        # failing graph cancels its other tasks more than once: the grace holds throughout.
        try:
            await _grace(call)
        finally:
            call.cancel()
            if call.done() and not call.cancelled():
                call.exception()  # retrieved: the debate ends with the cancellation
        raise


CANCEL_GRACE_S = 1.0
"""Seconds a model call in flight may still take to finish when its debate is cancelled."""


async def _grace(call: asyncio.Future[Any]) -> None:
    """Wait up to :data:`CANCEL_GRACE_S` for ``call``, through further cancellations."""
    loop = asyncio.get_running_loop()
    end = loop.time() + CANCEL_GRACE_S
    while not call.done() and (left := end - loop.time()) > 0:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({call}, timeout=left)


async def _ainvoke_model(
    model: Any,
    messages: list[BaseMessage],
    kwargs: dict[str, Any],
    deadline: float | None,
    trace: RunnableConfig | None,
) -> tuple[AIMessage, UsageMetadata | None]:
    rejected: list[dict[str, int]] = []
    token = REJECTED_USAGE.set(rejected)
    try:
        async with asyncio.timeout(deadline):
            if isinstance(model, BaseChatModel):
                bound = _bound(model, kwargs)
                reply = _agent_reply(await bound.ainvoke(messages, _traced(trace)))
                return _finished(_usable(reply), model), reply.usage_metadata
            handler = UsageTotal()
            config = _traced(trace, {"callbacks": [handler]})
            reply = _agent_reply(await model.ainvoke(_agent_input(model, messages), config))
            return _usable(reply), handler.usage()
    except TimeoutError:
        if deadline is None:
            raise
        raise TimeoutError(f"the model call took longer than its {deadline:g} s deadline") from None
    except (TypeError, KeyError, UnicodeDecodeError) as exc:
        _report_rejected(rejected)
        raise _unusable(exc) from exc
    finally:
        REJECTED_USAGE.reset(token)


_DEADLINE_POOL = concurrent.futures.ThreadPoolExecutor(32, thread_name_prefix="debategraph-call")


def invoke_model(
    model: Any,
    messages: list[BaseMessage],
    kwargs: dict[str, Any],
    deadline: float | None = None,
    trace: RunnableConfig | None = None,
) -> tuple[AIMessage, UsageMetadata | None]:
    """Synchronous :func:`ainvoke_model`.

    With a ``deadline`` the call runs on a worker thread, and the caller stops waiting when
    the deadline passes (the abandoned request ends at the client's own read timeout).
    """
    if deadline is None:
        return _invoke_model(model, messages, kwargs, trace)
    context = contextvars.copy_context()
    future = _DEADLINE_POOL.submit(context.run, _invoke_model, model, messages, kwargs, trace)
    try:
        return future.result(timeout=deadline)
    except concurrent.futures.TimeoutError:
        raise TimeoutError(f"the model call took longer than its {deadline:g} s deadline") from None


def _invoke_model(
    model: Any,
    messages: list[BaseMessage],
    kwargs: dict[str, Any],
    trace: RunnableConfig | None = None,
) -> tuple[AIMessage, UsageMetadata | None]:
    try:
        if isinstance(model, BaseChatModel):
            bound = _bound(model, kwargs)
            reply = _agent_reply(bound.invoke(messages, _traced(trace)))
            return _finished(_usable(reply), model), reply.usage_metadata
        handler = UsageTotal()
        config = _traced(trace, {"callbacks": [handler]})
        reply = _agent_reply(model.invoke(_agent_input(model, messages), config))
        return _usable(reply), handler.usage()
    except (TypeError, KeyError, UnicodeDecodeError) as exc:
        raise _unusable(exc) from exc


def to_turn(
    task: CallTask,
    reply: AIMessage,
    usage: UsageMetadata | None,
    messages: Sequence[BaseMessage],
    latency: float,
    model: str,
    parser: AnswerParser,
) -> Turn:
    """Parse a reply into a turn; usage is estimated (and marked) when the model gives none."""
    c = task["call"]
    reading = read_reply(reply)
    text = reading.answer
    choices = task["choices"]
    # A summary lists every answer reached and an evaluation judges one: neither states one.
    states_answer = c["kind"] in ("answer", "pairwise", "decision")
    ballot = c["vars"].get("ballot")
    stated = strip_ballot(text) if ballot else text  # a ballot's labels are not the answer
    parses = states_answer and not reading.cut_off
    extraction = parser(stated, task["task"], len(choices) if choices else None) if parses else None
    confidence = read_confidence(text) if parses else None
    turn = Turn(
        id=c["id"],
        agent=c["speaker"],
        round=c["round"],
        kind=c["kind"],
        text=text,
        prompt=str(messages[-1].content),
        answer=extraction.answer if extraction else None,
        answer_source=extraction.source
        if extraction
        else ("cut_off" if reading.cut_off and states_answer else "none"),
        confidence=confidence.value if confidence is not None else None,
        reads=list(c["reads"]),
        input_tokens=usage["input_tokens"]
        if usage
        else sum(estimate_tokens(m.text) for m in messages),
        output_tokens=usage["output_tokens"]
        if usage
        else estimate_tokens(text) + estimate_tokens(reading.thinking),
        usage_estimated=usage is None,
        latency_s=latency,
        model=model,
        logprobs=logprob_stats(reply),
    )
    details = usage_details(usage)
    if "cached_input_tokens" in details:
        turn["cached_input_tokens"] = details["cached_input_tokens"]
    if "reasoning_tokens" in details:
        turn["reasoning_tokens"] = details["reasoning_tokens"]
    if reading.thinking:
        turn["reasoning"] = reading.thinking
        if reading.field is not None:
            turn["reasoning_field"] = reading.field
    if confidence is not None and confidence.unparsed:
        turn["confidence_unparsed"] = True
    if c["kind"] == "evaluation":
        turn["label"] = parse_verdict(text, c["vars"].get("verdict", "last_label"))[0]
    if c["vars"]:
        turn["vars"] = dict(c["vars"])
    if ballot:
        vote = parse_ballot(
            text,
            ballot["kind"],
            ballot["candidates"],
            points=ballot.get("points", DEFAULT_POINTS),
            own=turn["answer"],
        )
        turn["ballot"] = {"kind": ballot["kind"], "candidates": ballot["candidates"], "vote": vote}
    return turn


def make_call_node(
    method: Method[Any],
    roster: Sequence[Agent],
    speaker: str,
    *,
    limiter: Any = None,
    parser: AnswerParser | None = None,
    retry: Any = None,
) -> DualNode:
    """The node of one speaker (an agent or a role) of ``method``.

    Args:
        method: The method whose prompts render the calls.
        roster: The graph's agents (their bound models, if any).
        speaker: The node's name.
        limiter: An async context manager bounding in-flight calls (e.g. :class:`CallLimiter`),
            shared by every debate that should share the bound; ``None`` for no bound beyond
            LangGraph's ``max_concurrency``. The synchronous path does not use it.
        parser: How answers are read (default: the method's, else the task's built-in).
        retry: The node's ``RetryPolicy``, so a call knows whether another attempt comes (see
            :mod:`debategraph.nodes.patience`).
    """
    custom = parser or method.parser
    books = Models(roster, single_model=method.single_model)
    last_label: list[tuple[Any, str]] = []

    def read_answer(response: str, task: TaskKind, num_choices: int | None) -> Extraction:
        return (custom or PARSERS[task])(response, task, num_choices)

    def label_of(model: Any) -> str:
        # The label of the model the previous call used, if it is the same object.
        last = last_label[0] if last_label else None
        if last is not None and last[0] is model:
            return last[1]
        label = model_label(model)
        last_label[:] = [(model, label)]
        return label

    # The speaker's history is re-sent with every call: its messages are made once per turn
    # (kept while the turn's prompt, text and thinking are the very same strings).
    exchanges: dict[str, tuple[str, str, str | None, list[BaseMessage]]] = {}

    def history(turn: Turn) -> list[BaseMessage]:
        prompt, text, thought = turn["prompt"], turn["text"], turn.get("reasoning")
        hit = exchanges.get(turn["id"])
        if hit is not None and hit[0] is prompt and hit[1] is text and hit[2] is thought:
            return hit[3]
        messages = exchange(turn)
        if len(exchanges) >= 256:
            exchanges.clear()
        exchanges[turn["id"]] = (prompt, text, thought, messages)
        return messages

    def trace(task: CallTask) -> RunnableConfig:
        return call_run_config(method.name, task["call"])

    def prepare(task: CallTask) -> tuple[Any, DebateContext, Any, list[BaseMessage]]:
        runtime = get_runtime()
        ctx = DebateContext.of(runtime.context)
        messages = render(method, task, ctx, history=history)
        return runtime, ctx, books.model(speaker, ctx), messages

    def record(
        task: CallTask,
        reply: AIMessage,
        usage: UsageMetadata | None,
        messages: list[BaseMessage],
        latency: float,
        model: Any,
        runtime: Any,
    ) -> dict[str, Any]:
        turn = to_turn(task, reply, usage, messages, latency, label_of(model), read_answer)
        info = runtime.execution_info
        turn["attempts"] = info.node_attempt if info is not None else 1
        return {"turns": [turn]}

    # Seconds each call (by LangGraph task id) has waited on Retry-After, across its attempts.
    throttled: dict[str, float] = {}

    def patience(runtime: Any, ctx: DebateContext, model: Any) -> Patience:
        return Patience(runtime, ctx, model, speaker, retry, throttled)

    async def acall(task: CallTask) -> dict[str, Any]:
        runtime, ctx, model, messages = prepare(task)
        slots = run_slots(runtime.context, ctx.max_concurrency)
        clock = patience(runtime, ctx, model)
        while True:  # a 429 waits and asks again here, not as one of the policy's attempts
            try:
                async with slots or contextlib.nullcontext(), limiter or contextlib.nullcontext():
                    with BOARD.waiting(clock.waiting("reply")):
                        start = time.perf_counter()
                        reply, usage = await ainvoke_model(
                            model, messages, task["model_kwargs"], clock.deadline(), trace(task)
                        )
                        latency = time.perf_counter() - start
                break
            except Exception as exc:
                pause = clock.rate_limited(exc)
                if pause is not None:
                    with BOARD.waiting(clock.waiting("retry-after")):
                        await asyncio.sleep(pause)
                    continue
                wait = clock.failed(exc)
                if wait:  # the server's Retry-After, before the policy's backoff
                    with BOARD.waiting(clock.waiting("retry-after")):
                        await asyncio.sleep(wait)
                if (error := clock.verdict(exc)) is exc:
                    raise
                raise error from exc
        clock.done()
        return clock.counted(record(task, reply, usage, messages, latency, model, runtime))

    def call(task: CallTask) -> dict[str, Any]:
        runtime, ctx, model, messages = prepare(task)
        slots = run_slots(runtime.context, ctx.max_concurrency, threads=True)
        clock = patience(runtime, ctx, model)
        while True:  # a 429 waits and asks again here, not as one of the policy's attempts
            try:
                with slots or contextlib.nullcontext(), BOARD.waiting(clock.waiting("reply")):
                    start = time.perf_counter()
                    # No deadline of our own unless one is set: it would move the call to a
                    # thread.
                    deadline = clock.deadline() if ctx.timeout is not None else None
                    reply, usage = invoke_model(
                        model, messages, task["model_kwargs"], deadline, trace(task)
                    )
                    latency = time.perf_counter() - start
                break
            except Exception as exc:
                pause = clock.rate_limited(exc)
                if pause is not None:
                    with BOARD.waiting(clock.waiting("retry-after")):
                        time.sleep(pause)
                    continue
                wait = clock.failed(exc)
                if wait:
                    with BOARD.waiting(clock.waiting("retry-after")):
                        time.sleep(wait)
                if (error := clock.verdict(exc)) is exc:
                    raise
                raise error from exc
        clock.done()
        return clock.counted(record(task, reply, usage, messages, latency, model, runtime))

    return DualNode(speaker, call, acall)
