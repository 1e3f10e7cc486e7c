"""A results directory on disk: ``results.jsonl`` (one row per line) and ``run.json``.

The results file is append-only while a run goes: every finished (method, item) row is
written as one line with a single ``write`` and flushed at once, so a crash or Ctrl-C loses
at most the line being written. On resume, :meth:`ResultsFile.load` drops what a crash can
leave behind (a torn last line, an unreadable line), failed rows (they are retried) and
duplicates, and rewrites the file atomically before new rows are appended. When every row of
the plan is in, :meth:`ResultsFile.finalize` rewrites it in plan order, so a resumed run ends
with the same file as an uninterrupted one (up to ``wall_s``).

``run.json`` records the settings that shape the rows; :func:`check_manifest` refuses to
resume into a directory written with other settings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

RESULTS_FILE = "results.jsonl"
"""Name of the results file inside a results directory."""

MANIFEST_FILE = "run.json"
"""Name of the run manifest inside a results directory."""

Key = tuple[str, str]
"""A row's identity: ``(method label, item id)``."""


class SettingsMismatchError(RuntimeError):
    """The results directory was written with other settings; the message says what to do."""


def row_key(row: Mapping[str, Any]) -> Key:
    """The identity of a row: ``(row["method"], row["id"])``."""
    return (str(row["method"]), str(row["id"]))


def encode_row(row: Mapping[str, Any]) -> bytes:
    """One JSONL line (compact JSON, UTF-8, trailing newline)."""
    return (json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class ResultsFile:
    """The append-only JSONL results file of a run.

    Attributes:
        path: The file's path.
        fsync: Whether every appended line is also ``fsync``-ed (slower; survives power loss).
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._handle: Any = None

    def load(self) -> tuple[list[dict[str, Any]], int]:
        """Read the finished rows and clean the file up for resuming.

        Drops a torn last line, unreadable lines, failed rows (``error`` key: they are run
        again) and repeated keys (the first is kept); rewrites the file atomically when
        anything was dropped.

        Returns:
            The kept rows in file order, and how many lines were dropped.
        """
        if not self.path.exists():
            return [], 0
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline, else a torn line
        kept: list[dict[str, Any]] = []
        seen: set[Key] = set()
        dropped = int(bool(tail.strip()))
        for line in lines:
            row = _parse(line)
            if row is None or "error" in row or row_key(row) in seen:
                dropped += bool(line.strip())
                continue
            seen.add(row_key(row))
            kept.append(row)
        if dropped or tail:
            _atomic_write(self.path, b"".join(encode_row(row) for row in kept))
        return kept, dropped

    def append(self, row: Mapping[str, Any]) -> None:
        """Append one row as one line: a single write, then flush (and fsync if asked)."""
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("ab")
        self._handle.write(encode_row(row))
        self._handle.flush()
        if self.fsync:
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        """Close the append handle (appending again reopens it)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def finalize(self, order: Callable[[Key], Any]) -> list[dict[str, Any]]:
        """Rewrite the file sorted by ``order(row_key(row))`` (atomic), and return its rows.

        Args:
            order: Sort key of a row's key, e.g. (method index, item index) in the plan.

        Returns:
            The rows, sorted.
        """
        self.close()
        rows = [row for line in self.path.read_bytes().splitlines() if (row := _parse(line))]
        rows.sort(key=lambda row: order(row_key(row)))
        _atomic_write(self.path, b"".join(encode_row(row) for row in rows))
        return rows


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        row = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(row, dict) or "method" not in row or "id" not in row:
        return None
    return row


def check_manifest(out_dir: Path, settings: Mapping[str, Any], *, force: bool = False) -> bool:
    """Make ``out_dir`` ready for a run with ``settings``; say whether it resumes one.

    A new directory (or one without results) gets a fresh ``run.json``. A directory whose
    ``run.json`` holds the same settings is resumed. With ``force``, earlier results are
    deleted and the run starts over.

    Args:
        out_dir: The results directory (created if missing).
        settings: JSON-ready settings that shape the rows (dataset, items, methods, models).
        force: Discard earlier results written with other settings.

    Returns:
        Whether earlier results with the same settings are resumed.

    Raises:
        SettingsMismatchError: Earlier results with other (or unknown) settings, and no
            ``force``.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest, results = out_dir / MANIFEST_FILE, out_dir / RESULTS_FILE
    wanted = json.loads(json.dumps(settings))
    if force:
        results.unlink(missing_ok=True)
    elif results.exists() and results.stat().st_size:
        if not manifest.exists():
            raise SettingsMismatchError(
                f"{out_dir} holds {RESULTS_FILE} but no {MANIFEST_FILE}, so its settings are "
                "unknown: use another --out, or --force to discard those results"
            )
        recorded = json.loads(manifest.read_text(encoding="utf-8")).get("settings")
        if recorded != wanted:
            raise SettingsMismatchError(
                f"{out_dir} holds results of a run with other settings "
                f"({_differences(recorded, wanted)}): use another --out, or --force to "
                "discard those results and start over"
            )
        return True
    text = json.dumps({"format": 1, "settings": wanted}, indent=2, ensure_ascii=False)
    _atomic_write(manifest, (text + "\n").encode())
    return False


def _differences(old: Any, new: Mapping[str, Any]) -> str:
    if not isinstance(old, dict):
        return "unreadable run.json"
    diffs = []
    for key in sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k)):
        before, after = old.get(key), new.get(key)
        if key == "arms" and isinstance(before, list) and isinstance(after, list):
            diffs += _arm_differences(before, after)
        else:
            diffs.append(f"{key}: {_short(before)} -> {_short(after)}")
    return "; ".join(diffs)


def _arm_differences(before: list[Any], after: list[Any]) -> list[str]:
    labels = [[arm.get("label") for arm in arms] for arms in (before, after)]
    if labels[0] != labels[1]:
        return [f"methods: {', '.join(map(str, labels[0]))} -> {', '.join(map(str, labels[1]))}"]
    return [
        f"{a.get('label')} settings: {_short(a.get('settings'))} -> {_short(b.get('settings'))}"
        for a, b in zip(before, after, strict=True)
        if a != b
    ]


def _short(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"
