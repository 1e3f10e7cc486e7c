"""The observe node: after every phase, the method folds the new turns into its state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debategraph.methods.contract import Method
from debategraph.nodes.runnable import DualNode, resolve, resolve_sync
from debategraph.nodes.view import view_of


def _decision_phase(state: Mapping[str, Any]) -> bool:
    """The phase was a decision rule's own call (the judge's): not the method's to fold in."""
    calls = state.get("calls") or ()
    return bool(calls) and all(c["kind"] == "decision" for c in calls)


def make_observe_node(method: Method[Any]) -> DualNode:
    """Observe node for ``method``: merges what its ``observe`` hook returns (sync or async)."""
    hook = method.observe

    def update(result: Mapping[str, Any] | None) -> dict[str, Any]:
        return {"method_state": dict(result)} if result else {}

    def observe(state: Mapping[str, Any]) -> dict[str, Any]:
        if hook is None or _decision_phase(state):
            return {}
        return update(resolve_sync(hook(view_of(method, state))))

    async def aobserve(state: Mapping[str, Any]) -> dict[str, Any]:
        if hook is None or _decision_phase(state):
            return {}
        return update(await resolve(hook(view_of(method, state))))

    return DualNode("observe", observe, aobserve)
