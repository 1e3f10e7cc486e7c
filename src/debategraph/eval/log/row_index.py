"""Where each row of a results file is: a byte-offset index kept beside the file.

``debategraph show`` prints one debate, and ``export`` writes one arm at a time; neither
needs the other rows in memory. The index is made on first use in one streaming pass that
decodes only each line's key (``method``, ``id`` and ``seed``: ``eval`` writes them first, so
a prefix match finds them; a line whose key has no seed is read for a top-level ``seed`` only
where ``"seed":`` appears later, as it does in a row's ``settings``; other lines are decoded
whole), and is kept in
``results.jsonl.index`` beside the file. It records the file's size, modification time and
inode: when any of them changes (a resumed run appended rows, the file was replaced) it is
made again. It is never trusted blindly: a row read through it must carry the key the index
gave its offset (:meth:`RowIndex.row_at`), else the index is made again. A directory that
cannot be written keeps its index in memory only.

Index file format (UTF-8 lines): a JSON header ``{"format": 1, "size": ..., "mtime_ns": ...,
"inode": ...}``, then one line per row, ``ID<TAB>METHOD<TAB>SEED<TAB>OFFSET<TAB>LENGTH<TAB>LINE``
(``ID`` and ``METHOD`` JSON-encoded, ``SEED`` empty where the row has none), and one line per
line that is no row, ``!LINE<TAB>REASON`` (reason JSON-encoded).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from msgspec import UNSET

from debategraph.eval.log.row import Row, RowError, opt
from debategraph.eval.log.row import decode_row as decode_declared

INDEX_SUFFIX = ".index"
"""What the index's file name adds to the results file's (``results.jsonl.index``)."""

INDEX_FORMAT = 1
"""The index file's format number; another number is made again."""

_STRING = r'"(?:[^"\\\n]|\\.)*"'
_KEY = re.compile(
    rb'\{"method":(' + _STRING.encode() + rb'),"id":(' + _STRING.encode() + rb")"
    rb'(?:,"seed":(-?\d+)[,}])?'
)
"""The key at the start of a line as ``eval`` writes it (compact JSON, these fields first)."""


@dataclass(frozen=True)
class RowPlace:
    """Where one row is in its file, and its key.

    Attributes:
        method: The row's ``method`` (its arm's label).
        item: The row's ``id``, as a string.
        seed: The row's ``seed``, where it has one.
        offset: The line's first byte.
        length: The line's length in bytes, its newline left out.
        line: The line's number (from 1).
    """

    method: str
    item: str
    seed: int | None
    offset: int
    length: int
    line: int

    @property
    def key(self) -> tuple[str, str, int | None]:
        """``(method, id, seed)``, as :func:`~debategraph.eval.log.store.row_key` gives it."""
        return self.method, self.item, self.seed


@dataclass(frozen=True)
class LineProblem:
    """A line of the file that holds no row whose key could be read."""

    line: int
    reason: str


class RowIndex:
    """The places of a results file's rows, read from (or made into) its index file."""

    def __init__(self, path: Path, places: list[RowPlace], problems: list[LineProblem]) -> None:
        self.path = path
        self.places = places
        self.problems = problems

    @classmethod
    def of(cls, path: Path) -> RowIndex:
        """The index of ``path``: read from beside it where it is current, else made now."""
        stamp = _stamp(path)
        kept = _read_index(_index_path(path), stamp)
        if kept is not None:
            return cls(path, *kept)
        return cls.made(path)

    @classmethod
    def made(cls, path: Path, keep: Callable[[RowPlace], bool] | None = None) -> RowIndex:
        """The index of ``path``, made in one pass and kept beside it where it can be.

        Args:
            path: The results file.
            keep: Which places the returned index holds (default all); the index file
                holds every place whatever it keeps, so a lookup of one item holds only its.
        """
        places, problems = _build(path, keep or (lambda _: True))
        return cls(path, places, problems)

    def row_at(self, place: RowPlace, file: Any) -> Row[Any] | str:
        """The row at ``place`` read from ``file`` (open in binary), or why it is no row.

        Raises:
            StaleIndexError: The line there does not carry the key the index gave it.
        """
        file.seek(place.offset)
        raw = file.read(place.length)
        row, problem = decode_row(raw)
        if row is None:
            return problem or "not a row"
        if key_of(row) != place.key:
            raise StaleIndexError(f"{self.path} changed under its index")
        return row

    def rows(self, places: list[RowPlace]) -> Iterator[tuple[RowPlace, Row[Any] | str]]:
        """Each place's row (or why it is none), reading only those lines."""
        with self.path.open("rb") as file:
            for place in places:
                yield place, self.row_at(place, file)


class StaleIndexError(RuntimeError):
    """A row read through the index does not carry the key the index gave its place."""


def places_of_item(path: Path, item: str) -> tuple[RowIndex, list[RowPlace]]:
    """The index of ``path`` and the places of item ``item``'s rows in it, in file order.

    Reads the index file's lines that start with the item's id only.
    """
    index_path, stamp = _index_path(path), _stamp(path)
    try:
        data = index_path.read_bytes()
    except OSError:
        data = b""
    header_end = data.find(b"\n")
    if header_end > 0 and _header_matches(data[:header_end], stamp):
        needle = b"\n" + json.dumps(item, ensure_ascii=False).encode() + b"\t"
        found: list[RowPlace] = []
        at = data.find(needle)
        while at >= 0:
            end = data.find(b"\n", at + 1)
            place = _place_line(data[at + 1 : end if end >= 0 else len(data)])
            if place is not None:
                found.append(place)
            at = data.find(needle, at + 1)
        return RowIndex(path, [], []), found
    index = RowIndex.made(path, keep=lambda place: place.item == item)
    return index, index.places


def decode_row(raw: bytes) -> tuple[Row[Any] | None, str | None]:
    """A line decoded through the row's declaration and checked, or why it is none."""
    from debategraph.eval.log.store import row_problem  # the store loads filelock: not at help

    try:
        row = decode_declared(raw)
    except (msgspec.DecodeError, RowError) as exc:
        try:
            value = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as bad:
            return None, f"not valid JSON ({getattr(bad, 'msg', bad)})"
        except RecursionError:
            return None, "JSON nested too deeply"
        return None, row_problem(value) or f"not a row ({exc})"
    problem = row_problem(row)
    return (None, problem) if problem is not None else (row, None)


def key_of(row: Row[Any]) -> tuple[str, str, int | None]:
    """A decoded row's key as the index keeps it."""
    return row.method, str(row.id), opt(row.seed)


def _refused_key(raw: bytes) -> tuple[str, str, int | None] | None:
    """The key of a line that the row's declaration refused, where it still reads as a row.

    Its JSON object has a row's fields, one of them (or of its turns) of another type: it is
    indexed, so that reading it says which field.
    """
    from debategraph.eval.log.store import row_key, row_problem

    try:
        value = json.loads(raw)
        return row_key(value) if row_problem(value) is None else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _index_path(path: Path) -> Path:
    return path.with_name(path.name + INDEX_SUFFIX)


def _stamp(path: Path) -> dict[str, int]:
    info = path.stat()
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "inode": info.st_ino}


def _scan(path: Path) -> Iterator[RowPlace | LineProblem]:
    """Every line's key (or problem), in one streaming pass."""
    offset = 0
    with path.open("rb") as file:
        for number, raw in enumerate(file, start=1):
            length = len(raw)
            line = raw.rstrip(b"\r\n")
            if line.strip():
                key = _prefix_key(line)
                if key is None:
                    row, problem = decode_row(line)
                    key = key_of(row) if row is not None else _refused_key(line)
                    if key is None:
                        yield LineProblem(number, problem or "not a row")
                if key is not None:
                    yield RowPlace(*key, offset, len(line), number)
            offset += length


def _prefix_key(line: bytes) -> tuple[str, str, int | None] | None:
    """The key of a line that starts as ``eval`` writes rows, decoding nothing else."""
    match = _KEY.match(line)
    if match is None:
        return None
    try:
        method, item = json.loads(match.group(1)), json.loads(match.group(2))
    except (ValueError, UnicodeDecodeError):
        return None
    seed = match.group(3)
    if seed is None and line.find(b'"seed":', match.end()) >= 0 and _top_seed(line):
        return None  # a seed elsewhere (a row edited by hand): the line is decoded whole
    return method, item, int(seed) if seed is not None else None


class _SeedOnly(msgspec.Struct):
    """A line's top-level ``seed`` alone (the decoder skips every other field)."""

    seed: Any = UNSET


_SEED_ONLY = msgspec.json.Decoder(_SeedOnly)


def _top_seed(line: bytes) -> bool:
    """Whether a line whose key has no seed holds one further on, or cannot be told.

    ``"seed":`` also appears inside a row's ``settings``: only a top-level one counts.
    """
    try:
        return _SEED_ONLY.decode(line).seed is not UNSET
    except (msgspec.DecodeError, msgspec.ValidationError):
        return True


def _read_index(
    index_path: Path, stamp: dict[str, int]
) -> tuple[list[RowPlace], list[LineProblem]] | None:
    try:
        data = index_path.read_bytes()
    except OSError:
        return None
    lines = data.split(b"\n")
    if not lines or not _header_matches(lines[0], stamp):
        return None
    places: list[RowPlace] = []
    problems: list[LineProblem] = []
    for line in lines[1:]:
        if not line:
            continue
        if line.startswith(b"!"):
            number, _, reason = line[1:].partition(b"\t")
            try:
                problems.append(LineProblem(int(number), json.loads(reason)))
            except ValueError:  # a damaged index is made again, never trusted
                return None
            continue
        place = _place_line(line)
        if place is None:
            return None
        places.append(place)
    return places, problems


def _header_matches(line: bytes, stamp: dict[str, int]) -> bool:
    try:
        header = json.loads(line)
    except ValueError:
        return False
    return isinstance(header, dict) and header == {"format": INDEX_FORMAT, **stamp}


def _place_line(line: bytes) -> RowPlace | None:
    parts = line.split(b"\t")
    if len(parts) != 6:
        return None
    try:
        item, method = json.loads(parts[0]), json.loads(parts[1])
        seed = int(parts[2]) if parts[2] else None
        offset, length, number = int(parts[3]), int(parts[4]), int(parts[5])
    except ValueError:
        return None
    return RowPlace(str(method), str(item), seed, offset, length, number)


def _build(
    path: Path, keep: Callable[[RowPlace], bool]
) -> tuple[list[RowPlace], list[LineProblem]]:
    """Scan ``path``, writing its index beside it as it goes; the places kept and problems.

    A directory that cannot be written keeps no index file.
    """
    index_path = _index_path(path)
    stamp = _stamp(path)
    temporary = index_path.with_name(f".{index_path.name}.{os.getpid()}.tmp")
    places: list[RowPlace] = []
    problems: list[LineProblem] = []
    try:
        sink: Any = temporary.open("w", encoding="utf-8")
    except OSError:
        sink = None
    try:
        if sink is not None:
            sink.write(json.dumps({"format": INDEX_FORMAT, **stamp}) + "\n")
        for entry in _scan(path):
            if isinstance(entry, LineProblem):
                problems.append(entry)
                line = f"!{entry.line}\t{json.dumps(entry.reason, ensure_ascii=False)}"
            else:
                if keep(entry):
                    places.append(entry)
                item, method = (
                    json.dumps(v, ensure_ascii=False) for v in (entry.item, entry.method)
                )
                seed = "" if entry.seed is None else str(entry.seed)
                line = f"{item}\t{method}\t{seed}\t{entry.offset}\t{entry.length}\t{entry.line}"
            if sink is not None:
                sink.write(line + "\n")
        if sink is not None:
            sink.close()
            if _stamp(path) == stamp:
                os.replace(temporary, index_path)
    except OSError:
        pass
    finally:
        if sink is not None and not sink.closed:
            sink.close()
        temporary.unlink(missing_ok=True)
    return places, problems


def row_files(folder: Path) -> list[Path]:
    """The row files of a results directory: its ``*.jsonl`` but the ledger and the notes."""
    from debategraph.eval.log.files import INTERRUPTED_FILE, SPEND_NOTES_FILE

    beside = (INTERRUPTED_FILE, SPEND_NOTES_FILE)
    return [f for f in sorted(folder.glob("*.jsonl")) if f.name not in beside]


def item_rows(folder: Path, item: str) -> list[Row[Any]]:
    """The rows of item ``item`` in a results directory, as ``load_rows`` would keep them.

    Only those rows are read. Rows of ``results.jsonl`` whose method is no arm of the run
    (``run.json``) are left out, and of rows with the same key (in the same source and
    dataset) the first counts.
    """
    from debategraph.eval.log.files import RESULTS_FILE
    from debategraph.eval.log.store import read_manifest

    manifest = read_manifest(folder)
    item_ids = set(manifest.get("item_ids") or ()) or None
    arms = (manifest.get("settings") or {}).get("arms") or ()
    labels = {a.get("label") for a in arms if isinstance(a, dict)} or None
    kept: list[Row[Any]] = []
    seen: set[tuple[str, str, str, str, int | None]] = set()
    for path in row_files(folder):
        own = path.name == RESULTS_FILE
        if own and item_ids is not None and item not in item_ids:
            continue
        for row in _rows_of_item(path, item):
            key = key_of(row)
            if own and labels is not None and key[0] not in labels:
                continue
            identity = (row.source or "", row.dataset or "", *key)
            if identity not in seen:
                seen.add(identity)
                kept.append(row)
    return kept


def _rows_of_item(path: Path, item: str) -> list[Row[Any]]:
    for _ in range(2):
        index, places = places_of_item(path, item)
        try:
            return [row for _, row in index.rows(places) if isinstance(row, Row)]
        except StaleIndexError:
            RowIndex.made(path)
    from debategraph.eval.log.store import read_rows

    # The index could not be trusted twice (a file changing under it): read every line.
    return [row for row in read_rows(path, texts=True) if str(row.id) == str(item)]


def known_keys(folder: Path) -> tuple[set[str], set[str]]:
    """The item ids and methods the rows of a results directory name (for a message)."""
    ids: set[str] = set()
    methods: set[str] = set()
    for path in row_files(folder):
        for place in RowIndex.of(path).places:
            ids.add(place.item)
            methods.add(place.method)
    return ids, methods
