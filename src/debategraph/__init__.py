"""debategraph: multi-agent debate methods as composable LangGraph graphs."""

from debategraph.graphs import METHODS, build_debate_graph, build_round_graph, get_method
from debategraph.models.simulated import SimulatedDebater
from debategraph.run import DebateConfigError, DebateResult, arun, run
from debategraph.state import CortexOptions, DebateContext, DebateState

__all__ = [
    "METHODS",
    "CortexOptions",
    "DebateConfigError",
    "DebateContext",
    "DebateResult",
    "DebateState",
    "SimulatedDebater",
    "arun",
    "build_debate_graph",
    "build_round_graph",
    "get_method",
    "run",
]
