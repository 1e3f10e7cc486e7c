"""The loop's router: another round, or the decision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from debategraph.errors import PlanError
from debategraph.methods.contract import Method
from debategraph.nodes.runnable import DualNode
from debategraph.nodes.view import view_of


def make_router(method: Method[Any]) -> DualNode:
    """After each round, ask the method's ``stop`` hook whether the debate ends.

    A hook that would go on past the most rounds the method may run (``round_bound``, by
    default the rounds in force) is stopped with a :class:`PlanError` naming it, before the
    graph runs out of steps.
    """

    def next_step(state: Mapping[str, Any]) -> Literal["round", "decide"]:
        view = view_of(method, state)
        if method.stop(view):
            return "decide"
        bound = method.max_rounds(view)
        if view.round >= bound:
            hook = getattr(method.stop, "__qualname__", None) or repr(method.stop)
            module = getattr(method.stop, "__module__", None)
            where = f"{module}.{hook}" if module else hook
            raise PlanError(
                f"{method.name}: its stop hook {where} did not end the debate after round "
                f"{view.round}, the last it may run ({bound} debate rounds: the rounds in force, "
                "or the method's round_bound); make it return True by then"
            )
        return "round"

    return DualNode("next_step", next_step)
