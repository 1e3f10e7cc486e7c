"""The decision node: applies a decision rule to the whole trajectory."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from debategraph.models.resolve import agent_credibilities
from debategraph.nodes.method import Method
from debategraph.policies.decisions import decide as apply_rule
from debategraph.policies.decisions import rule_options
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
from debategraph.state.views import trajectory


def rule_of(method: Method, ctx: DebateContext) -> str:
    """The decision rule in force: the context's override, else the method's own."""
    return ctx.decision or method.decision


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
            # CortexOptions.fallback_vote lifts the all-differ rule.
            "no_answer_if_all_differ": method.no_answer_if_all_differ
            and not ctx.cortex.fallback_vote,
        }
        options: dict[str, Any] = {k: v for k, v in engine.items() if k in accepted}
        options.update(ctx.options.get("decision_options", {}))
        if rule == "credibility" and "weights" not in options:
            options["weights"] = agent_credibilities(ctx)
        path = trajectory(state["turns"], ctx.agent_names)
        d = apply_rule(rule, path, seed=ctx.seed, **options)
        return {"decision": {"answer": d.answer, "rule": d.rule, "evidence": d.evidence}}

    return decide
