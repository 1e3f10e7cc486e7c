"""The model-call cache: one key per call, and a SQLite store that keeps no secret.

A call is cached under everything that decides its reply: the call itself (speaker, round,
template, variables), the question, the text of every turn it reads and of the speaker's
history, the model, the generation settings and the seed. A turn's timing and token counts
are left out, so a repeated debate whose replies come from the cache builds the very same
calls in every later round and finds them cached too. Two agents (or self-consistency
samples) sending one prompt to one model are different calls and never share a reply.

What the store writes is redacted like results (configured secrets and key-shaped strings
become ``[redacted]``), and keys are computed from redacted text, so a replay that reads a
redacted reply finds the next call under the same key.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections import deque
from pathlib import Path
from typing import Any

from langgraph.cache.base import BaseCache
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from debategraph.nodes.cache_guard import GuardedCache, cache_fault, check_cache_file
from debategraph.policies.secrets import Redactor
from debategraph.state.context import DebateConfigError
from debategraph.state.records import Turn

VOLATILE_TURN_FIELDS = frozenset(
    {
        "latency_s",
        "attempts",
        "input_tokens",
        "output_tokens",
        "usage_estimated",
        "cached_input_tokens",
        "reasoning_tokens",
        "cached",
    }
)
"""Turn fields that differ between two runs of the same call; no part of a cache key (a
replayed turn is marked ``cached``, and a later call that reads it must find its own reply)."""

SQLITE_HEADER = b"SQLite format 3\x00"


def _stable(turn: Turn) -> dict[str, Any]:
    return {k: v for k, v in turn.items() if k not in VOLATILE_TURN_FIELDS}


def call_cache_key(task: Any) -> str:
    """The cache key of a call payload (a :class:`~debategraph.nodes.call.CallTask`)."""
    material = {
        "call": task["call"],
        "question": task["question"],
        "task": task["task"],
        "choices": task["choices"],
        "reads": [_stable(t) for t in task["reads"]],
        "history": [_stable(t) for t in task["history"]],
        "model_kwargs": task["model_kwargs"],
        "seed": task["seed"],
        "identity": task["identity"],
    }
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(Redactor.from_environment()(text).encode("utf-8")).hexdigest()


def redact_tree(value: Any, redact: Redactor) -> Any:
    """``value`` with every string in it redacted; containers keep their types."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redact_tree(v, redact) for k, v in value.items()}
    if isinstance(value, list | tuple | deque):
        return type(value)(redact_tree(v, redact) for v in value)
    return value


class RedactingSerializer:
    """A LangGraph serializer that redacts every string before it writes it."""

    def __init__(self, inner: Any = None) -> None:
        self.inner = inner or JsonPlusSerializer()

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """Serialise ``obj`` with its secrets redacted."""
        dumped: tuple[str, bytes] = self.inner.dumps_typed(
            redact_tree(obj, Redactor.from_environment())
        )
        return dumped

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """Read back what :meth:`dumps_typed` wrote."""
        return self.inner.loads_typed(data)


def check_cache_path(path: Path) -> None:
    """Check, before any call, that ``path`` can hold the call cache.

    Raises:
        DebateConfigError: A directory, a file that is not a SQLite database, or a place
            that cannot be written; the message says which and what to do.
    """
    if path.is_dir():
        raise DebateConfigError(
            f"cache {path} is a directory: give a file path such as {path / 'calls.sqlite'}"
        )
    if path.exists():
        try:
            with path.open("rb") as file:
                header = file.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise DebateConfigError(f"cannot read cache {path}: {exc.strerror or exc}") from None
        if header and header != SQLITE_HEADER:
            raise DebateConfigError(
                f"cache {path} is not a SQLite database (made by another program?): "
                "give a new file path, or delete it"
            )
        return
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not _writable(parent):
        raise DebateConfigError(f"cannot create cache {path}: {parent} is not writable")


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def open_sqlite_cache(path: Path) -> BaseCache[Any]:
    """A SQLite call cache at ``path`` that writes no secret, checked before any call.

    Every page is read and a write is tried (and rolled back), so a damaged or read-only
    file is refused here; a read or write that fails later stops the run with one
    :class:`~debategraph.nodes.cache_guard.CacheError` (see :mod:`.cache_guard`).

    Raises:
        DebateConfigError: The path cannot hold a cache (see :func:`check_cache_path`).
        CacheError: The file is damaged or read-only.
    """
    from langgraph.cache.sqlite import SqliteCache

    check_cache_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        inner: SqliteCache[Any] = SqliteCache(path=str(path), serde=RedactingSerializer())
    except (sqlite3.Error, OSError) as exc:
        raise cache_fault(path, exc) from None
    check_cache_file(inner._conn, path)
    return GuardedCache(inner, path)
