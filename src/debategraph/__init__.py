"""debategraph: multi-agent debate methods as composable LangGraph graphs.

The names below are loaded on first use (PEP 562), so ``import debategraph`` is cheap and a
program pays only for what it touches: listing methods loads no LangGraph, a simulated
debate loads no numpy, networkx or OpenAI client.
"""

from __future__ import annotations

# Only what the interpreter has loaded before any program runs, up to the guard below: a
# Ctrl-C while `signal` loaded `enum` (or `itertools` loaded) would end in a traceback.
import _signal
import os
import sys


def _interrupted_while_starting(signum: int, frame: object) -> None:
    os.write(2, b"interrupted\n")
    os._exit(130)


def _is_command_line() -> bool:
    argv = getattr(sys, "argv", None) or [""]
    orig = getattr(sys, "orig_argv", [])
    by_module = any(orig[k : k + 2] == ["-m", "debategraph"] for k in range(len(orig) - 1))
    return by_module or os.path.basename(argv[0]) in ("debategraph", "debategraph.exe")


# The command line answers Ctrl-C with one line from its first moment: until its imports are
# done (debategraph.cli then hands SIGINT back to KeyboardInterrupt), there is nothing to save.
if _is_command_line():
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)

from typing import TYPE_CHECKING, Any  # noqa: E402

from debategraph.lazy_exports import lazy_dir, lazy_getattr  # noqa: E402

if TYPE_CHECKING:
    from debategraph.api import DebateConfigError, arun, run
    from debategraph.errors import (
        ConfigurationError,
        DataError,
        DebategraphError,
        ModelError,
        PlanError,
    )
    from debategraph.graphs.compose import debate_node, debate_tool
    from debategraph.graphs.debate import build_debate_graph, build_round_graph
    from debategraph.methods import DebateView, Method, Phase, register_method, register_rule
    from debategraph.methods.gate import GateRule, gate_from_text
    from debategraph.methods.registry import gated, get_method, list_methods
    from debategraph.methods.rules import get_rule, list_rules
    from debategraph.models.roster import Agent
    from debategraph.models.simulated import SimulatedDebater
    from debategraph.nodes.call import CallLimiter
    from debategraph.result import DebateResult
    from debategraph.state import Call, DebateContext, DebateState, MethodOptions, Turn

__version__ = "0.2.0"

__all__ = [
    "Agent",
    "Call",
    "CallLimiter",
    "ConfigurationError",
    "DataError",
    "DebateConfigError",
    "DebateContext",
    "DebateResult",
    "DebateState",
    "DebateView",
    "DebategraphError",
    "GateRule",
    "Method",
    "MethodOptions",
    "ModelError",
    "Phase",
    "PlanError",
    "SimulatedDebater",
    "Turn",
    "arun",
    "build_debate_graph",
    "build_round_graph",
    "debate_node",
    "debate_tool",
    "gate_from_text",
    "gated",
    "get_method",
    "get_rule",
    "list_methods",
    "list_rules",
    "register_method",
    "register_rule",
    "run",
]

_HOMES = {
    "run": "debategraph.api",
    "arun": "debategraph.api",
    "DebateConfigError": "debategraph.api",
    "DebateResult": "debategraph.result",
    "build_debate_graph": "debategraph.graphs.debate",
    "build_round_graph": "debategraph.graphs.debate",
    "debate_node": "debategraph.graphs.compose",
    "debate_tool": "debategraph.graphs.compose",
    "DebateView": "debategraph.methods",
    "Method": "debategraph.methods",
    "Phase": "debategraph.methods",
    "GateRule": "debategraph.methods.gate",
    "gate_from_text": "debategraph.methods.gate",
    "gated": "debategraph.methods.registry",
    "get_method": "debategraph.methods.registry",
    "get_rule": "debategraph.methods.rules",
    "list_methods": "debategraph.methods.registry",
    "list_rules": "debategraph.methods.rules",
    "DebategraphError": "debategraph.errors",
    "ConfigurationError": "debategraph.errors",
    "PlanError": "debategraph.errors",
    "ModelError": "debategraph.errors",
    "DataError": "debategraph.errors",
    "register_method": "debategraph.methods",
    "register_rule": "debategraph.methods",
    "Agent": "debategraph.models.roster",
    "SimulatedDebater": "debategraph.models.simulated",
    "CallLimiter": "debategraph.nodes.call",
    "Call": "debategraph.state",
    "DebateContext": "debategraph.state",
    "DebateState": "debategraph.state",
    "MethodOptions": "debategraph.state",
    "Turn": "debategraph.state",
}


_load = lazy_getattr(globals(), _HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES and name.endswith("Options") and name[:1].isupper():
        raise AttributeError(
            f"debategraph has no attribute {name!r}: a built-in method's options class is "
            "in its module (debategraph.methods.cortex.CortexOptions), or "
            "get_method(name).options"
        )
    return _load(name)


__dir__ = lazy_dir(globals())
