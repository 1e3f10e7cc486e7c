"""Graph wiring: the round subgraph, the debate loop, method presets.

``METHODS`` and ``get_method`` come from :mod:`debategraph.graphs.presets`, which builds the
method objects without LangGraph; the graph builders load LangGraph when first asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from debategraph.graphs.debate import build_debate_graph, build_round_graph
    from debategraph.graphs.presets import METHODS, get_method

__all__ = ["METHODS", "build_debate_graph", "build_round_graph", "get_method"]

_HOMES = {
    "METHODS": "debategraph.graphs.presets",
    "get_method": "debategraph.graphs.presets",
    "build_debate_graph": "debategraph.graphs.debate",
    "build_round_graph": "debategraph.graphs.debate",
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
