"""Graph wiring: the round subgraph, the debate loop, composition, and Studio exports.

The methods themselves live in :mod:`debategraph.methods`; the builders load LangGraph when
first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from debategraph.lazy_exports import lazy_dir, lazy_getattr

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

__getattr__ = lazy_getattr(globals(), _HOMES)
__dir__ = lazy_dir(globals())
