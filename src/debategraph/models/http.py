"""The HTTP client each event loop's provider model gets."""

from __future__ import annotations

from typing import Any


def async_http_client(proxy: str | None = None) -> Any:
    """A new async HTTP client for one event loop's model (through ``proxy`` if given).

    It is the client the ``openai`` package makes for itself (its transport and connection
    limits): under concurrent calls it costs less CPU per request than a default
    ``httpx.AsyncClient`` (see ``bench/RESULTS-client.md``). Plain httpx where the package
    does not offer one. Its response hook notes the usage of replies the client will reject
    (:mod:`debategraph.models.wire`).
    """
    from debategraph.models.wire import audit_reply

    hooks = {"response": [audit_reply]}
    try:
        from openai import DefaultAsyncHttpxClient
    except ImportError:  # pragma: no cover - older openai packages
        import httpx

        return httpx.AsyncClient(event_hooks=hooks, proxy=proxy)
    return DefaultAsyncHttpxClient(event_hooks=hooks, proxy=proxy)
