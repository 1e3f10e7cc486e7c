"""A finished results directory read for export: its arms, where their rows are, what it planned.

Nothing here holds the rows: a :class:`StoredRun` keeps each row's place in its file (the
byte-offset index of :mod:`debategraph.eval.log.row_index`) and its arms read their rows
when an exporter asks, one arm at a time. What the run planned (``run.json``'s items, arms and
seeds) is compared with the rows it holds, so an export can say what is missing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, cast

from debategraph.eval.log.row import Row, RowError, as_row, opt, row_dict
from debategraph.eval.log.row_index import RowIndex, RowPlace, StaleIndexError, row_files

RESULTS_FILE_NAME = "results.jsonl"

Redact = Callable[[object], object]


class StoredRunError(ValueError):
    """The directory holds no run that can be exported; the message says what to give."""


@dataclass(frozen=True)
class Planned:
    """What ``run.json`` says the run was to make, where it says it.

    Attributes:
        items: The run's item ids in order (``None``: ``run.json`` does not name them).
        seeds: The debates' seeds of a ``--seeds`` run (``[None]`` for a one-seed run).
        damaged: Why ``run.json`` could not be read, where it exists but is damaged.
    """

    items: list[str] | None
    seeds: list[int | None]
    damaged: str | None = None


@dataclass(frozen=True)
class StoredArm:
    """One arm of a stored run.

    Attributes:
        label: The arm's label (the rows' ``method``).
        method: The registered method it ran (the label where ``run.json`` does not say).
        settings: The arm's settings as ``run.json`` records them (``{}`` where it has none).
        places: Where the arm's rows are, finished and failed, in file order.
        run: The run it belongs to (reads the rows, keeps their problems).
    """

    label: str
    method: str
    settings: dict[str, Any]
    places: list[tuple[RowIndex, RowPlace]]
    run: StoredRun = field(repr=False, compare=False)

    @property
    def seeds(self) -> list[int | None]:
        """The seeds of the run (or the rows'), in order (``[None]`` for a one-seed run)."""
        found = list(dict.fromkeys(place.seed for _, place in self.places))
        planned = self.run.planned.seeds
        if planned == [None]:
            return found or [None]
        return planned + [s for s in found if s not in planned]

    def rows(self) -> Iterator[Row[Any]]:
        """The arm's rows, read now, one at a time, through the run's redaction.

        A line that holds no row is left out and kept in the run's ``problems``.
        """
        for index, place in self.places:
            row = self.run.row(index, place)
            if row is not None:
                yield row

    def missing(self) -> list[tuple[str, int | None]]:
        """The planned (item, seed) pairs the arm has no row of (empty: none, or not known)."""
        items = self.run.planned.items
        if items is None:
            return []
        held = {(place.item, place.seed) for _, place in self.places}
        return [(i, s) for s in self.run.planned.seeds for i in items if (i, s) not in held]

    def seed_of(self, row: Row[Any]) -> int | None:
        """The debates' seed of a row: its own, else the arm's ``seed`` setting, else the row's."""
        return self._seed(opt(row.seed), row.settings or None)

    def seed_at(self, seed: int | None) -> int | None:
        """The debates' seed of a place that holds no row: ``seed``, else the arm's setting."""
        return self._seed(seed, None)

    def _seed(self, own: int | None, row_settings: dict[str, Any] | None) -> int | None:
        seed: object = own
        if seed is None:
            seed = self.settings.get("seed")
        if seed is None and row_settings:
            seed = row_settings.get("seed")
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


@dataclass
class StoredRun:
    """A results directory, read without any model call.

    Attributes:
        path: The directory.
        dataset: The dataset's name (``run.json``, else the rows').
        items_sha256: The question set's content hash, where ``run.json`` records it.
        planned: What ``run.json`` says the run was to make.
        settings: ``run.json``'s settings (``{}`` where it has none).
        arms: The arms, in ``run.json``'s order (rows or not), then others in the rows' order.
        started: When the run began (``run.json``'s modification time).
        finished: When its last row was written (``results.jsonl``'s modification time).
        problems: One line per results line left out (malformed, foreign, duplicate,
            hostile), naming its file and line; grows as arms are read.
        redact: Applied to every row read and every arm's recorded settings.
    """

    path: Path
    dataset: str
    items_sha256: str | None
    planned: Planned
    settings: dict[str, Any]
    arms: list[StoredArm]
    started: datetime
    finished: datetime
    problems: list[str] = field(default_factory=list)
    redact: Redact | None = None

    def row(self, index: RowIndex, place: RowPlace) -> Row[Any] | None:
        """The row at ``place``, redacted, or ``None`` (its problem kept) where it holds none.

        The row is decoded with every turn's text (:data:`~debategraph.eval.log.row.FULL`);
        a redaction is applied to its JSON object, which is then checked into a row again.
        """
        with index.path.open("rb") as file:
            try:
                row = index.row_at(place, file)
            except StaleIndexError:
                row = f"{index.path.name} changed while it was exported"
        if isinstance(row, str):
            self.leave_out(index.path, place.line, row)
            return None
        if self.redact is None:
            return row
        try:
            return as_row(cast(dict[str, Any], self.redact(row_dict(row))))
        except RowError as exc:  # a redaction that changed a field's type: never expected
            self.leave_out(index.path, place.line, f"not a row once redacted ({exc})")
            return None

    def leave_out(self, path: Path, line: int, reason: str) -> None:
        """Keep a line that is left out, once."""
        problem = f"{path.name}, line {line}: {reason}"
        if problem not in self.problems:
            self.problems.append(problem)

    def inputs_of(self, item: str) -> dict[str, Any]:
        """An item's question, task, id and choices: from a finished row, else the dataset.

        A failed row keeps no question: the question comes from any arm's finished row of the
        item, else from the dataset ``run.json`` names (where it loads offline), else it is
        the item's id.
        """
        for index, place in self._places_by_item.get(item, ()):
            row = self.row(index, place)
            if row is None or opt(row.error) is not None or not isinstance(row.question, str):
                continue
            entry: dict[str, Any] = {
                "question": row.question,
                "task": str(row.task or "number"),
                "item_id": item,
            }
            if row.choices:
                entry["choices"] = [str(c) for c in row.choices]
            return entry
        known = self._dataset_inputs.get(item)
        return dict(known) if known else {"question": item, "task": "number", "item_id": item}

    @cached_property
    def _places_by_item(self) -> dict[str, list[tuple[RowIndex, RowPlace]]]:
        by_item: dict[str, list[tuple[RowIndex, RowPlace]]] = {}
        for arm in self.arms:
            for index, place in arm.places:
                by_item.setdefault(place.item, []).append((index, place))
        return by_item

    @cached_property
    def _dataset_inputs(self) -> dict[str, dict[str, Any]]:
        """The items of the dataset ``run.json`` names, where it loads (``{}`` otherwise)."""
        name, selection = self.settings.get("dataset"), self.settings.get("selection") or {}
        if not isinstance(name, str) or not isinstance(selection, dict):
            return {}
        try:
            from debategraph.eval.datasets import load_dataset

            items = load_dataset(name, **{k: v for k, v in selection.items() if v is not None})
        except Exception:  # any dataset trouble: the id stands in
            return {}
        found: dict[str, dict[str, Any]] = {}
        for item in items:
            entry: dict[str, Any] = {
                "question": item.question,
                "task": item.task,
                "item_id": item.id,
            }
            if item.choices:
                entry["choices"] = list(item.choices)
            found[str(item.id)] = entry
        return found

    def missing_line(self) -> str | None:
        """One line naming the planned rows the run does not hold (``None``: none missing)."""
        missing = {arm.label: arm.missing() for arm in self.arms}
        total = sum(len(m) for m in missing.values())
        if not total:
            return None
        planned = len(self.planned.items or ()) * len(self.planned.seeds) * len(self.arms)
        by_arm = ", ".join(f"{label} {len(m)}" for label, m in missing.items() if m)
        first = next(m for m in missing.values() if m)
        items = list(dict.fromkeys(item for item, _ in first))
        such = ", ".join(items[:3]) + (" ..." if len(items) > 3 else "")
        return (
            f"the run is not finished: {total} of {planned} planned rows are missing "
            f"({by_arm}; items such as {such}); the export marks them not run"
        )


def read_stored_run(results_dir: str | Path, redact: Redact | None = None) -> StoredRun:
    """Read a results directory written by ``debategraph eval``: where its rows are.

    Args:
        results_dir: The directory.
        redact: Applied to every row and every arm's recorded settings (a
            :meth:`Redactor.value <debategraph.policies.secrets.Redactor.value>`), so that no
            secret of this environment leaves with an export, even from rows written without
            it.

    Raises:
        StoredRunError: No ``results.jsonl`` there, or no row in it.
    """
    from debategraph.eval.log.files import MANIFEST_FILE

    folder = Path(results_dir)
    results = folder / RESULTS_FILE_NAME
    if not results.is_file():
        raise StoredRunError(
            f"{folder} holds no {RESULTS_FILE_NAME}: give a directory written by debategraph eval"
        )
    manifest, damaged = _manifest(folder / MANIFEST_FILE)
    given = manifest.get("settings")
    recorded: dict[str, Any] = given if isinstance(given, dict) else {}
    planned = _planned(manifest, recorded, damaged)
    declared = {str(a.get("label")): a for a in recorded.get("arms") or () if isinstance(a, dict)}
    manifest_file = folder / MANIFEST_FILE
    started = _mtime(manifest_file if manifest_file.is_file() else results)
    run = StoredRun(
        path=folder,
        dataset=str(recorded.get("dataset") or folder.name),
        items_sha256=recorded.get("items_sha256"),
        planned=planned,
        settings=recorded,
        arms=[],
        started=min(started, _mtime(results)),
        finished=_mtime(results),
        redact=redact,
    )
    places = _places(run, folder, declared)
    if not any(places.values()):
        raise StoredRunError(f"{results} holds no result row: nothing to export")
    for label, held in places.items():
        arm = declared.get(label, {})
        settings = dict(arm.get("settings") or {}) if isinstance(arm, dict) else {}
        run.arms.append(
            StoredArm(
                label=label,
                method=str(arm.get("method") or label),
                settings=cast(dict[str, Any], redact(settings)) if redact else settings,
                places=held,
                run=run,
            )
        )
    if not recorded.get("dataset"):
        first = next(iter(run.arms[0].rows()), None) if run.arms[0].places else None
        run.dataset = (first.dataset if first is not None else None) or folder.name
    return run


def _manifest(path: Path) -> tuple[dict[str, Any], str | None]:
    """``run.json`` and, where it exists but cannot be read, why."""
    if not path.exists():
        return {}, None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"{path} cannot be read ({exc})"
    except ValueError as exc:
        return {}, f"{path} is damaged (not valid JSON: {exc})"
    if not isinstance(document, dict) or not isinstance(document.get("settings"), dict):
        return {}, f"{path} is damaged (no settings object)"
    return document, None


def _planned(manifest: dict[str, Any], settings: dict[str, Any], damaged: str | None) -> Planned:
    ids = manifest.get("item_ids")
    items = [str(i) for i in ids] if isinstance(ids, list) and ids else None
    seeds = settings.get("seeds")
    listed = [s for s in seeds if isinstance(s, int)] if isinstance(seeds, list) else []
    return Planned(items=items, seeds=list(listed) or [None], damaged=damaged)


def _places(
    run: StoredRun, folder: Path, declared: dict[str, Any]
) -> dict[str, list[tuple[RowIndex, RowPlace]]]:
    """Each arm's row places, checked against the plan; duplicates and strangers left out."""
    from debategraph.eval.log.files import RESULTS_FILE

    items = set(run.planned.items) if run.planned.items is not None else None
    by_label: dict[str, list[tuple[RowIndex, RowPlace]]] = {label: [] for label in declared}
    for path in row_files(folder):
        index = RowIndex.of(path)
        own = path.name == RESULTS_FILE
        for problem in index.problems:
            run.leave_out(path, problem.line, problem.reason)
        seen: dict[tuple[str, str, int | None], int] = {}
        for place in index.places:
            if own and items is not None and place.item not in items:
                run.leave_out(path, place.line, f"item {place.item!r} is not in this run")
            elif own and declared and place.method not in declared:
                run.leave_out(path, place.line, f"method {place.method!r} is not an arm")
            elif place.key in seen:
                first = seen[place.key]
                run.leave_out(path, place.line, f"repeats the row of line {first}")
            else:
                seen[place.key] = place.line
                by_label.setdefault(place.method, []).append((index, place))
    return by_label


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
