"""A finished results directory read for export: its arms, their rows and when it ran."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, cast

RESULTS_FILE_NAME = "results.jsonl"


class StoredRunError(ValueError):
    """The directory holds no run that can be exported; the message says what to give."""


@dataclass(frozen=True)
class StoredArm:
    """One arm of a stored run.

    Attributes:
        label: The arm's label (the rows' ``method``).
        method: The registered method it ran (the label where ``run.json`` does not say).
        settings: The arm's settings as ``run.json`` records them (``{}`` where it has none).
        rows: The arm's rows, finished and failed, in file order.
    """

    label: str
    method: str
    settings: dict[str, Any]
    rows: list[dict[str, Any]]

    @property
    def seeds(self) -> list[int | None]:
        """The seeds the rows record, in first-seen order (``[None]`` for a one-seed run)."""
        return list(dict.fromkeys(row.get("seed") for row in self.rows))

    @property
    def finished(self) -> list[dict[str, Any]]:
        """The rows of debates that finished (failed rows left out)."""
        return [row for row in self.rows if "error" not in row]

    def seed_of(self, row: dict[str, Any]) -> int | None:
        """The debates' seed of a row: its own, else the arm's ``seed`` setting."""
        seed = row.get("seed", self.settings.get("seed"))
        if seed is None:
            seed = (row.get("settings") or {}).get("seed")
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


@dataclass(frozen=True)
class StoredRun:
    """A results directory, read without any model call.

    Attributes:
        path: The directory.
        dataset: The dataset's name (``run.json``, else the rows').
        items_sha256: The question set's content hash, where ``run.json`` records it.
        arms: The arms, in ``run.json``'s order, then any others in the rows' order.
        started: When the run began (``run.json``'s modification time).
        finished: When its last row was written (``results.jsonl``'s modification time).
        problems: One line per results line left out (malformed, foreign, duplicate).
    """

    path: Path
    dataset: str
    items_sha256: str | None
    arms: list[StoredArm]
    started: datetime
    finished: datetime
    problems: list[str] = field(default_factory=list)

    def inputs_of(self, item: str) -> dict[str, Any] | None:
        """An item's question, task, id and choices, from any finished row of it.

        A failed row keeps no question; ``None`` when no arm finished the item.
        """
        return self._inputs.get(item)

    @cached_property
    def _inputs(self) -> dict[str, dict[str, Any]]:
        inputs: dict[str, dict[str, Any]] = {}
        for arm in self.arms:
            for row in arm.finished:
                item = str(row["id"])
                if item in inputs or not row.get("question"):
                    continue
                entry: dict[str, Any] = {
                    "question": row["question"],
                    "task": row.get("task") or "number",
                    "item_id": item,
                }
                if row.get("choices"):
                    entry["choices"] = list(row["choices"])
                inputs[item] = entry
        return inputs


def read_stored_run(
    results_dir: str | Path, redact: Callable[[object], object] | None = None
) -> StoredRun:
    """Read a results directory written by ``debategraph eval``.

    Args:
        results_dir: The directory.
        redact: Applied to every row and every arm's recorded settings (a
            :meth:`Redactor.value <debategraph.policies.secrets.Redactor.value>`), so that no
            secret of this environment leaves with an export, even from rows written without
            it.

    Raises:
        StoredRunError: No ``results.jsonl`` there, or no row in it.
    """
    from debategraph.eval.analysis.results import load_rows
    from debategraph.eval.log.store import MANIFEST_FILE, read_manifest

    folder = Path(results_dir)
    results = folder / RESULTS_FILE_NAME
    if not results.is_file():
        raise StoredRunError(
            f"{folder} holds no {RESULTS_FILE_NAME}: give a directory written by debategraph eval"
        )
    loaded = load_rows(folder)
    if not loaded.rows:
        raise StoredRunError(f"{results} holds no result row: nothing to export")
    manifest = read_manifest(folder)
    recorded = manifest.get("settings") or {}
    declared = {str(a.get("label")): a for a in recorded.get("arms") or () if isinstance(a, dict)}
    by_label: dict[str, list[dict[str, Any]]] = {label: [] for label in declared}
    for row in loaded.rows:
        kept = cast(dict[str, Any], redact(row)) if redact is not None else row
        by_label.setdefault(str(row["method"]), []).append(kept)
    arms = [
        StoredArm(
            label=label,
            method=str(declared.get(label, {}).get("method") or label),
            settings=_redacted(dict(declared.get(label, {}).get("settings") or {}), redact),
            rows=rows,
        )
        for label, rows in by_label.items()
        if rows
    ]
    dataset = str(recorded.get("dataset") or loaded.rows[0].get("dataset") or folder.name)
    manifest_file = folder / MANIFEST_FILE
    started = _mtime(manifest_file if manifest_file.is_file() else results)
    return StoredRun(
        path=folder,
        dataset=dataset,
        items_sha256=recorded.get("items_sha256"),
        arms=arms,
        started=min(started, _mtime(results)),
        finished=_mtime(results),
        problems=loaded.problems,
    )


def _redacted(
    settings: dict[str, Any], redact: Callable[[object], object] | None
) -> dict[str, Any]:
    """An arm's recorded settings, through ``redact`` as its rows go: exports carry them."""
    return cast(dict[str, Any], redact(settings)) if redact is not None else settings


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
