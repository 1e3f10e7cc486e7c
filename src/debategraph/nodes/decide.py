"""The decision node: applies a decision rule to the whole trajectory."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from debategraph.nodes.method import Method
from debategraph.policies.decisions import decide as apply_rule
from debategraph.policies.decisions import rule_options
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
from debategraph.state.views import trajectory


def rule_of(method: Method, ctx: DebateContext) -> str:
    """The decision rule in force: the context's override, else the method's own."""
    return ctx.decision or method.decision


def credibility_weights(ctx: DebateContext, *, single_model: bool = False) -> list[float]:
    """Each agent's CortexDebate credibility 1/L(N, M), from its model's size."""
    from debategraph.models.resolve import agent_model, model_label
    from debategraph.policies.mdm import credibility, lookup_model_size

    weights = []
    for i in range(ctx.agents):
        label = model_label(agent_model(ctx, i, single_model=single_model))
        weights.append(credibility(*lookup_model_size(label)))
    return weights


def make_decide_node(method: Method) -> Any:
    """Decision node for ``method``; ``context.decision`` overrides the method's rule.

    Rule options come from ``context.options["decision_options"]`` (e.g. Free-MAD's
    ``weights``); the engine adds the tie policy, the all-differ rule and, for
    ``credibility``, the agents' credibility weights.
    """

    def decide(state: DebateState, runtime: Runtime[DebateContext]) -> dict[str, Any]:
        ctx = runtime.context
        rule = rule_of(method, ctx)
        accepted = rule_options(rule)
        engine: dict[str, Any] = {
            "tie_policy": ctx.tie_policy,
            "no_answer_if_all_differ": method.no_answer_if_all_differ,
        }
        options: dict[str, Any] = {k: v for k, v in engine.items() if k in accepted}
        options.update(ctx.options.get("decision_options", {}))
        if rule == "credibility" and "weights" not in options:
            options["weights"] = credibility_weights(ctx, single_model=method.single_model)
        path = trajectory(state["turns"], ctx.agent_names)
        d = apply_rule(rule, path, seed=ctx.seed, **options)
        return {"decision": {"answer": d.answer, "rule": d.rule, "evidence": d.evidence}}

    return decide
