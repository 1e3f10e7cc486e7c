"""Nodes that run natively under both ``invoke`` and ``ainvoke``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph._internal._runnable import RunnableCallable


def both_ways(fn: Callable[..., Any], name: str) -> RunnableCallable:
    """Wrap a quick, non-blocking sync node so ``ainvoke`` calls it on the event loop.

    LangGraph otherwise runs a sync node in a thread pool under ``ainvoke``; for pure
    bookkeeping nodes that hop costs more than the work. ``RunnableCallable`` is LangGraph's
    own node runnable (``langgraph.prebuilt.ToolNode`` builds on it) and injects ``runtime``
    from the sync function's signature into both paths.
    """

    async def on_loop(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return RunnableCallable(fn, on_loop, name=name)
