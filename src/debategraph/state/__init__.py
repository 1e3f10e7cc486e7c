"""Typed shared state of a debate: turn records, the per-round plan, the run context."""

from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateInput, DebateState
from debategraph.state.options import CortexOptions
from debategraph.state.records import AgentPlan, Turn

__all__ = ["AgentPlan", "CortexOptions", "DebateContext", "DebateInput", "DebateState", "Turn"]
