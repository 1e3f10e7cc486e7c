"""Thin LangGraph nodes: start, plan (and its dispatch edge), call, observe, route, decide."""
