"""The decision node: the method's ``decide`` hook over the whole debate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debategraph.methods.contract import Method
from debategraph.nodes.runnable import DualNode
from debategraph.nodes.view import view_of


def make_decide_node(method: Method[Any]) -> DualNode:
    """Decision node for ``method`` (its ``decide`` hook; a named rule by default)."""

    def decide(state: Mapping[str, Any]) -> dict[str, Any]:
        d = method.decide(view_of(method, state))
        return {"decision": {"answer": d.answer, "rule": d.rule, "evidence": d.evidence}}

    return DualNode("decide", decide)
