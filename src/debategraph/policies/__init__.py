"""Pure debate math: no LangGraph import anywhere in this package."""
