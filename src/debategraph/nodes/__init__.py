"""Thin LangGraph node functions: plan, dispatch, agent turn, route, decide."""
