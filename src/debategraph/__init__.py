"""debategraph: multi-agent debate methods as composable LangGraph graphs.

The names below are loaded on first use (PEP 562), so ``import debategraph`` is cheap and a
program pays only for what it touches: listing methods loads no LangGraph, a simulated
debate loads no numpy, networkx or OpenAI client.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys


def _interrupted_while_starting(signum: int, frame: object) -> None:
    os.write(2, b"interrupted\n")
    os._exit(130)


def _is_command_line() -> bool:
    argv = getattr(sys, "argv", None) or [""]
    orig = getattr(sys, "orig_argv", [])
    by_module = any(pair == ("-m", "debategraph") for pair in itertools.pairwise(orig))
    return by_module or os.path.basename(argv[0]) in ("debategraph", "debategraph.exe")


# The command line answers Ctrl-C with one line from its first moment: until its imports are
# done (debategraph.cli then hands SIGINT back to KeyboardInterrupt), there is nothing to save.
if _is_command_line():
    signal.signal(signal.SIGINT, _interrupted_while_starting)

import warnings  # noqa: E402
from importlib import import_module  # noqa: E402
from types import MappingProxyType  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

if TYPE_CHECKING:
    from debategraph.api import DebateConfigError, arun, run
    from debategraph.graphs.compose import debate_node, debate_tool
    from debategraph.graphs.debate import build_debate_graph, build_round_graph
    from debategraph.methods import (
        DebateView,
        GateRule,
        Method,
        Phase,
        gate_from_text,
        gated,
        get_method,
        get_rule,
        list_methods,
        list_rules,
        register_method,
        register_rule,
    )
    from debategraph.methods.cortex import CortexOptions
    from debategraph.methods.groupdebate import GroupDebateOptions
    from debategraph.methods.madm2 import MadM2OOptions, MadM2SOptions
    from debategraph.methods.reconcile import ReconcileOptions
    from debategraph.methods.s2mad import S2MadOptions
    from debategraph.methods.sid_et import SidEtOptions
    from debategraph.methods.svr import SvrOptions
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
    "CortexOptions",
    "DebateConfigError",
    "DebateContext",
    "DebateResult",
    "DebateState",
    "DebateView",
    "GateRule",
    "GroupDebateOptions",
    "MadM2OOptions",
    "MadM2SOptions",
    "Method",
    "MethodOptions",
    "Phase",
    "ReconcileOptions",
    "S2MadOptions",
    "SidEtOptions",
    "SimulatedDebater",
    "SvrOptions",
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
    "GateRule": "debategraph.methods",
    "gate_from_text": "debategraph.methods",
    "gated": "debategraph.methods",
    "get_method": "debategraph.methods",
    "get_rule": "debategraph.methods",
    "list_methods": "debategraph.methods",
    "list_rules": "debategraph.methods",
    "register_method": "debategraph.methods",
    "register_rule": "debategraph.methods",
    "CortexOptions": "debategraph.methods.cortex",
    "GroupDebateOptions": "debategraph.methods.groupdebate",
    "MadM2OOptions": "debategraph.methods.madm2",
    "MadM2SOptions": "debategraph.methods.madm2",
    "ReconcileOptions": "debategraph.methods.reconcile",
    "SvrOptions": "debategraph.methods.svr",
    "S2MadOptions": "debategraph.methods.s2mad",
    "SidEtOptions": "debategraph.methods.sid_et",
    "Agent": "debategraph.models.roster",
    "SimulatedDebater": "debategraph.models.simulated",
    "CallLimiter": "debategraph.nodes.call",
    "Call": "debategraph.state",
    "DebateContext": "debategraph.state",
    "DebateState": "debategraph.state",
    "MethodOptions": "debategraph.state",
    "Turn": "debategraph.state",
}


def __getattr__(name: str) -> Any:
    if name == "METHODS":
        warnings.warn(
            "debategraph.METHODS is read-only and deprecated: use list_methods() / "
            "get_method(name), and register_method() to add one; removed in 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        from debategraph.methods import list_methods

        return MappingProxyType({m.name: m for m in list_methods()})
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
