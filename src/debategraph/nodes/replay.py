"""Telling a replayed call from a paid one: the call cache marks what it serves.

LangGraph's node cache hands back a call node's stored writes instead of running the node,
so a replayed turn would otherwise look exactly like the paid one it copies: same tokens,
same latency. :class:`ReplayMarkingCache` wraps the cache the call nodes use and marks every
turn it serves with ``cached: true``; the stored value itself is left as it was written, so
the flag says what happened in *this* run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.cache.base import BaseCache, FullKey, Namespace

TURNS_CHANNEL = "turns"
"""The state channel the call nodes write their turn to."""


def mark_replayed(writes: Any) -> Any:
    """``writes`` (a node's stored ``(channel, value)`` pairs) with their turns marked cached."""
    if not isinstance(writes, Sequence) or isinstance(writes, str):
        return writes
    marked: list[Any] = []
    for write in writes:
        if (
            isinstance(write, list | tuple)
            and len(write) == 2
            and write[0] == TURNS_CHANNEL
            and isinstance(write[1], list)
        ):
            turns = [{**t, "cached": True} if isinstance(t, Mapping) else t for t in write[1]]
            write = [write[0], turns] if isinstance(write, list) else (write[0], turns)
        marked.append(write)
    rebuilt: Any = type(writes)
    return rebuilt(marked)


class ReplayMarkingCache(BaseCache[Any]):
    """A node cache whose hits come back with their turns marked ``cached: true``.

    Args:
        inner: The cache that stores the calls (SQLite, in memory, ...).
    """

    def __init__(self, inner: BaseCache[Any]) -> None:
        super().__init__(serde=inner.serde)
        self.inner = inner

    @staticmethod
    def of(cache: BaseCache[Any] | None) -> BaseCache[Any] | None:
        """``cache`` wrapped (once), or ``None``."""
        if cache is None or isinstance(cache, ReplayMarkingCache):
            return cache
        return ReplayMarkingCache(cache)

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """The cached writes of ``keys``, their turns marked."""
        return {key: mark_replayed(value) for key, value in self.inner.get(keys).items()}

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """The cached writes of ``keys``, their turns marked."""
        found = await self.inner.aget(keys)
        return {key: mark_replayed(value) for key, value in found.items()}

    def set(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        """Store ``pairs`` as they are."""
        self.inner.set(pairs)

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        """Store ``pairs`` as they are."""
        await self.inner.aset(pairs)

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete the values of ``namespaces`` (all without)."""
        self.inner.clear(namespaces)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete the values of ``namespaces`` (all without)."""
        await self.inner.aclear(namespaces)
