"""debategraph: multi-agent debate methods as composable LangGraph graphs."""

from debategraph.graphs import METHODS, build_debate_graph, build_round_graph, get_method
from debategraph.graphs.compose import debate_node, debate_tool
from debategraph.graphs.cortex import CortexOptions
from debategraph.graphs.groupdebate import GroupDebateOptions
from debategraph.graphs.madm2 import MadM2OOptions, MadM2SOptions
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
