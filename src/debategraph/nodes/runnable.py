"""Nodes native under both ``invoke`` and ``ainvoke``; coroutines run from synchronous code.

The second part matters inside a running event loop (Jupyter), where ``asyncio.run`` fails.

LangGraph runs a plain synchronous node in a thread pool under ``ainvoke``, and an async-only
node cannot run under ``invoke`` at all. A :class:`DualNode` is a public LangChain
``Runnable`` with both paths: the bookkeeping nodes run inline on the event loop, and the
model-call node awaits the model on the loop or calls it synchronously. Nodes read the
LangGraph runtime with ``langgraph.runtime.get_runtime()``; a :class:`DualNode` makes the
run's config current first, because LangGraph calls conditional-edge runnables without it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar, cast

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config

T = TypeVar("T")


class DualNode(Runnable[Any, Any]):
    """A node (or edge function) with a synchronous and an asynchronous implementation.

    Args:
        name: The node's name (for traces and errors).
        func: Called with the node's input under ``invoke``.
        afunc: Awaited with the node's input under ``ainvoke``; without it, ``func`` is
            called inline on the event loop (for quick bookkeeping that never blocks).
    """

    def __init__(
        self,
        name: str,
        func: Callable[[Any], Any],
        afunc: Callable[[Any], Awaitable[Any]] | None = None,
    ) -> None:
        self.name = name
        self.func = func
        self.afunc = afunc

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run the synchronous implementation."""
        token = var_child_runnable_config.set(config) if config is not None else None
        try:
            return self.func(input)
        finally:
            if token is not None:
                var_child_runnable_config.reset(token)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run the asynchronous implementation (or the synchronous one, inline)."""
        token = var_child_runnable_config.set(config) if config is not None else None
        try:
            if self.afunc is None:
                return self.func(input)
            return await self.afunc(input)
        finally:
            if token is not None:
                var_child_runnable_config.reset(token)


def run_sync(awaitable: Awaitable[T]) -> T:
    """Wait for ``awaitable`` from synchronous code, with or without a running event loop.

    Without a running loop in this thread it runs on a fresh loop (``asyncio.run``). Inside a
    running loop (a Jupyter cell, an async web handler calling sync code) it runs on a fresh
    loop in a worker thread, carrying the caller's context variables, and blocks until done.
    """
    coroutine = _as_coroutine(awaitable)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    context = contextvars.copy_context()
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="debategraph") as pool:
        return pool.submit(context.run, asyncio.run, coroutine).result()


def _as_coroutine(awaitable: Awaitable[T]) -> Coroutine[Any, Any, T]:
    if inspect.iscoroutine(awaitable):
        return awaitable

    async def wait() -> T:
        return await awaitable

    return wait()


async def resolve(value: T | Awaitable[T]) -> T:
    """``value``, awaited if it is awaitable (a hook may be sync or async)."""
    if inspect.isawaitable(value):
        return await value
    return value


def resolve_sync(value: T | Awaitable[T]) -> T:
    """``value``, waited for with :func:`run_sync` if it is awaitable."""
    if inspect.isawaitable(value):
        return cast(T, run_sync(value))
    return value
