"""Typed shared state of a debate: calls, turn records, the run context, method options."""

from debategraph.state.context import DebateConfigError, DebateContext
from debategraph.state.debate import DebateInput, DebateOutput, DebateRequest, DebateState
from debategraph.state.options import MethodOptions, NoOptions
from debategraph.state.records import Call, CallKind, Turn

__all__ = [
    "Call",
    "CallKind",
    "DebateConfigError",
    "DebateContext",
    "DebateInput",
    "DebateOutput",
    "DebateRequest",
    "DebateState",
    "MethodOptions",
    "NoOptions",
    "Turn",
]
