"""A SQLite call cache that fails as a whole, once, and says what to do.

A cache file can be damaged past its header, fill its disk or be read-only. Each would
otherwise surface inside a debate as a bare ``DatabaseError`` or ``OSError``, fail every item
as an error row and advise running the same command again, which meets the same fault. Here
the damage and a read-only file are found when the cache is opened, before any call, and a
failing read or write stops the run at once with one :class:`CacheError` that names the file
and the way out: delete it, point ``--cache`` elsewhere, or run without a cache.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langgraph.cache.base import BaseCache, FullKey, Namespace

from debategraph.state.context import DebateConfigError

_WAY_OUT = "point --cache (cache=) at another file, or run without a cache (--no-cache)"
_PROBE_NS = "debategraph-write-probe"
_SQLITE_READONLY = 8
"""SQLite's primary result code for a write refused to a read-only database or file system."""


class CacheError(DebateConfigError):
    """The call cache file cannot be used; the message names it and what to do."""


def cache_fault(path: Path, exc: BaseException) -> CacheError:
    """The :class:`CacheError` for ``exc``, met reading or writing the cache at ``path``."""
    code = getattr(exc, "errno", None)
    detail = " ".join(str(exc).split()) or type(exc).__name__
    text = detail.lower()
    if code == errno.ENOSPC or "disk is full" in text or "no space left" in text:
        return CacheError(
            f"cache {path} cannot be written: its disk is full ({detail}); free space there, "
            f"or {_WAY_OUT}"
        )
    if (
        code in (errno.EROFS, errno.EACCES, errno.EPERM)
        or getattr(exc, "sqlite_errorcode", 0) & 0xFF == _SQLITE_READONLY
        or "readonly" in text
        or "read-only" in text
        or ("unable to open" in text and not _writable(path))
    ):
        return CacheError(f"cache {path} is read-only ({detail}): make it writable, or {_WAY_OUT}")
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        return CacheError(
            f"cache {path} is damaged ({detail}): delete it (its stored replies are lost), "
            f"or {_WAY_OUT}"
        )
    return CacheError(f"cache {path} cannot be used ({detail}): delete it, or {_WAY_OUT}")


def _writable(path: Path) -> bool:
    """Whether ``path`` and its folder (where SQLite writes its journal) can be written."""
    folder = path.parent
    return (not path.exists() or os.access(path, os.W_OK)) and os.access(folder, os.W_OK | os.X_OK)


def check_cache_file(conn: sqlite3.Connection, path: Path) -> None:
    """Read every page of the cache and try a write (rolled back), before any call.

    Raises:
        CacheError: The file is damaged or cannot be written.
    """
    try:
        verdict = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
        if verdict != ["ok"]:
            first = str(verdict[0]).splitlines()[-1] if verdict else "no verdict"
            raise sqlite3.DatabaseError(f"database disk image is malformed: {first}")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                return  # another process is writing to it: it can be written
            raise
        try:
            conn.execute(
                "INSERT OR REPLACE INTO cache (ns, key, expiry, encoding, val) "
                "VALUES (?, 'probe', NULL, 'null', x'')",
                (_PROBE_NS,),
            )
        finally:
            conn.rollback()
    except (sqlite3.Error, OSError) as exc:
        raise cache_fault(path, exc) from None


class GuardedCache(BaseCache[Any]):
    """A cache whose every failure is a :class:`CacheError` naming its file.

    Args:
        inner: The SQLite cache.
        path: Its file.

    Attributes:
        broken: Whether a read or write has failed (the cache is opened afresh next time).
    """

    def __init__(self, inner: BaseCache[Any], path: Path) -> None:
        super().__init__(serde=inner.serde)
        self.inner = inner
        self.path = path
        self.broken = False

    def _fault(self, exc: Exception) -> CacheError:
        self.broken = True
        return cache_fault(self.path, exc)

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """The cached values of ``keys``."""
        try:
            return self.inner.get(keys)
        except Exception as exc:  # a damaged page or an unreadable stored value
            raise self._fault(exc) from exc

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """The cached values of ``keys``."""
        try:
            return await self.inner.aget(keys)
        except Exception as exc:
            raise self._fault(exc) from exc

    def set(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        """Store ``pairs``."""
        try:
            self.inner.set(pairs)
        except Exception as exc:
            raise self._fault(exc) from exc

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, int | None]]) -> None:
        """Store ``pairs``."""
        try:
            await self.inner.aset(pairs)
        except Exception as exc:
            raise self._fault(exc) from exc

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete the values of ``namespaces`` (all without)."""
        try:
            self.inner.clear(namespaces)
        except Exception as exc:
            raise self._fault(exc) from exc

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete the values of ``namespaces`` (all without)."""
        try:
            await self.inner.aclear(namespaces)
        except Exception as exc:
            raise self._fault(exc) from exc
