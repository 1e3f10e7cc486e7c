"""Graph wiring: the round subgraph, the debate loop, composition, and Studio exports.

The methods themselves live in :mod:`debategraph.methods`; the builders load LangGraph when
first asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from debategraph.graphs.compose import debate_node, debate_tool
    from debategraph.graphs.debate import build_debate_graph, build_round_graph

__all__ = ["build_debate_graph", "build_round_graph", "debate_node", "debate_tool"]

_HOMES = {
    "build_debate_graph": "debategraph.graphs.debate",
    "build_round_graph": "debategraph.graphs.debate",
    "debate_node": "debategraph.graphs.compose",
    "debate_tool": "debategraph.graphs.compose",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
