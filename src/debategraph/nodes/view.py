"""The view every node builds for the method's hooks, from the state and the runtime context."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import get_runtime

from debategraph.methods.contract import DebateView, Method
from debategraph.state.context import DebateContext


def current_context() -> DebateContext:
    """The run's debate context; the documented defaults when the run has none."""
    return DebateContext.of(get_runtime().context)


def view_of(
    method: Method[Any],
    state: Mapping[str, Any],
    *,
    round_: int | None = None,
    phase: int | None = None,
    context: DebateContext | None = None,
) -> DebateView:
    """A :class:`DebateView` of ``state`` at ``round_`` / ``phase`` (default: the state's)."""
    ctx = context or current_context()
    return DebateView(
        method=method,
        state=state,
        context=ctx,
        options=method.options_for(ctx),
        agents=tuple(state.get("agents") or ()),
        round=state.get("round", 0) if round_ is None else round_,
        phase=(state.get("phase") or 0) if phase is None else phase,
    )
