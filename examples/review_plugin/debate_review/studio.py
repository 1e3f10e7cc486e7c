"""The review method's graph for LangGraph Studio (``langgraph.json`` points here)."""

from debategraph.graphs.studio import graph

review = graph("debate_review:REVIEW")
