"""The round subgraph and the outer debate loop."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph._internal._runnable import RunnableCallable
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from debategraph.nodes.agent import agent_node
from debategraph.nodes.decide import make_decide_node
from debategraph.nodes.dispatch import AgentTask, make_dispatch
from debategraph.nodes.method import Method
from debategraph.nodes.native import both_ways
from debategraph.nodes.plan import make_plan_node
from debategraph.nodes.route import make_router
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateInput, DebateState

MODEL_RETRY = RetryPolicy(
    max_attempts=3, initial_interval=1.0, backoff_factor=2.0, max_interval=30.0
)
"""Transient model errors (network, rate limits, 5xx) are retried; others are reported."""


def _method(method: str | Method) -> Method:
    if isinstance(method, Method):
        return method
    from debategraph.graphs.presets import get_method

    return get_method(method)


def build_round_graph(
    method: str | Method, *, retry_policy: RetryPolicy = MODEL_RETRY
) -> StateGraph:
    """One debate round: ``plan`` -> ``agent`` x speakers (concurrently) [-> ``after_round``].

    Args:
        method: A method name or ``Method``.
        retry_policy: Retry policy of the agent node.

    Returns:
        The uncompiled round subgraph.
    """
    m = _method(method)
    graph: StateGraph[Any, Any, Any, Any] = StateGraph(DebateState, context_schema=DebateContext)
    graph.add_node("plan", both_ways(make_plan_node(m), "plan"))
    graph.add_node("agent", agent_node(), input_schema=AgentTask, retry_policy=retry_policy)
    graph.add_edge(START, "plan")
    if m.after_round is None:
        graph.add_conditional_edges("plan", both_ways(make_dispatch(m), "dispatch"), ["agent", END])
        graph.add_edge("agent", END)
        return graph
    after_round = m.after_round

    async def after(state: DebateState, runtime: Runtime[DebateContext]) -> dict[str, Any]:
        return await after_round(state, runtime.context)

    def after_sync(state: DebateState, runtime: Runtime[DebateContext]) -> dict[str, Any]:
        return asyncio.run(after(state, runtime))

    graph.add_node(
        "after_round", RunnableCallable(after_sync, after, name="after_round"), defer=True
    )
    graph.add_conditional_edges(
        "plan",
        both_ways(make_dispatch(m, after="after_round"), "dispatch"),
        ["agent", "after_round"],
    )
    graph.add_edge("agent", "after_round")
    graph.add_edge("after_round", END)
    return graph


def build_debate_graph(
    method: str | Method, *, retry_policy: RetryPolicy = MODEL_RETRY
) -> StateGraph:
    """The whole debate: rounds in a loop until a stop rule fires, then the decision.

    The graph is returned uncompiled so that callers choose checkpointer, store and cache::

        graph = build_debate_graph("du").compile(checkpointer=InMemorySaver())
        out = await graph.ainvoke({"question": q}, context=DebateContext(agents=3, rounds=2))

    Args:
        method: A method name (see ``debategraph.METHODS``) or a ``Method``.
        retry_policy: Retry policy of the agent node.

    Returns:
        An uncompiled ``StateGraph`` over ``DebateState`` with ``DebateContext`` as context.
    """
    m = _method(method)
    rounds = build_round_graph(m, retry_policy=retry_policy).compile(name=f"{m.name}_round")
    graph: StateGraph[Any, Any, Any, Any] = StateGraph(
        DebateState, context_schema=DebateContext, input_schema=DebateInput
    )
    graph.add_node("round", rounds)
    graph.add_node("decide", both_ways(make_decide_node(m), "decide"))
    graph.add_edge(START, "round")
    graph.add_conditional_edges(
        "round", both_ways(make_router(m), "next_step"), ["round", "decide"]
    )
    graph.add_edge("decide", END)
    return graph
