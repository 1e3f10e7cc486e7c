"""Graph wiring: the round subgraph, the debate loop, method presets."""

from debategraph.graphs.debate import build_debate_graph, build_round_graph
from debategraph.graphs.presets import METHODS, get_method

__all__ = ["METHODS", "build_debate_graph", "build_round_graph", "get_method"]
