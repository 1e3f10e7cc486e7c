"""The round subgraph and the outer debate loop, built for one method and one roster."""

from __future__ import annotations

from typing import Any

from langgraph.cache.base import BaseCache
from langgraph.graph import END, START, StateGraph
from langgraph.types import CachePolicy, RetryPolicy

from debategraph.methods.contract import Method
from debategraph.methods.registry import get_method
from debategraph.models.roster import Agent, AgentsSpec, make_roster
from debategraph.nodes.call import CallTask, make_call_node
from debategraph.nodes.decide import make_decide_node
from debategraph.nodes.observe import make_observe_node
from debategraph.nodes.plan import make_dispatch, make_plan_node
from debategraph.nodes.replay import ReplayMarkingCache
from debategraph.nodes.retry import MODEL_RETRY
from debategraph.nodes.route import make_router
from debategraph.nodes.start import make_start_node
from debategraph.policies.answers import AnswerParser
from debategraph.state.context import DebateConfigError, DebateContext
from debategraph.state.debate import (
    DebateOutput,
    DebateRequest,
    DebateState,
    RoundInput,
    RoundOutput,
    RoundState,
)


def resolve_method(method: str | Method[Any]) -> Method[Any]:
    """A ``Method``: a registered name or a ``"package.module:ATTR"`` string is looked up.

    Raises:
        PluginError: Unknown name (the message lists the valid ones) or a broken plugin.
    """
    return get_method(method)


def build_round_graph(
    method: str | Method[Any],
    *,
    agents: AgentsSpec = None,
    call_limiter: Any = None,
    retry_policy: RetryPolicy | None = MODEL_RETRY,
    cache_policy: CachePolicy[Any] | None = None,
    parser: AnswerParser | None = None,
) -> StateGraph[RoundState, DebateContext, RoundInput, RoundOutput]:
    """One debate round: plan -> the phase's calls, one node per speaker -> ``observe``.

    The plan node (named after what the method computes there: ``plan``, ``mdm``, ``svr``,
    ``mask``, ``groups``) asks the method for the next phase; its conditional edge sends each
    call to the node named by its speaker (``a1``, ``a2``, ... and the method's roles, such as
    ``summarizer``); ``observe`` runs once all calls of the phase are in and loops back to the
    plan node, until the planner ends the round.

    Args:
        method: A registered method name, a ``"package.module:ATTR"`` string or a ``Method``.
        agents: The roster: a count, names, or :class:`~debategraph.models.roster.Agent`
            specs (the method's default count if ``None``).
        call_limiter: Bounds in-flight model calls across every graph sharing it.
        retry_policy: Retry policy of every call node (``None``: no retries).
        cache_policy: Optional node cache policy of every call node (compile with a cache).
        parser: How answers are read (default: the task's parser).

    Returns:
        The uncompiled round subgraph.
    """
    m = resolve_method(method)
    roster = make_roster(agents, m.default_agents)
    speakers = [a.name for a in roster] + list(m.roles)
    if m.plan_node in speakers:
        raise DebateConfigError(
            f"an agent is named {m.plan_node!r}, the name of {m.name}'s plan node: rename it"
        )
    graph: StateGraph[RoundState, DebateContext, RoundInput, RoundOutput] = StateGraph(
        RoundState,
        context_schema=DebateContext,
        input_schema=RoundInput,
        output_schema=RoundOutput,
    )
    graph.add_node(m.plan_node, make_plan_node(m, speakers))
    for speaker in speakers:
        graph.add_node(
            speaker,
            make_call_node(
                m, roster, speaker, limiter=call_limiter, parser=parser, retry=retry_policy
            ),
            input_schema=CallTask,
            retry_policy=retry_policy,
            cache_policy=cache_policy,
        )
        graph.add_edge(speaker, "observe")
    graph.add_node("observe", make_observe_node(m), defer=True)
    graph.add_edge(START, m.plan_node)
    graph.add_conditional_edges(m.plan_node, make_dispatch(m, roster), [*speakers, END])
    graph.add_edge("observe", m.plan_node)
    return graph


def build_debate_graph(
    method: str | Method[Any],
    *,
    agents: AgentsSpec = None,
    call_limiter: Any = None,
    retry_policy: RetryPolicy | None = MODEL_RETRY,
    cache_policy: CachePolicy[Any] | None = None,
    cache: BaseCache[Any] | None = None,
    parser: AnswerParser | None = None,
) -> StateGraph[DebateState, DebateContext, DebateRequest, DebateOutput]:
    """The whole debate: ``start``, rounds in a loop until the method stops, then ``decide``.

    The graph is returned uncompiled so that callers choose checkpointer, store and cache::

        graph = build_debate_graph("du", agents=3).compile(checkpointer=InMemorySaver())
        out = graph.invoke({"question": q}, config, context=DebateContext(rounds=2))

    Args:
        method: A registered method name (``debategraph methods`` lists them), a
            ``"package.module:ATTR"`` string or a ``Method``.
        agents: The roster: a count, agent names, or ``Agent(name, model)`` specs binding a
            chat model or an agent runnable to a debater. The method's default count if
            ``None``.
        call_limiter: Bounds in-flight model calls across every graph sharing it (e.g. a
            :class:`~debategraph.nodes.call.CallLimiter`).
        retry_policy: Retry policy of every model call (``None``: no retries).
        cache_policy: Optional node cache policy of every model call.
        cache: The node cache the model calls use (e.g. ``InMemoryCache()``), needed with
            ``cache_policy``: the calls live in the round subgraph, which LangGraph compiles
            with its own cache rather than the parent's.
        parser: How answers are read, ``(response, task, num_choices) -> Extraction``.

    Returns:
        An uncompiled ``StateGraph`` over ``DebateState`` with ``DebateContext`` as context.

    Raises:
        DebateConfigError: A bad roster (no agents, a bad or repeated name), or an unknown
            method (``PluginError``, a subclass).
    """
    m = resolve_method(method)
    roster: tuple[Agent, ...] = make_roster(agents, m.default_agents)
    rounds = build_round_graph(
        m,
        agents=roster,
        call_limiter=call_limiter,
        retry_policy=retry_policy,
        cache_policy=cache_policy,
        parser=parser,
    ).compile(name="round", cache=ReplayMarkingCache.of(cache))
    graph: StateGraph[DebateState, DebateContext, DebateRequest, DebateOutput] = StateGraph(
        DebateState,
        context_schema=DebateContext,
        input_schema=DebateRequest,
        output_schema=DebateOutput,
    )
    graph.add_node("start", make_start_node(m, roster))
    graph.add_node("round", rounds)
    graph.add_node("decide", make_decide_node(m))
    graph.add_edge(START, "start")
    graph.add_edge("start", "round")
    graph.add_conditional_edges("round", make_router(m), ["round", "decide"])
    graph.add_edge("decide", END)
    return graph
