"""The agent node: one model call, parsed into a turn record."""

from __future__ import annotations

import contextlib
import time
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph._internal._runnable import RunnableCallable
from langgraph.runtime import Runtime

from debategraph.models.resolve import agent_model, model_label
from debategraph.nodes.dispatch import AgentTask
from debategraph.policies.answers import extract_answer, extract_confidence
from debategraph.policies.tokens import estimate_tokens
from debategraph.state.context import DebateContext
from debategraph.state.records import Turn


def build_messages(task: AgentTask) -> list[BaseMessage]:
    """System prompt, the agent's own earlier exchanges, then this round's prompt."""
    messages: list[BaseMessage] = [SystemMessage(task["system"])] if task["system"] else []
    for prompt, reply in task["history"]:
        messages += [HumanMessage(prompt), AIMessage(reply)]
    messages.append(HumanMessage(task["prompt"]))
    return messages


def logprob_stats(reply: AIMessage) -> dict[str, float] | None:
    """Mean and minimum logprob of the sampled tokens, if the model returned them."""
    content = (reply.response_metadata.get("logprobs") or {}).get("content") or []
    values = [float(tok["logprob"]) for tok in content if tok.get("logprob") is not None]
    if not values:
        return None
    return {"mean": sum(values) / len(values), "min": min(values), "n": float(len(values))}


def to_turn(
    task: AgentTask, reply: AIMessage, messages: list[BaseMessage], latency: float, model: str
) -> Turn:
    """Parse a reply into a turn; usage is estimated (and marked) when the model gives none."""
    text = reply.text
    usage = reply.usage_metadata
    return Turn(
        id=f"r{task['round']}:{task['agent']}",
        agent=task["agent"],
        round=task["round"],
        kind="answer",
        text=text,
        prompt=task["prompt"],
        answer=extract_answer(text, task["task"], task["num_choices"]),
        confidence=extract_confidence(text),
        read=task["read"],
        input_tokens=usage["input_tokens"]
        if usage
        else sum(estimate_tokens(m.text) for m in messages),
        output_tokens=usage["output_tokens"] if usage else estimate_tokens(text),
        usage_estimated=usage is None,
        latency_s=latency,
        model=model,
        logprobs=logprob_stats(reply),
    )


async def agent_turn(task: AgentTask, runtime: Runtime[DebateContext]) -> dict[str, Any]:
    """Ask the agent's model and record the turn."""
    model = agent_model(runtime.context, task["index"], single_model=task["single_model"])
    messages = build_messages(task)
    limiter = runtime.context.call_limiter or contextlib.nullcontext()
    async with limiter:
        start = time.perf_counter()
        reply = await model.ainvoke(messages)
        latency = time.perf_counter() - start
    return _record(task, reply, messages, latency, model)


def agent_turn_sync(task: AgentTask, runtime: Runtime[DebateContext]) -> dict[str, Any]:
    """``agent_turn`` for graphs run with ``invoke`` instead of ``ainvoke``."""
    model = agent_model(runtime.context, task["index"], single_model=task["single_model"])
    messages = build_messages(task)
    start = time.perf_counter()
    reply = model.invoke(messages)
    return _record(task, reply, messages, time.perf_counter() - start, model)


def _record(
    task: AgentTask, reply: BaseMessage, messages: list[BaseMessage], latency: float, model: Any
) -> dict[str, Any]:
    if not isinstance(reply, AIMessage):
        reply = AIMessage(content=reply.text)
    return {"turns": [to_turn(task, reply, messages, latency, model_label(model))]}


def agent_node() -> RunnableCallable:
    """The agent node, native on both ``invoke`` and ``ainvoke``.

    ``RunnableCallable`` is LangGraph's own node runnable (``langgraph.prebuilt.ToolNode`` is
    built on it): it inspects signatures once, injects ``runtime``, and runs async calls on
    the event loop instead of a thread pool.
    """
    return RunnableCallable(agent_turn_sync, agent_turn, name="agent")
