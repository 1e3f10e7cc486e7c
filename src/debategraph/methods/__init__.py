"""Debate methods: the contract, the registry, and everything a method author needs.

A method is a :class:`Method`: prompts plus the hooks that plan each phase's calls, observe
the turns, stop and decide. Register it (:func:`register_method`, an entry point in the
``debategraph.methods`` group, or a ``"package.module:ATTR"`` string) and it runs wherever a
built-in does: ``run``, ``build_debate_graph``, ``debate_node``, ``debate_tool``,
``evaluate``, the command line, sweep files and Studio. The built-in methods live in this
package, one module per method or family, and use nothing but what this module exports
(plus the pure functions of :mod:`debategraph.policies` and the prompt pieces of
:mod:`debategraph.prompts`). See ``docs/writing-a-method.md``.
"""

from debategraph.methods.contract import (
    LOGPROBS_HELP,
    Binder,
    DebateView,
    Decider,
    Method,
    Observer,
    OptionsT,
    Phase,
    PlanError,
    Planner,
    PromptFn,
    StopRule,
    Topology,
    call,
    debate_calls,
    debate_planner,
    decide_by_rule,
    default_stop,
    group_trajectory,
    initial_calls,
    logprob_request,
)
from debategraph.methods.registry import (
    METHOD_GROUP,
    RULE_GROUP,
    Plugin,
    PluginError,
    get_method,
    get_rule,
    list_methods,
    list_rules,
    load_object,
    method_names,
    method_plugins,
    register_method,
    register_rule,
    rule_plugins,
    unregister_method,
    unregister_rule,
)
from debategraph.models.embeddings import (
    EmbeddingsSpec,
    check_embeddings,
    embeddings_for,
    parse_embeddings_spec,
)
from debategraph.policies.decisions import RuleFn, apply_rule, rule_options
from debategraph.policies.topology import full_reads, ring_reads
from debategraph.policies.types import Answer, Decision, TaskKind, Trajectory
from debategraph.policies.voting import majority_vote, unanimous
from debategraph.prompts.common import (
    CONFIDENCE_REQUEST,
    FORMATS,
    PromptInput,
    answer_format,
    fenced,
    own_answer_block,
    peer_blocks,
    question_block,
)
from debategraph.state.context import MAX_ROUNDS, DebateConfigError, DebateContext
from debategraph.state.options import MethodOptions, NoOptions
from debategraph.state.records import Call, CallKind, Turn
from debategraph.state.views import answer_turns, latest_by_agent, trajectory

__all__ = [
    "CONFIDENCE_REQUEST",
    "FORMATS",
    "LOGPROBS_HELP",
    "MAX_ROUNDS",
    "METHOD_GROUP",
    "RULE_GROUP",
    "Answer",
    "Binder",
    "Call",
    "CallKind",
    "DebateConfigError",
    "DebateContext",
    "DebateView",
    "Decider",
    "Decision",
    "EmbeddingsSpec",
    "GateRule",
    "Method",
    "MethodOptions",
    "NoOptions",
    "Observer",
    "OptionsT",
    "Phase",
    "PlanError",
    "Planner",
    "Plugin",
    "PluginError",
    "PromptFn",
    "PromptInput",
    "RuleFn",
    "StopRule",
    "TaskKind",
    "Topology",
    "Trajectory",
    "Turn",
    "answer_format",
    "answer_turns",
    "apply_rule",
    "call",
    "check_embeddings",
    "debate_calls",
    "debate_planner",
    "decide_by_rule",
    "default_stop",
    "embeddings_for",
    "fenced",
    "full_reads",
    "gate_from_text",
    "gated",
    "get_method",
    "get_rule",
    "group_trajectory",
    "initial_calls",
    "latest_by_agent",
    "list_methods",
    "list_rules",
    "load_object",
    "logprob_request",
    "majority_vote",
    "method_names",
    "method_plugins",
    "own_answer_block",
    "parse_embeddings_spec",
    "peer_blocks",
    "question_block",
    "register_method",
    "register_rule",
    "ring_reads",
    "rule_options",
    "rule_plugins",
    "trajectory",
    "unanimous",
    "unregister_method",
    "unregister_rule",
]

# Last: the gate wraps methods with the kit above (it imports from this module).
from debategraph.methods.gate import GateRule, gate_from_text, gated
