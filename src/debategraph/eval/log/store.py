"""A results directory on disk: ``results.jsonl`` (one row per line) and ``run.json``.

The results file is append-only while a run goes: every finished (method, item, seed) row is
written as one line with a single ``write`` and flushed at once, so a crash or Ctrl-C loses
at most the line being written. On resume, :meth:`ResultsFile.load` drops what a crash can
leave behind (a torn last line, an unreadable line), failed rows (they are retried) and
duplicates, and rewrites the file atomically before new rows are appended. A failed row
that is dropped (by resume, or by the final rewrite when a finished row of its key
replaced it) is first handed to ``keep_spend``, which the runner points at the ledger
(:mod:`debategraph.eval.log.ledger`), so the tokens it spent stay on the bill. When every row of
the plan is in, :meth:`ResultsFile.finalize` rewrites it in plan order, so a resumed run ends
with the same file as an uninterrupted one (up to ``wall_s``). Both read and write a line at a
time: the file is never held in memory, however large its rows.

``run.json`` records the settings that shape the rows, the question set's content hash
among them; :func:`check_manifest` refuses to resume into a directory written with other
settings or another question set. :class:`OutputLock` makes sure one process at a time writes
a results directory. Everything written passes through the run's redactor, so no configured
secret reaches the disk.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import msgspec
from filelock import FileLock, Timeout

from debategraph.errors import DataError
from debategraph.eval.log.files import INTERRUPTED_FILE, SPEND_NOTES_DIR, SPEND_NOTES_FILE
from debategraph.eval.log.files import MANIFEST_FILE as MANIFEST_FILE
from debategraph.eval.log.files import RESULTS_FILE as RESULTS_FILE
from debategraph.eval.log.ledger import fingerprint
from debategraph.eval.log.row import Row, RowError, decode_row, opt, row_dict

DroppedRows = Callable[[list[tuple[str, dict[str, Any]]]], None]
"""Takes failed rows about to leave the file, each with its line's fingerprint."""

RenamedLines = Callable[[list[tuple[str, str]]], None]
"""Takes the kept lines a rewrite changed, as ``(old, new)`` fingerprints."""

Key = tuple[str, str, int | None]
"""A row's identity: ``(method label, item id, seed)``; the seed is ``None`` for a row
without a ``seed`` field (a single-seed run, or one written before ``--seeds``)."""


MANIFEST_FORMAT = 2
"""Version of ``run.json`` (2: the question set is hashed by content, not by ids)."""

LOCK_FILE = ".lock"
"""Name of the lock file inside a results directory."""

_FINISHED_FIELDS: dict[str, tuple[type, ...]] = {
    "method": (str,),
    "id": (str,),
    "answer": (str, type(None)),
    "correct": (bool,),
    "input_tokens": (int,),
    "output_tokens": (int,),
    "calls": (int,),
    "round_answers": (list,),
}
_FAILED_FIELDS: dict[str, tuple[type, ...]] = {"method": (str,), "id": (str,), "error": (str,)}


class SettingsMismatchError(DataError, RuntimeError):
    """The results directory was written with other settings; the message says what to do."""


class OutputBusyError(DataError, RuntimeError):
    """Another process is writing the results directory."""


class OutputLock:
    """One writer per results directory: an OS-level lock on ``out_dir/.lock``.

    The operating system releases the lock when its process ends, however it ends, so a
    crashed writer's lock never blocks the next run.

    Args:
        out_dir: The results directory (created if missing).
    """

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self._lock: FileLock | None = None

    def __enter__(self) -> OutputLock:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.out_dir / LOCK_FILE), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise OutputBusyError(
                f"another debategraph eval is writing to {self.out_dir}: wait for it to finish, "
                "or use another --out"
            ) from None
        self._lock = lock
        return self

    def __exit__(self, *exc: object) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def row_problem(row: object) -> str | None:
    """What is wrong with a result row, or ``None`` when it is well formed.

    A finished row needs ``method``, ``id``, ``answer``, ``correct``, ``input_tokens``,
    ``output_tokens``, ``calls`` and ``round_answers`` with their types; a failed row needs
    ``method``, ``id`` and ``error``. A ``seed``, where a row has one, is an integer.

    Args:
        row: A :class:`~debategraph.eval.log.row.Row` (its declaration checked the types: what
            is left is which fields it has), or a line's JSON object, checked field by field
            so that the message names the field and the type it has.
    """
    if isinstance(row, Row):
        return _declared_problem(row)
    if not isinstance(row, Mapping):
        return "not a JSON object"
    seed = row.get("seed")
    if "seed" in row and (not isinstance(seed, int) or isinstance(seed, bool)):
        return f"'seed' is {type(seed).__name__}, not int"
    fields = _FAILED_FIELDS if "error" in row else _FINISHED_FIELDS
    for name, types in fields.items():
        if name not in row:
            return f"no {name!r} field"
        value = row[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            wanted = " or ".join(t.__name__ for t in types)
            return f"{name!r} is {type(value).__name__}, not {wanted}"
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            return f"{name!r} is negative"
    return None


def _declared_problem(row: Row[Any]) -> str | None:
    """:func:`row_problem` of a decoded row: the fields a finished or failed row must have."""
    if not isinstance(row.id, str):
        return f"'id' is {type(row.id).__name__}, not str"
    if opt(row.error) is not None:
        return None
    if row.answer is msgspec.UNSET:
        return "no 'answer' field"
    if row.answer is not None and not isinstance(row.answer, str):
        return f"'answer' is {type(row.answer).__name__}, not str or NoneType"
    if opt(row.correct) is None:
        return "no 'correct' field"
    for name, count in (
        ("input_tokens", opt(row.input_tokens)),
        ("output_tokens", opt(row.output_tokens)),
        ("calls", opt(row.calls)),
    ):
        if count is None:
            return f"no {name!r} field"
        if count < 0:
            return f"{name!r} is negative"
    rounds = opt(row.round_answers)
    if rounds is None:
        return "no 'round_answers' field"
    if any(len(answers) != len(rounds[0]) for answers in rounds):
        sizes = ", ".join(str(len(answers)) for answers in rounds)
        return f"'round_answers' has rounds of {sizes} answers (every round has one per agent)"
    return None


def is_failed(row: Row[Any]) -> bool:
    """Whether ``row`` is a failed debate's (it has an ``error``)."""
    return opt(row.error) is not None


class _KeyFields(msgspec.Struct):
    """The fields of a row that make its key (the rest of its JSON object is not read)."""

    method: str
    id: str | int
    seed: int | None = None


def row_key(row: Row[Any] | Mapping[str, Any]) -> Key:
    """The identity of a row: its ``method``, ``id`` (as a string) and ``seed`` (or ``None``).

    Raises:
        RowError: ``row`` is a JSON object without a string ``method`` and an ``id``.
    """
    if isinstance(row, Row):
        return row.method, str(row.id), opt(row.seed)
    try:
        key = msgspec.convert(row, _KeyFields, str_keys=True)
    except msgspec.ValidationError as exc:
        raise RowError(str(exc)) from None
    return key.method, str(key.id), key.seed


def describe_key(key: Key) -> str:
    """A row's key as messages print it: ``du, q-1`` or, with a seed, ``du, q-1, seed 2``."""
    return ", ".join(key[:2]) + ("" if key[2] is None else f", seed {key[2]}")


def encode_row(row: Row[Any] | Mapping[str, Any], redact: Callable[[str], str] = str) -> bytes:
    """One JSONL line (compact JSON, UTF-8, trailing newline), passed through ``redact``."""
    fields = row_dict(row) if isinstance(row, Row) else row
    text = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    return (redact(text) + "\n").encode()


def _atomic_write(
    path: Path, data: bytes | Iterable[bytes], before: Callable[[], None] | None = None
) -> None:
    """Replace ``path`` with ``data`` (bytes, or chunks in turn) all at once.

    ``before`` is called once every chunk is written, just before the file is replaced. A
    failed write leaves no temporary file.
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("wb") as f:
            for chunk in [data] if isinstance(data, bytes) else data:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        if before is not None:
            before()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class ResultsFile:
    """The append-only JSONL results file of a run.

    Attributes:
        path: The file's path.
        fsync: Whether every appended line is also ``fsync``-ed (slower; survives power loss).
        redact: Applied to every line written (a :class:`~debategraph.policies.secrets.Redactor`).
        keep_spend: Called with the failed rows (and their lines' fingerprints) that a
            rewrite is about to drop, before the file is replaced.
        renamed: Called, before the file is replaced, with the kept lines whose bytes a
            rewrite changed (the redactor knows a secret more): their old and new
            fingerprints, so that the spend notes' cover lines keep naming their rows.
        problems: What :meth:`load` found wrong, one message per malformed line, with its
            line number (a torn last line left by a crash is not a problem).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        fsync: bool = False,
        redact: Callable[[str], str] = str,
        keep_spend: DroppedRows | None = None,
        renamed: RenamedLines | None = None,
    ) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self.redact = redact
        self.keep_spend = keep_spend
        self.renamed = renamed
        self.problems: list[str] = []
        self._handle: Any = None

    def load(self, visit: Callable[[Row[Any]], None] | None = None) -> int:
        """Read the finished rows and clean the file up for resuming, one line at a time.

        Drops a torn last line, malformed lines (each reported in :attr:`problems` with its
        line number), failed rows (``error`` key: they are run again) and repeated keys (the
        first is kept, each repeat reported with both line numbers); rewrites the file
        atomically when anything was dropped. Whatever is dropped is run again, so nothing is
        lost; failed rows go to ``keep_spend`` first. Rows are not kept in memory: each kept
        row is handed to ``visit``, in file order.

        Args:
            visit: Called with every kept row.

        Returns:
            How many lines were dropped.
        """
        self.problems = []
        if not self.path.exists():
            return 0
        dropped = 0
        skipped: set[int] = set()
        seen: dict[Key, int] = {}
        lenient: dict[Key, tuple[int, Row[Any]]] = {}  # kept unless a well-typed row repeats it
        failed: list[tuple[str, dict[str, Any]]] = []
        with self.path.open("rb") as file:
            for number, line in enumerate(file, start=1):
                if not line.strip():
                    skipped.add(number)
                    continue
                if not line.endswith(b"\n"):  # a torn last line left by a crash
                    row, problem = None, None
                else:
                    row, problem = _parse_checked(line)
                typed = row is not None
                if row is None and problem is not None:
                    row = _parse_checked(line, lenient=True)[0]  # a field of another type
                    if row is not None and not is_failed(row):
                        problem += ": kept as finished (a report leaves it out until it is fixed)"
                if problem is not None:
                    if row is None or is_failed(row):
                        problem += " (run again)"
                    self.problems.append(f"{self.path.name}, line {number}: {problem}")
                if row is None or is_failed(row):
                    if row is not None:
                        failed.append((fingerprint(line), row_dict(row)))
                    dropped += 1
                    skipped.add(number)
                    continue
                key = row_key(row)
                if typed and key in lenient and key not in seen:
                    first = lenient.pop(key)[0]  # a well-typed row wins over a repaired one
                    self._repeated(first, number, key)
                    dropped += 1
                    skipped.add(first)
                elif key in seen or key in lenient:
                    self._repeated(number, seen.get(key) or lenient[key][0], key)
                    dropped += 1
                    skipped.add(number)
                    continue
                if not typed:
                    lenient[key] = (number, row)
                    continue
                seen[key] = number
                if visit is not None:
                    visit(row)
        if visit is not None:
            for _, row in lenient.values():
                visit(row)
        if dropped:
            self._keep_spend(failed)
            self._rewrite_without(skipped)
        return dropped

    def _repeated(self, number: int, kept: int, key: Key) -> None:
        self.problems.append(
            f"{self.path.name}, line {number}: repeats the row of line {kept} "
            f"({describe_key(key)}): dropped, line {kept} kept"
        )

    def _keep_spend(self, failed: list[tuple[str, dict[str, Any]]]) -> None:
        if failed and self.keep_spend is not None:
            self.keep_spend(failed)

    def _rewrite_without(self, skipped: set[int]) -> None:
        """Rewrite the file without the lines numbered in ``skipped`` (atomic, streamed)."""
        changed: list[tuple[str, str]] = []
        with self.path.open("rb") as source:
            _atomic_write(
                self.path,
                (
                    self._redacted(line, changed)
                    for number, line in enumerate(source, start=1)
                    if number not in skipped
                ),
                partial(self._renamed, changed),
            )

    def _redacted(self, line: bytes, changed: list[tuple[str, str]] | None = None) -> bytes:
        """A stored line passed through the redactor again (a key configured since).

        A line that this changes is listed in ``changed`` as its old and new fingerprints.
        """
        again = self.redact(line.decode(errors="replace").rstrip("\n")).encode() + b"\n"
        if changed is not None and again != line:
            changed.append((fingerprint(line), fingerprint(again)))
        return again

    def _renamed(self, changed: list[tuple[str, str]]) -> None:
        if changed and self.renamed is not None:
            self.renamed(changed)

    def append(
        self, row: Row[Any] | Mapping[str, Any], before: Callable[[bytes], None] | None = None
    ) -> None:
        """Append one row as one line: a single write, then flush (and fsync if asked).

        ``before`` is called with the line (its newline included) before it is written.
        """
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("ab")
        line = encode_row(row, self.redact)
        if before is not None:
            before(line)
        self._handle.write(line)
        self._handle.flush()
        if self.fsync:
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        """Close the append handle (appending again reopens it)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def finalize(self, order: Callable[[Key], Any]) -> list[tuple[Key, bool]]:
        """Rewrite the file sorted by ``order(row_key(row))`` (atomic); say what it holds.

        Repeated keys are dropped as :meth:`load` drops them: a finished row is kept over a
        failed one, else the first; a dropped failed row goes to ``keep_spend`` first (read
        again from its place). The file is read twice, a line at a time, and never held in
        memory (only each row's key, place and length are). A file that is already as it
        should be is not rewritten (a finished run on read-only media has nothing to do).

        Args:
            order: Sort key of a row's key, e.g. (method index, item index) in the plan.

        Returns:
            Every kept row's key and whether it failed, in the new file order.
        """
        self.close()
        if not self.path.exists():
            return []
        kept: dict[Key, _Line] = {}  # in file order: a replaced entry keeps its place
        dropped: list[_Line] = []  # failed rows left out: read again only to log their spend
        lines = 0
        clean = True
        with self.path.open("rb") as file:
            offset = 0
            for line in file:
                start, offset = offset, offset + len(line)
                lines += 1
                row, typed = _parse_ranked(line)
                if row is None:
                    clean = False
                    continue
                if not line.endswith(b"\n") or self._redacted(line) != line:
                    clean = False
                key, here = row_key(row), _Line(start, len(line), is_failed(row), typed)
                earlier = kept.get(key)
                if earlier is not None and here.rank >= earlier.rank:
                    if here.failed:
                        dropped.append(here)
                    continue
                if earlier is not None and earlier.failed:  # a finished row replaces it
                    dropped.append(earlier)
                kept[key] = here
        in_file_order = list(kept.items())
        in_plan_order = sorted(in_file_order, key=lambda entry: order(entry[0]))
        if not clean or lines != len(kept) or in_plan_order != in_file_order:
            changed: list[tuple[str, str]] = []
            with self.path.open("rb") as source:
                self._keep_spend([_failed_row(source, line) for line in dropped])
                chunks = (self._read_line(source, line, changed) for _, line in in_plan_order)
                _atomic_write(self.path, chunks, partial(self._renamed, changed))
        return [(key, line.failed) for key, line in in_plan_order]

    def _read_line(self, source: BinaryIO, line: _Line, changed: list[tuple[str, str]]) -> bytes:
        source.seek(line.offset)
        return self._redacted(source.read(line.length), changed)


def _failed_row(source: BinaryIO, line: _Line) -> tuple[str, dict[str, Any]]:
    """A failed row read again from its place, with its line's fingerprint."""
    source.seek(line.offset)
    raw = source.read(line.length)
    row = _parse(raw)
    return fingerprint(raw), row_dict(row) if row is not None else {}


class _Line(NamedTuple):
    """Where a kept row's line is in the file, whether it failed, whether it read well typed."""

    offset: int
    length: int
    failed: bool
    typed: bool = True

    @property
    def rank(self) -> int:
        """Which of two lines of one key is kept: the lower (well typed, then finished)."""
        return 2 if self.failed else 0 if self.typed else 1


def _parse(line: bytes) -> Row[Any] | None:
    """A line's row as the store keeps it: a field of another type does not drop the line."""
    return _parse_ranked(line)[0]


def _parse_ranked(line: bytes) -> tuple[Row[Any] | None, bool]:
    """A line's row as the store keeps it, and whether it read well typed."""
    row = _parse_checked(line)[0]
    if row is not None:
        return row, True
    return _parse_checked(line, lenient=True)[0], False


def _parse_checked(
    line: bytes, *, texts: bool = True, lenient: bool = False
) -> tuple[Row[Any] | None, str | None]:
    """A line's row, decoded through its declaration, or why it holds none.

    ``lenient``: an optional field of the wrong type reads as absent (see ``decode_row``).
    """
    try:
        row = decode_row(line, texts=texts, lenient=lenient)
    except (msgspec.DecodeError, RowError) as exc:
        return None, _line_problem(line, exc)
    problem = row_problem(row)
    return (None, problem) if problem is not None else (row, None)


def _line_problem(line: bytes, exc: Exception) -> str:
    """Why a line that the declaration refused holds no row, in the JSON object's words."""
    try:
        value = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return "not valid JSON"
    except RecursionError:
        return "JSON nested too deeply"
    return row_problem(value) or f"not a row ({exc})"


def read_manifest(out_dir: Path) -> dict[str, Any]:
    """The ``run.json`` of a results directory (``{}`` when it is missing or unreadable)."""
    try:
        document = json.loads((out_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}


def _upgraded(settings: Any) -> Any:
    """Recorded settings in today's vocabulary (an arm's ``model`` is ``models`` since 0.2)."""
    if not isinstance(settings, dict) or not isinstance(settings.get("arms"), list):
        return settings
    arms = []
    for arm in settings["arms"]:
        given = arm.get("settings") if isinstance(arm, dict) else None
        if isinstance(given, dict) and "model" in given and "models" not in given:
            given = {("models" if k == "model" else k): v for k, v in given.items()}
            arm = {**arm, "settings": dict(sorted(given.items()))}
        arms.append(arm)
    return {**settings, "arms": arms}


def _same_settings(out_dir: Path, held: list[str], wanted: Any) -> dict[str, Any]:
    """The manifest of ``out_dir``, which holds ``held`` files, once its settings are ``wanted``.

    Raises:
        SettingsMismatchError: No manifest, an unreadable one, another results format, or
            other settings (an edited question set said as such).
    """
    manifest = out_dir / MANIFEST_FILE
    if not manifest.exists():
        raise SettingsMismatchError(
            f"{out_dir} holds {' and '.join(held)} but no {MANIFEST_FILE}, so its "
            "settings are unknown: use another --out, or --force to discard those results"
        )
    document = read_manifest(out_dir)
    if not document:
        raise SettingsMismatchError(
            f"{out_dir / MANIFEST_FILE} is unreadable (not a JSON object), so the settings "
            f"of the results in {out_dir} are unknown: use another --out, or --force to "
            "discard those results"
        )
    recorded = _upgraded(document.get("settings"))
    if document.get("format") != MANIFEST_FORMAT:
        raise SettingsMismatchError(
            f"{out_dir} holds results written by another debategraph version (results "
            f"format {document.get('format')}, this one writes {MANIFEST_FORMAT}): use "
            "another --out, or --force to discard those results and start fresh"
        )
    if (
        isinstance(recorded, dict)
        and recorded.get("items") == wanted.get("items")
        and recorded.get("items_sha256") != wanted.get("items_sha256")
        and {k: v for k, v in recorded.items() if k != "items_sha256"}
        == {k: v for k, v in wanted.items() if k != "items_sha256"}
    ):
        raise SettingsMismatchError(
            f"the question set changed since the results in {out_dir} were written (same "
            "size, other content: questions, choices or references were edited): use "
            "another --out, or --force to discard those results and start fresh"
        )
    if recorded != wanted:
        raise SettingsMismatchError(
            f"{out_dir} holds results of a run with other settings "
            f"({_differences(recorded, wanted)}): use another --out, or --force to "
            "discard those results and start over"
        )
    return document


def check_manifest(
    out_dir: Path,
    settings: Mapping[str, Any],
    *,
    force: bool = False,
    redact: Callable[[str], str] = str,
    item_ids: list[str] | None = None,
) -> bool:
    """Make ``out_dir`` ready for a run with ``settings``; say whether it resumes one.

    A new directory (or one without results or ledger) gets a fresh ``run.json``. A
    directory whose ``run.json`` holds the same settings is resumed. The spend ledger counts
    as results: a run cut short before its first row left its spend there, which a run with
    other settings must not bill at its own prices. With ``force``, earlier results and the
    ledger are deleted and the run starts over.

    Args:
        out_dir: The results directory (created if missing).
        settings: JSON-ready settings that shape the rows (dataset, items, methods, models).
        force: Discard earlier results written with other settings.
        redact: Applied to the manifest before it is written or compared.
        item_ids: The ids of the run's items, recorded so that reports can check rows.

    Returns:
        Whether earlier results with the same settings are resumed.

    Raises:
        SettingsMismatchError: Earlier results (or ledger) with other (or unknown) settings,
            and no ``force``.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest, results = out_dir / MANIFEST_FILE, out_dir / RESULTS_FILE
    wanted = json.loads(redact(json.dumps(settings)))
    beside = (out_dir / INTERRUPTED_FILE, out_dir / SPEND_NOTES_FILE)
    workers = out_dir / SPEND_NOTES_DIR  # the notes Ray workers wrote themselves
    if force:  # the spend kept beside the discarded rows goes with them
        results.unlink(missing_ok=True)
        for path in beside:
            path.unlink(missing_ok=True)
        shutil.rmtree(workers, ignore_errors=True)
    elif held := [f.name for f in (results, *beside) if _nonempty(f)] + _noted_by_workers(workers):
        document = _same_settings(out_dir, held, wanted)
        if document.get("settings") != wanted or (item_ids and "item_ids" not in document):
            _write_manifest(manifest, wanted, item_ids or document.get("item_ids"))
        return True
    _write_manifest(manifest, wanted, item_ids)
    return False


def _noted_by_workers(folder: Path) -> list[str]:
    """``["spend/"]`` when Ray workers wrote spend notes there, else nothing."""
    return [f"{folder.name}/"] if any(map(_nonempty, folder.glob("*/*.jsonl"))) else []


def _nonempty(path: Path) -> bool:
    return path.exists() and path.stat().st_size > 0


def _write_manifest(path: Path, settings: Any, item_ids: list[str] | None) -> None:
    document: dict[str, Any] = {"format": MANIFEST_FORMAT, "settings": settings}
    if item_ids:
        document["item_ids"] = item_ids
    _atomic_write(path, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode())


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


def read_rows(path: Path, *, texts: bool = False, lenient: bool = False) -> Iterator[Row[Any]]:
    """The well-formed rows of a results file, in file order, read one line at a time.

    Args:
        path: The results file.
        texts: Decode the turns whole (:class:`~debategraph.eval.log.row.Turn`); without,
            their figures only (:class:`~debategraph.eval.log.row.TurnFigures`).
        lenient: Read a field of another type as absent (as resuming does).
    """
    if not path.exists():
        return
    with path.open("rb") as file:
        for line in file:
            row = _parse_checked(line, texts=texts, lenient=lenient)[0]
            if row is not None:
                yield row


def check_finished(
    out_dir: Path,
    settings: Mapping[str, Any],
    planned: set[Key],
    *,
    redact: Callable[[str], str] = str,
) -> None:
    """Check that a directory that cannot be written (read-only media) holds a finished run.

    Such a directory can be reported on but not resumed: if its ``run.json`` has these
    settings and every planned row is finished, there is nothing to do.

    Raises:
        SettingsMismatchError: The directory holds another run, or the run is not finished
            (it needs a writable copy to go on).
    """
    document = read_manifest(out_dir)
    wanted = json.loads(redact(json.dumps(settings)))
    if _upgraded(document.get("settings")) != wanted:
        raise SettingsMismatchError(
            f"{out_dir} cannot be written and holds no finished run with these settings: "
            "use another --out"
        )
    rows = read_rows(out_dir / RESULTS_FILE, lenient=True)  # as resuming reads them
    done = {row_key(row) for row in rows if not is_failed(row)}
    missing = len(planned - done)
    if missing:
        raise SettingsMismatchError(
            f"{out_dir} cannot be written and {missing} row(s) of its run are not finished: "
            "copy it somewhere writable to resume, or use another --out"
        )
