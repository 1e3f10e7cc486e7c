"""debategraph: multi-agent debate methods as composable LangGraph graphs.

The names below are loaded on first use (PEP 562), so ``import debategraph`` is cheap and a
program pays only for what it touches: listing methods loads no LangGraph, a simulated
debate loads no numpy, networkx or OpenAI client. ``from debategraph import run`` and
``debategraph.run(...)`` work as before.
"""

from __future__ import annotations

import sys as _sys
import types as _types
from importlib import import_module as _import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from debategraph.graphs.compose import debate_node, debate_tool
    from debategraph.graphs.cortex import CortexOptions
    from debategraph.graphs.debate import build_debate_graph, build_round_graph
    from debategraph.graphs.groupdebate import GroupDebateOptions
    from debategraph.graphs.madm2 import MadM2OOptions, MadM2SOptions
    from debategraph.graphs.presets import METHODS, get_method
    from debategraph.graphs.svr import SvrOptions
    from debategraph.models.roster import Agent
    from debategraph.models.simulated import SimulatedDebater
    from debategraph.nodes.call import CallLimiter
    from debategraph.nodes.method import DebateView, Method, Phase
    from debategraph.run import DebateConfigError, DebateResult, arun, run
    from debategraph.state import Call, DebateContext, DebateState, MethodOptions, Turn

__all__ = [
    "METHODS",
    "Agent",
    "Call",
    "CallLimiter",
    "CortexOptions",
    "DebateConfigError",
    "DebateContext",
    "DebateResult",
    "DebateState",
    "DebateView",
    "GroupDebateOptions",
    "MadM2OOptions",
    "MadM2SOptions",
    "Method",
    "MethodOptions",
    "Phase",
    "SimulatedDebater",
    "SvrOptions",
    "Turn",
    "arun",
    "build_debate_graph",
    "build_round_graph",
    "debate_node",
    "debate_tool",
    "get_method",
    "run",
]

_HOMES = {
    "METHODS": "debategraph.graphs.presets",
    "get_method": "debategraph.graphs.presets",
    "build_debate_graph": "debategraph.graphs.debate",
    "build_round_graph": "debategraph.graphs.debate",
    "debate_node": "debategraph.graphs.compose",
    "debate_tool": "debategraph.graphs.compose",
    "CortexOptions": "debategraph.graphs.cortex",
    "GroupDebateOptions": "debategraph.graphs.groupdebate",
    "MadM2OOptions": "debategraph.graphs.madm2",
    "MadM2SOptions": "debategraph.graphs.madm2",
    "SvrOptions": "debategraph.graphs.svr",
    "Agent": "debategraph.models.roster",
    "SimulatedDebater": "debategraph.models.simulated",
    "CallLimiter": "debategraph.nodes.call",
    "DebateView": "debategraph.nodes.method",
    "Method": "debategraph.nodes.method",
    "Phase": "debategraph.nodes.method",
    "DebateConfigError": "debategraph.run",
    "DebateResult": "debategraph.run",
    "arun": "debategraph.run",
    "Call": "debategraph.state",
    "DebateContext": "debategraph.state",
    "DebateState": "debategraph.state",
    "MethodOptions": "debategraph.state",
    "Turn": "debategraph.state",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


class _Package(_types.ModuleType):
    """The package module, with ``run`` the function rather than the submodule.

    Importing ``debategraph.run`` binds the submodule as the package's ``run`` attribute; the
    eager package used to rebind the function over it. Here ``run`` is always the function
    (loaded on first use), as ``from debategraph import run`` has always given.
    """

    @property
    def run(self) -> Any:
        from debategraph.run import run

        return run

    @run.setter
    def run(self, value: Any) -> None:
        # The import system binds the ``debategraph.run`` submodule here; keep the function.
        pass


_sys.modules[__name__].__class__ = _Package
