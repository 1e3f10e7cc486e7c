"""One call to run a debate: ``run(...)`` / ``await arun(...)`` -> ``DebateResult``."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import networkx as nx
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from debategraph.graphs.debate import build_debate_graph
from debategraph.graphs.presets import get_method
from debategraph.models.resolve import ModelConfigError, agent_models, model_label
from debategraph.nodes.method import Method
from debategraph.policies.accounting import (
    mean_input_tokens_per_call,
    ncomm,
    usage_by_kind,
    usage_totals,
)
from debategraph.policies.attack import choose_cut_off
from debategraph.policies.decisions import DECISION_RULES
from debategraph.policies.types import TaskKind
from debategraph.policies.voting import TiePolicy
from debategraph.state.context import DebateContext, ModelSpec, agent_names
from debategraph.state.options import CortexOptions
from debategraph.state.records import Turn
from debategraph.state.views import answer_turns

TURN_FIELDS = (
    "id",
    "agent",
    "round",
    "kind",
    "answer",
    "confidence",
    "read",
    "input_tokens",
    "output_tokens",
    "usage_estimated",
    "latency_s",
    "model",
    "text",
)


class DebateConfigError(ValueError):
    """Invalid debate settings, caught before any model is called."""


@dataclass
class DebateResult:
    """What a debate produced.

    Attributes:
        method: Method name.
        question: The question asked.
        answer: The decided canonical answer, or ``None`` for "no answer".
        decision: ``rule`` and ``evidence`` (votes or scores, ties, abstentions).
        rounds: Debate rounds run after the initial round.
        agents: Each agent's name and model label.
        turns: Every turn record, in order.
        cut_off: Agents that received no peer answers (communication attack).
        adversaries: Adversarial agents and the wrong answer each argued for.
        method_state: Method-specific state (e.g. per-round graphs).
        reference: The reference answer, if given (for evaluation).
    """

    method: str
    question: str
    answer: str | None
    decision: dict[str, Any]
    rounds: int
    agents: list[dict[str, str]]
    turns: list[Turn]
    cut_off: list[str] = field(default_factory=list)
    adversaries: dict[str, str] = field(default_factory=dict)
    method_state: dict[str, Any] = field(default_factory=dict)
    reference: str | None = None

    @property
    def usage(self) -> dict[str, int]:
        """Input, output and total tokens, model calls, and calls with estimated usage."""
        return usage_totals(self.turns)

    @property
    def ncomm(self) -> int:
        """Peer turns delivered to readers (pairwise communications)."""
        return ncomm(self.turns)

    @property
    def abstentions(self) -> int:
        """Agents whose last answer was unparseable."""
        return int(self.decision.get("evidence", {}).get("abstentions", 0))

    @property
    def parse_failures(self) -> int:
        """Answer turns, in any round, whose response had no parseable answer."""
        return sum(t["answer"] is None for t in answer_turns(self.turns))

    @property
    def correct(self) -> bool | None:
        """Whether the answer equals the reference (``None`` without a reference)."""
        if self.reference is None:
            return None
        return self.answer is not None and self.answer == self.reference

    def round_answers(self) -> list[list[str | None]]:
        """Per round, every agent's answer (agents that did not speak carry theirs)."""
        from debategraph.state.views import trajectory

        path = trajectory(self.turns, [a["name"] for a in self.agents])
        return [list(col) for col in zip(*path.answers, strict=True)] if path.answers else []

    def graphs(self) -> list[nx.DiGraph]:
        """Per debate round, the weighted debate graph a method stored (``cortex`` does).

        Edge ``head -> tail`` means the tail may read the head; edges carry ``weight`` and
        ``kept`` (the tail read the head), and ``graph.graph["round"]`` is the debate round.
        Built from the JSON-safe edge lists in ``method_state["graphs"]``; empty for methods
        that store none.
        """
        from debategraph.policies.graphs import digraph_from_edges

        graphs = []
        for stored in self.method_state.get("graphs", []):
            graph = digraph_from_edges(stored["agents"], stored["edges"])
            graph.graph["round"] = stored["round"]
            graphs.append(graph)
        return graphs

    def to_dict(
        self, *, include_text: bool = False, include_prompts: bool = False
    ) -> dict[str, Any]:
        """A JSON-ready dict; model responses and prompts only on request."""
        fields = [f for f in TURN_FIELDS if include_text or f != "text"]
        turns = []
        for t in self.turns:
            row: dict[str, Any] = {f: t.get(f) for f in fields}
            if include_prompts:
                row["prompt"] = t["prompt"]
            turns.append(row)
        answers = answer_turns(self.turns)
        return {
            "method": self.method,
            "question": self.question,
            "answer": self.answer,
            "reference": self.reference,
            "correct": self.correct,
            "decision": self.decision,
            "rounds": self.rounds,
            "agents": self.agents,
            "cut_off": self.cut_off,
            "adversaries": self.adversaries,
            "turns": turns,
            "usage": self.usage,
            "usage_by_kind": usage_by_kind(self.turns),
            "ncomm": self.ncomm,
            "mean_input_tokens_per_call": mean_input_tokens_per_call(self.turns),
            "abstentions": self.abstentions,
            "parse_failures": self.parse_failures,
            "parse_failure_rate": self.parse_failures / len(answers) if answers else 0.0,
            "round_answers": self.round_answers(),
            "method_state": self.method_state,
        }


@cache
def compiled_graph(method: str) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled, checkpointer-free graph of a built-in method (cached)."""
    return build_debate_graph(method).compile(name=method)


def make_context(
    method: Method,
    *,
    agents: int | None = None,
    rounds: int | None = None,
    model: ModelSpec | Sequence[ModelSpec] | None = None,
    base_url: str | None = None,
    seed: int = 0,
    tie_policy: TiePolicy = "first",
    decision: str | None = None,
    anonymize: bool = True,
    stop_on_consensus: bool | None = None,
    cut_off: Sequence[str] = (),
    attack: bool = False,
    attack_ratio: float | None = None,
    adversaries: Mapping[str, str] | None = None,
    options: dict[str, Any] | None = None,
    call_limiter: asyncio.Semaphore | None = None,
    cortex: CortexOptions | Mapping[str, Any] | None = None,
) -> DebateContext:
    """Validated context for ``method``, its defaults filled in.

    The communication attack cuts off the agents named in ``cut_off``, or agents chosen with
    ``choose_cut_off(agents, attack_ratio, seed)`` when ``attack_ratio`` is given (a proportion
    in [0, 1]) or ``attack`` is true (one agent). ``adversaries`` maps agents to the wrong
    answer each argues for in every round. ``call_limiter`` bounds in-flight model calls
    across every debate sharing it (the evaluation runner gives all its debates one).
    ``cortex`` holds the options of the ``cortex`` method: ``CortexOptions`` or a dict of its
    fields.

    Raises:
        DebateConfigError: Bad numbers, names or model specs.
    """
    n = method.default_agents if agents is None else agents
    r = method.default_rounds if rounds is None else rounds
    if n < 1:
        raise DebateConfigError(f"agents must be at least 1, got {n}")
    if r < 0:
        raise DebateConfigError(f"rounds must be 0 or more, got {r}")
    if attack or attack_ratio is not None:
        if cut_off:
            raise DebateConfigError("give either cut_off agents or attack / attack_ratio, not both")
        try:
            cut_off = choose_cut_off(agent_names(n), attack_ratio, seed)
        except ValueError as exc:
            raise DebateConfigError(str(exc)) from None
    if tie_policy not in ("first", "random", "confidence"):
        raise DebateConfigError(
            f"tie policy must be first, random or confidence, got {tie_policy!r}"
        )
    try:
        cortex_options = CortexOptions.coerce(cortex)
        cortex_options.check_embeddings()
    except ValueError as exc:
        raise DebateConfigError(f"cortex options: {exc}") from None
    models: Sequence[ModelSpec]
    if model is None:
        models = ("simulated",)
    elif isinstance(model, str | bytes) or not isinstance(model, Sequence):
        models = (model,)
    else:
        models = tuple(model)
    ctx = DebateContext(
        agents=n,
        rounds=r,
        models=models,
        base_url=base_url,
        seed=seed,
        tie_policy=tie_policy,
        decision=decision,
        anonymize=anonymize,
        stop_on_consensus=stop_on_consensus,
        cut_off=tuple(cut_off),
        adversaries=dict(adversaries or {}),
        options=dict(options or {}),
        call_limiter=call_limiter,
        cortex=cortex_options,
    )
    if decision is not None and decision not in DECISION_RULES:
        raise DebateConfigError(
            f"unknown decision rule {decision!r}; choose one of: {', '.join(DECISION_RULES)}"
        )
    unknown = sorted(set(ctx.cut_off) - set(ctx.agent_names))
    if unknown:
        raise DebateConfigError(f"cut-off agents {unknown} are not among {ctx.agent_names}")
    unknown = sorted(set(ctx.adversaries) - set(ctx.agent_names))
    if unknown:
        raise DebateConfigError(f"adversary agents {unknown} are not among {ctx.agent_names}")
    for agent, target in ctx.adversaries.items():
        if not isinstance(target, str) or not target.strip():
            raise DebateConfigError(f"adversary {agent} needs a non-empty answer, got {target!r}")
    try:
        agent_models(ctx, single_model=method.single_model)
    except ModelConfigError as exc:
        raise DebateConfigError(str(exc)) from None
    return ctx


async def arun(
    question: str,
    *,
    method: str = "du",
    task: TaskKind = "number",
    choices: Sequence[str] | None = None,
    reference: str | None = None,
    config: RunnableConfig | None = None,
    **settings: Any,
) -> DebateResult:
    """Run one debate and return its result.

    Args:
        question: The question, verbatim.
        method: A built-in method name (``debategraph.METHODS``).
        task: Answer kind: ``number``, ``choice`` or ``text``.
        choices: Options of a multiple-choice question.
        reference: The right answer, kept for evaluation and never shown to agents.
        config: LangGraph run config (callbacks, ``max_concurrency``, tags).
        **settings: ``agents``, ``rounds``, ``model``, ``base_url``, ``seed``, ``tie_policy``,
            ``decision``, ``anonymize``, ``stop_on_consensus``, ``cut_off``, ``attack``,
            ``attack_ratio``, ``adversaries``, ``options``, ``call_limiter``, ``cortex``
            (see ``make_context``).

    Raises:
        DebateConfigError: Invalid settings; raised before any model call.
    """
    if not question or not question.strip():
        raise DebateConfigError("the question is empty")
    if task not in ("number", "choice", "text"):
        raise DebateConfigError(f"task must be number, choice or text, got {task!r}")
    try:
        m = get_method(method)
    except ValueError as exc:
        raise DebateConfigError(str(exc)) from None
    ctx = make_context(m, **settings)
    run_config: RunnableConfig = {"recursion_limit": 20 + 4 * ctx.rounds, **(config or {})}
    state = await compiled_graph(method).ainvoke(
        {"question": question, "task": task, "choices": list(choices) if choices else None},
        run_config,
        context=ctx,
    )
    models = agent_models(ctx, single_model=m.single_model)
    decision = state["decision"]
    return DebateResult(
        method=method,
        question=question,
        answer=decision["answer"],
        decision={"rule": decision["rule"], "evidence": decision["evidence"]},
        rounds=state["round"],
        agents=[
            {"name": a, "model": model_label(mm)}
            for a, mm in zip(ctx.agent_names, models, strict=True)
        ],
        turns=state["turns"],
        cut_off=list(ctx.cut_off),
        adversaries=dict(ctx.adversaries),
        method_state=state.get("method_state", {}),
        reference=reference,
    )


def run(question: str, **kwargs: Any) -> DebateResult:
    """Synchronous ``arun``: run one debate and return its result."""
    return asyncio.run(arun(question, **kwargs))
