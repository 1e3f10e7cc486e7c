"""The method author's kit: everything a debate method is written with.

A method is a :class:`Method`: prompts plus the hooks that plan each phase's calls, observe
the turns, stop and decide. Register it (:func:`register_method`, an entry point in the
``debategraph.methods`` group, or a ``"package.module:ATTR"`` string) and it runs wherever a
built-in does: ``run``, ``build_debate_graph``, ``debate_node``, ``debate_tool``,
``evaluate``, the command line, sweep files and Studio. The built-in methods live in this
package, one module per method or family, and use nothing but this kit (plus the pure
functions of :mod:`debategraph.policies`, the prompt pieces of :mod:`debategraph.prompts` and
the kit's two parts, :mod:`debategraph.methods.embeddings` and
:mod:`debategraph.methods.grouping`). Every name here is described in
``docs/writing-a-method.md``.

The plugin machinery is not part of the kit: listing and unregistering plugins, entry-point
groups and ``module:ATTR`` loading live in :mod:`debategraph.methods.registry` (methods),
:mod:`debategraph.methods.rules` (decision rules) and :mod:`debategraph.methods.plugins`.
A built-in method's options class is in its module, or ``get_method(name).options``.
"""

from typing import Any

from debategraph.errors import PlanError
from debategraph.methods.contract import (
    LOGPROBS_HELP,
    DebateView,
    Method,
    Phase,
    call,
    debate_calls,
    debate_planner,
    decide_by_rule,
    default_stop,
    initial_calls,
    logprob_request,
    role_decision,
)
from debategraph.methods.registry import get_method, register_method
from debategraph.methods.rules import register_rule
from debategraph.policies.topology import full_reads, ring_reads
from debategraph.policies.types import Decision, Trajectory
from debategraph.prompts.common import (
    FORMATS,
    PromptInput,
    answer_format,
    fenced,
    own_answer_block,
    peer_blocks,
    question_block,
)
from debategraph.state.context import MAX_ROUNDS, DebateConfigError
from debategraph.state.options import MethodOptions, NoOptions
from debategraph.state.records import Call, Turn
from debategraph.state.views import answer_turns, latest_by_agent, trajectory

__all__ = [
    "FORMATS",
    "LOGPROBS_HELP",
    "MAX_ROUNDS",
    "Call",
    "DebateConfigError",
    "DebateView",
    "Decision",
    "Method",
    "MethodOptions",
    "NoOptions",
    "Phase",
    "PlanError",
    "PromptInput",
    "Trajectory",
    "Turn",
    "answer_format",
    "answer_turns",
    "call",
    "debate_calls",
    "debate_planner",
    "decide_by_rule",
    "default_stop",
    "fenced",
    "full_reads",
    "get_method",
    "initial_calls",
    "latest_by_agent",
    "logprob_request",
    "own_answer_block",
    "peer_blocks",
    "question_block",
    "register_method",
    "register_rule",
    "ring_reads",
    "role_decision",
    "trajectory",
]

_ELSEWHERE = {
    **dict.fromkeys(
        (
            "METHOD_GROUP",
            "RULE_GROUP",
            "Plugin",
            "PluginError",
            "list_methods",
            "load_object",
            "method_names",
            "method_plugins",
            "unregister_method",
        ),
        "debategraph.methods.registry",
    ),
    **dict.fromkeys(
        (
            "RuleFn",
            "apply_rule",
            "get_rule",
            "list_rules",
            "rule_options",
            "rule_plugins",
            "unregister_rule",
        ),
        "debategraph.methods.rules",
    ),
    **dict.fromkeys(
        (
            "Binder",
            "Decider",
            "Observer",
            "OptionsT",
            "Planner",
            "PromptFn",
            "StopRule",
            "Topology",
            "group_trajectory",
            "CallKind",
        ),
        "debategraph.methods.contract",
    ),
    **dict.fromkeys(
        (
            "EmbeddingsOptions",
            "EmbeddingsSpec",
            "check_embeddings",
            "embeddings_for",
            "parse_embeddings_spec",
        ),
        "debategraph.methods.embeddings",
    ),
    **dict.fromkeys(("GroupOptions", "make_groups"), "debategraph.methods.grouping"),
    **dict.fromkeys(("GateRule", "gate_from_text", "gated"), "debategraph"),
    **dict.fromkeys(("Answer", "TaskKind"), "debategraph.policies.types"),
    **dict.fromkeys(("majority_vote", "unanimous"), "debategraph.policies.voting"),
    "CONFIDENCE_REQUEST": "debategraph.prompts.common",
    "DebateContext": "debategraph",
}


def __getattr__(name: str) -> Any:
    home = _ELSEWHERE.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise AttributeError(
        f"{name} is not part of the method author's kit (debategraph.methods): "
        f"import it from {home}"
    )
