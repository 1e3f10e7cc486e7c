"""A debate as one node or one tool of a larger LangGraph / LangChain app.

The debate keeps its own state and settings: the node reads one key of the parent's state (the
question) and writes one key (the outcome), so nothing else of the parent is read or
overwritten, and the parent's own context, whatever its type, is left alone. The outcome is a
small JSON-safe dict::

    {"answer": "15", "decision": {"rule": ..., "evidence": ...}, "usage": {...},
     "ncomm": 6, "rounds": 2, "method": "du"}

Inside a parent compiled with a checkpointer, the debate runs as a subgraph of the node and
checkpoints under it; a parent interrupted after the debate resumes without debating again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from debategraph.methods.contract import Method
from debategraph.models.roster import AgentsSpec
from debategraph.nodes.runnable import DualNode
from debategraph.policies.accounting import ncomm, rounds_with_calls, usage_totals
from debategraph.state.context import DebateConfigError, DebateContext


def _inputs(value: object, key: str) -> dict[str, Any]:
    if isinstance(value, str):
        return {"question": value}
    if isinstance(value, Mapping) and isinstance(value.get("question"), str):
        return {k: value[k] for k in ("question", "task", "choices") if k in value}
    raise DebateConfigError(
        f"the debate node reads a question from state[{key!r}]: a string, or a dict with "
        f"'question' (and optionally 'task', 'choices'); got {value!r}"
    )


def _prepare(
    method: str | Method[Any],
    agents: AgentsSpec,
    context: DebateContext | Mapping[str, Any] | None,
    components: Mapping[str, Any],
) -> tuple[Method[Any], DebateContext, Any]:
    """The method, the checked context and the compiled debate graph."""
    from debategraph.graphs.debate import build_debate_graph, resolve_method
    from debategraph.models.roster import make_roster
    from debategraph.nodes.start import check_settings

    m = resolve_method(method)
    roster = make_roster(agents, m.default_agents)
    ctx = DebateContext.of(context)
    check_settings(m, roster, ctx)
    graph = build_debate_graph(m, agents=roster, **components).compile(name=m.name)
    return m, ctx, graph


def outcome(method: str, final: Mapping[str, Any]) -> dict[str, Any]:
    """The slim, JSON-safe outcome of a finished debate state."""
    decision = final["decision"]
    return {
        "method": method,
        "answer": decision["answer"],
        "decision": {"rule": decision["rule"], "evidence": decision["evidence"]},
        "usage": usage_totals(final["turns"]),
        "ncomm": ncomm(final["turns"]),
        "rounds": rounds_with_calls(final["turns"]),
    }


def debate_node(
    method: str | Method = "du",
    *,
    agents: AgentsSpec = None,
    context: DebateContext | Mapping[str, Any] | None = None,
    input_key: str = "question",
    output_key: str = "debate",
    **components: Any,
) -> DualNode:
    """A node that debates ``state[input_key]`` and writes the outcome to ``state[output_key]``.

    Example::

        app = StateGraph(AppState)
        app.add_node("debate", debate_node("cortex", context={"rounds": 2}))

    Args:
        method: A method name or ``Method``.
        agents: The roster (a count, names, or ``Agent`` specs with their models).
        context: The debate's settings (a ``DebateContext`` or a dict of its fields); the
            parent's own context is not used.
        input_key: The parent state key holding the question (a string, or a dict with
            ``question`` and optionally ``task`` and ``choices``).
        output_key: The parent state key the outcome is written to.
        **components: Passed to ``build_debate_graph`` (``call_limiter``, ``retry_policy``,
            ``cache_policy``, ``cache``, ``parser``).

    Returns:
        A node (a LangChain ``Runnable``) for ``StateGraph.add_node``.

    Raises:
        DebateConfigError: Bad settings, found when the node is made.
    """
    m, ctx, graph = _prepare(method, agents, context, components)

    def run(state: Mapping[str, Any]) -> dict[str, Any]:
        final = graph.invoke(_inputs(state.get(input_key), input_key), context=ctx)
        return {output_key: outcome(m.name, final)}

    async def arun(state: Mapping[str, Any]) -> dict[str, Any]:
        final = await graph.ainvoke(_inputs(state.get(input_key), input_key), context=ctx)
        return {output_key: outcome(m.name, final)}

    return DualNode(f"debate:{m.name}", run, arun)


def debate_tool(
    method: str | Method = "du",
    *,
    agents: AgentsSpec = None,
    context: DebateContext | Mapping[str, Any] | None = None,
    name: str = "debate",
    description: str | None = None,
    **components: Any,
) -> BaseTool:
    """A LangChain tool that answers a question by a debate (e.g. for an agent's tool list).

    The tool takes ``question`` (and optionally ``task``: ``number``, ``choice``, ``math`` or
    ``text``) and returns the outcome dict (answer, decision, usage, NComm, rounds).

    Args:
        method: A method name or ``Method``.
        agents: The roster.
        context: The debate's settings.
        name: The tool's name.
        description: The tool's description (a default names the method).
        **components: Passed to ``build_debate_graph``.

    Returns:
        A ``StructuredTool`` with sync and async implementations.
    """
    m, ctx, graph = _prepare(method, agents, context, components)

    def debate(question: str, task: str = "number") -> dict[str, Any]:
        return outcome(m.name, graph.invoke({"question": question, "task": task}, context=ctx))

    async def adebate(question: str, task: str = "number") -> dict[str, Any]:
        final = await graph.ainvoke({"question": question, "task": task}, context=ctx)
        return outcome(m.name, final)

    return StructuredTool.from_function(
        func=debate,
        coroutine=adebate,
        name=name,
        description=description
        or f"Answer a question by a multi-agent debate ({m.name}: {m.description}) "
        "Returns the answer, the decision's evidence and the token usage.",
    )


__all__ = ["debate_node", "debate_tool", "outcome"]
