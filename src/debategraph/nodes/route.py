"""The loop's router: another round, or the decision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from debategraph.methods.contract import Method
from debategraph.nodes.runnable import DualNode
from debategraph.nodes.view import view_of


def make_router(method: Method[Any]) -> DualNode:
    """After each round, ask the method's ``stop`` hook whether the debate ends."""

    def next_step(state: Mapping[str, Any]) -> Literal["round", "decide"]:
        return "decide" if method.stop(view_of(method, state)) else "round"

    return DualNode("next_step", next_step)
