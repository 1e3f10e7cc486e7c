"""A user's OpenAI-style chat model object, served to each event loop with a client of its own.

``dg.run(q, models=ChatOpenAI(...))`` runs its debate on a fresh event loop, and so does the
next ``dg.run`` (and every ``evaluate``). ``langchain-openai`` gives every ``ChatOpenAI`` made
without an ``http_async_client`` one process-wide async HTTP client per base URL and timeout,
whose pooled connections belong to the loop that opened them: the second run reuses a
connection of the first, closed loop and fails with ``RuntimeError: Event loop is closed``.

The fix here gives each event loop its own copy of the user's model (``model_copy``: the same
settings, the same key, the same class, subclasses included) whose ``AsyncOpenAI`` client is
the user's client re-made (``AsyncOpenAI.copy``: base URL, key, headers, query, timeout kept)
around a new HTTP client that lives and dies with that loop. The user's object itself is never
touched, so it keeps working in the user's own code, synchronous or not. Alternatives were
worse: resetting the shared client's pool would break the user's concurrent use of it, and
rebuilding the model from its fields would pick the same cached client again.

The copy has no retries of its own when the user set none (the call node's retry policy is
the one retry layer, so "attempt n of N" counts requests); a ``max_retries`` the user set is
kept. A model built with its own ``http_async_client`` (and no ``openai_proxy``) keeps that
client: it is the user's, and may carry settings a new client would lose.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

_COPIES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, tuple[Any, Any]]] = (
    weakref.WeakKeyDictionary()
)


def _openai_style(model: object) -> bool:
    """Whether ``model`` is a ``langchain-openai`` chat model (without importing it)."""
    names = {cls.__name__ for cls in type(model).__mro__}
    return "BaseChatOpenAI" in names and getattr(model, "root_async_client", None) is not None


def _owns_http_client(model: Any) -> bool:
    return getattr(model, "http_async_client", None) is not None and not getattr(
        model, "openai_proxy", None
    )


def for_this_loop(model: Any) -> Any:
    """``model``, or its copy for the running event loop when it is an OpenAI-style model.

    Outside a running loop (the synchronous path, which uses the model's synchronous
    client) and for any other model, ``model`` itself.
    """
    if not _openai_style(model) or _owns_http_client(model):
        return model
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return model
    copies = _COPIES.setdefault(loop, {})
    hit = copies.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    copy = _loop_copy(model)
    copies[id(model)] = (model, copy)
    return copy


def _loop_copy(model: Any) -> Any:
    from debategraph.models.http import async_http_client

    http = async_http_client(proxy=getattr(model, "openai_proxy", None))
    options: dict[str, Any] = {"http_client": http}
    if getattr(model, "max_retries", None) is None:
        options["max_retries"] = 0
    client = model.root_async_client.copy(**options)
    update: dict[str, Any] = {"root_async_client": client, "async_client": client.chat.completions}
    if getattr(model, "openai_proxy", None):
        update["http_async_client"] = http
    return model.model_copy(update=update)
