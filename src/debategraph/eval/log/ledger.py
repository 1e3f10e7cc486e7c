"""The spend kept beside the rows: ``OUT/interrupted.jsonl``, one line per event.

Every token the provider reported to a run is in exactly one place: a row of
``results.jsonl`` (its used and wasted tokens) or this ledger. Two events leave spend
outside the rows, and each appends one line:

* an interrupted run (Ctrl-C, the breaker): the debates it cut short write no row, and the
  line lists them under ``cut_short`` (:mod:`debategraph.eval.run.cut_short`), with the rows
  the breaker held back when the run stopped and, in any run, a row of work an executor
  ran twice (a Ray worker died), which is written once;
* a rewrite of ``results.jsonl`` that drops failed rows: resuming drops them to run them
  again, and the final rewrite drops one that a finished row of the same key replaced. The
  line lists them under ``retried``, each with the SHA-256 of its line (``row_sha256``).

A line holds the time, the totals (``debates`` and :data:`TOTALS`) and its entries; an entry
holds ``method``, ``id``, ``seed`` (under ``--seeds``) and :data:`TOTALS`.

A failed row is logged here before ``results.jsonl`` is rewritten without it, so a crash in
between loses nothing. Then both hold it for a moment: the next rewrite does not log a line
whose fingerprint is logged already, and :func:`read_ledger` skips an entry whose line is
still in ``results.jsonl``, so nothing is counted twice.

A damaged line or entry (hand-edited: wrong types, missing keys) is left out and reported as
one problem line naming ``interrupted.jsonl`` and its line number, never a traceback.

Written ahead: ``OUT/spend.jsonl`` (:class:`NoteFile`) gets one line per spend note as it
happens (a request sent, a reply's tokens, a failed request: see
:class:`~debategraph.eval.log.spend.SpendMeter`), keyed by the debate's ``method``, ``id``,
``seed``, its ``attempt`` and the note's number ``n`` within it. Before a row is appended
the file gets a cover line (``attempt``, ``notes``, ``row_sha256``): the row holds that
attempt's first ``notes`` notes. A cut-short entry names the notes it holds the same way.
:func:`read_ledger` counts, as kind ``noted``, every note that no row of ``results.jsonl``,
retried entry or cut-short entry holds: the spend of a run killed (SIGKILL, power loss,
out of memory), of a debate that a fault outside it ended, and of replies that arrived
after their debate's row was made. A cover line whose row never reached the file (a crash
between the two writes) covers nothing. A rewrite of ``results.jsonl`` that changes a kept
line (the redactor knows a secret more) first appends a rename (``was``, ``row_sha256``:
the line's old and new SHA-256), so its cover line still covers. A cover line also names
its row's ``method``, ``id`` and ``seed``: a row edited by hand (its SHA-256 named by no
cover line) is held by the last cover line of its key whose own line is gone, so its notes
are not counted twice. The notes are read in two streamed passes, never held in memory
(``bench/RESULTS-spend-notes.md``).

Ray workers write their own notes, one file each: ``OUT/spend/<run>/<worker>.jsonl``
(:func:`note_files`; the driver writes the cover lines to ``OUT/spend.jsonl``), so every
file has one writer and a driver killed with its workers loses no note.

A request's note carries an estimate of its input (``input_estimate``) and the note of its
reply or failure closes it (``closed``, ``closed_estimate``): the requests no note closed
are read apart, as :data:`UNANSWERED` (a reply on the wire when the run was killed: billed
by the provider, read by no client), never added to the exact figures.

Each note is one ``write`` to the file, which the kernel keeps once the call returns: a
killed process loses no note it made. Without ``--fsync`` the notes reach the disk when the
kernel writes them (a power loss can lose what it still buffers, at most those seconds);
with it every note is synced, as every row is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from debategraph.eval.log.bill import row_parts
from debategraph.eval.log.files import (
    INTERRUPTED_FILE,
    RESULTS_FILE,
    SPEND_NOTES_DIR,
    SPEND_NOTES_FILE,
)
from debategraph.eval.log.row import Row, RowError, as_row, decode_row, opt

TOTALS = ("input_tokens", "output_tokens", "requests", "failed_requests")
"""The figures of an entry, summed over entries."""

KINDS = ("cut_short", "retried")
"""The kinds of ledger lines: the key under which each lists its entries."""

BILLED_KINDS = (*KINDS, "noted")
"""What :func:`read_ledger` returns, billed: the ledger's kinds and the notes no row holds."""

UNANSWERED = "unanswered"
"""What :func:`read_ledger` also returns, never billed: per debate attempt, the requests sent
whose reply never reached any record (``requests``) and an estimate of their input tokens
(``input_estimate``): a reply on the wire when the run was killed, a call cut off in flight.
A provider may bill them; no client record can say what it billed."""


def fingerprint(line: bytes) -> str:
    """The SHA-256 of a results line (without its newline): which failed row was logged."""
    return hashlib.sha256(line.rstrip(b"\n")).hexdigest()


def row_spend(row: Row[Any] | Mapping[str, Any]) -> dict[str, int]:
    """What a row's requests were billed, as :data:`TOTALS`.

    A failed row's tokens are all wasted; a finished row's are those of its paid calls and
    its wasted ones (a call replayed from the call cache made no request).

    Raises:
        RowError: ``row`` is a JSON object that is no well-typed row.
    """
    typed = as_row(row)
    paid = {} if opt(typed.error) is not None else row_parts(typed)[0]
    return {
        "input_tokens": int(paid.get("input_tokens") or 0) + (typed.wasted_input_tokens or 0),
        "output_tokens": int(paid.get("output_tokens") or 0) + (typed.wasted_output_tokens or 0),
        "requests": typed.requests or 0,
        "failed_requests": typed.failed_requests or 0,
    }


def entry(
    method: object, item_id: object, spend: Mapping[str, int], *, seed: object = None
) -> dict[str, Any]:
    """A ledger entry: the debate's method, id, seed (when given) and spend."""
    debate: dict[str, Any] = {"method": method, "id": item_id}
    if isinstance(seed, int) and not isinstance(seed, bool):
        debate["seed"] = seed
    return {**debate, **{key: int(spend[key]) for key in TOTALS}}


def totals(entries: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The sums of :data:`TOTALS` over entries, and their count as ``debates``."""
    sums = dict.fromkeys(TOTALS, 0)
    count = 0
    for debate in entries:
        count += 1
        for name in TOTALS:
            sums[name] += int(debate[name])
    return {"debates": count, **sums}


def append_line(out_dir: Path, kind: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Append one line of ``kind`` to the ledger, synced to disk; returns the line.

    After a last line torn by a crash the new line starts on a line of its own (the torn one
    stays unreadable, and is skipped), so its spend is not glued onto the fragment.
    """
    line = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **totals(entries)}
    line[kind] = entries
    path = out_dir / INTERRUPTED_FILE
    with open(path, "ab") as log:
        torn = log.tell() > 0 and not _ends_a_line(path)
        log.write((("\n" if torn else "") + json.dumps(line) + "\n").encode())
        log.flush()
        os.fsync(log.fileno())
    return line


def _ends_a_line(path: Path) -> bool:
    with open(path, "rb") as file:
        file.seek(-1, os.SEEK_END)
        return file.read(1) == b"\n"


def _lines(out_dir: Path, problems: list[str] | None = None) -> list[dict[str, Any]]:
    """The ledger's lines with their well-formed entries only (:func:`entry_problem`).

    A last line torn by a crash while it was written is skipped quietly; any other line that
    is not a JSON object, or that holds a damaged entry, is reported in ``problems`` with its
    line number, and only its damaged entries are left out.
    """
    try:
        text = (out_dir / INTERRUPTED_FILE).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    raws = text.split("\n")[:-1]  # the last piece is "" or a line torn by a crash
    lines = []
    for number, raw in enumerate(raws, start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError):
            line = None
        if not isinstance(line, dict):
            _report(problems, number, "not a JSON object: its spend is left out")
            continue
        lines.append(_checked(line, number, problems))
    return lines


def entry_problem(debate: object, kind: str) -> str | None:
    """What is wrong with a ledger entry of ``kind``, or ``None`` when it is well formed.

    An entry needs a string ``method`` and ``id``, non-negative integer :data:`TOTALS`, an
    integer ``seed`` where it has one and, when ``retried``, a string ``row_sha256``.
    """
    if not isinstance(debate, dict):
        return "not a JSON object"
    strings = ("method", "id", "row_sha256") if kind == "retried" else ("method", "id")
    counts = TOTALS + (("seed",) if "seed" in debate else ())
    for name in strings + counts:
        if name not in debate:
            return f"no {name!r} field"
        value, wanted = debate[name], str if name in strings else int
        if not isinstance(value, wanted) or isinstance(value, bool):
            return f"{name!r} is {type(value).__name__}, not {wanted.__name__}"
        if isinstance(value, int) and name in TOTALS and value < 0:
            return f"{name!r} is negative"
    return None


def _checked(line: dict[str, Any], number: int, problems: list[str] | None) -> dict[str, Any]:
    """``line`` with only its well-formed entries; what was left out goes to ``problems``."""
    checked = dict(line)
    skipped: list[str] = []
    for kind in KINDS:
        listed = line.get(kind)
        if kind not in line:
            continue
        if not isinstance(listed, list):
            skipped.append(f"{kind!r} is {type(listed).__name__}, not a list")
            checked[kind] = []
            continue
        checked[kind] = []
        for place, debate in enumerate(listed, start=1):
            problem = entry_problem(debate, kind)
            if problem is None:
                checked[kind].append(debate)
            else:
                skipped.append(f"{kind} entry {place}: {problem}")
    if not any(kind in line for kind in KINDS):
        skipped.append(f"no {' or '.join(KINDS)} list")
    if skipped:
        more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
        _report(problems, number, f"{skipped[0]}{more}: its spend is left out")
    return checked


def _report(problems: list[str] | None, number: int, problem: str) -> None:
    if problems is not None:
        problems.append(f"{INTERRUPTED_FILE}, line {number}: {problem}")


def _entries(line: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    """The entries of ``kind`` in a line that :func:`_lines` checked."""
    listed = line.get(kind)
    return list(listed) if isinstance(listed, list) else []


def log_retried(out_dir: Path, dropped: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """Log the spend of failed rows about to leave ``results.jsonl`` (call before removing them).

    A row that spent nothing, or whose line is logged already (a rewrite that a crash
    stopped before it replaced the file), is not logged.

    Args:
        out_dir: The results directory.
        dropped: Each failed row with its line's :func:`fingerprint`.
    """
    logged = Counter(
        e.get("row_sha256") for line in _lines(out_dir) for e in _entries(line, "retried")
    )
    fresh = []
    for sha, row in dropped:
        if logged[sha] > 0:
            logged[sha] -= 1
            continue
        spend = row_spend(row)
        if any(spend.values()):
            debate = entry(row.get("method"), row.get("id"), spend, seed=row.get("seed"))
            fresh.append({**debate, "row_sha256": sha})
    if fresh:
        append_line(out_dir, "retried", fresh)


def _failed_lines(results: Path) -> Counter[str]:
    """The fingerprints of the failed rows' lines in a results file."""
    found: Counter[str] = Counter()
    try:
        file = results.open("rb")
    except FileNotFoundError:
        return found
    with file:
        for line in file:
            if b'"error"' in line and line.endswith(b"\n"):
                found[fingerprint(line)] += 1
    return found


def read_ledger(
    out_dir: Path, problems: list[str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Every well-formed entry of the ledger of ``out_dir``, by kind (:data:`BILLED_KINDS`).

    Under ``noted``, one entry per debate attempt whose spend notes no row or entry holds
    (:func:`uncovered_notes`); under :data:`UNANSWERED` (not billed), the requests whose
    reply reached no record, with an estimate of their input. A ``retried`` entry whose
    failed row is still a line of ``results.jsonl`` is left out: the row counts it.

    Args:
        out_dir: The results directory.
        problems: Where a damaged line or entry is reported (one line each, naming
            ``interrupted.jsonl`` and the line number); it is left out of the entries.
    """
    lines = _lines(out_dir, problems)
    found = {kind: [e for line in lines for e in _entries(line, kind)] for kind in KINDS}
    found["noted"], found[UNANSWERED] = _read_notes(out_dir, found)
    if found["retried"]:
        present = _failed_lines(out_dir / RESULTS_FILE)
        kept = []
        for debate in found["retried"]:
            sha = debate["row_sha256"]
            if present[sha] > 0:
                present[sha] -= 1
                continue
            kept.append(debate)
        found["retried"] = kept
    return found


NOTE_FIGURES = TOTALS
"""The figures a spend note may carry (each 0 when absent)."""


class NoteFile:
    """The write-ahead spend notes of a run: one writer, one ``write`` per line.

    Args:
        out_dir: The results directory.
        fsync: Sync every line to disk (as ``--fsync`` does for rows).
        path: The file, when not ``OUT/spend.jsonl`` (a Ray worker's own, under
            ``OUT/spend/``: see :func:`note_files`).

    Attributes:
        failure: The first error met writing a note (a full disk); the runner stops with it.
    """

    def __init__(self, out_dir: Path, *, fsync: bool = False, path: Path | None = None) -> None:
        self.path = out_dir / SPEND_NOTES_FILE if path is None else path
        self.fsync = fsync
        self.failure: OSError | None = None
        self._fd: int | None = None
        self._torn = False

    def _open(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self._torn = os.fstat(self._fd).st_size > 0 and not _ends_a_line(self.path)
        return self._fd

    def write(self, line: Mapping[str, Any]) -> bool:
        """Append one line (a note or a cover line); an error is kept in :attr:`failure`.

        Returns:
            Whether the whole line reached the file (it did when only its ``fsync`` failed:
            the line must not be written anywhere else too, or it would count twice).
        """
        data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
        written = False
        try:
            fd = self._open()
            if self._torn:  # a line torn by a crash: the next one starts on a line of its own
                data, self._torn = b"\n" + data, False
            left = memoryview(data)
            while left:  # a short write (a signal, a full pipe): the rest follows it
                self._torn = True
                left = left[os.write(fd, left) :]
            self._torn, written = False, True
            if self.fsync:
                os.fsync(fd)
        except OSError as exc:
            if self.failure is None:
                self.failure = exc
        return written

    def note(self, line: dict[str, Any]) -> None:
        """Append one spend note (:meth:`write`, for a receiver of notes that wants no answer)."""
        self.write(line)

    def cover(
        self, covers: Mapping[str, Any], line: bytes, *, key: Sequence[Any] | None = None
    ) -> None:
        """Say that the results line ``line`` holds ``covers``' notes (before writing it).

        With the row's ``key`` (method, id, seed) the cover still finds its row after the
        line was edited by hand (its SHA-256 changed).

        Raises:
            OSError: The cover line could not be written (:attr:`failure`): the row must not
                be written either, or its notes would count twice.
        """
        line_ = {"attempt": covers["attempt"], "notes": covers["notes"],
                 "row_sha256": fingerprint(line)}  # fmt: skip
        if key is not None:
            method, item_id, seed = key
            line_ |= {"method": method, "id": item_id}
            if seed is not None:
                line_["seed"] = seed
        self.write(line_)
        if self.failure is not None:
            raise self.failure

    def close(self) -> None:
        """Sync what was written and close the file."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None


class _NoteLine(msgspec.Struct, gc=False):
    """The fields of a ``spend.jsonl`` line that the reader uses (any others are skipped).

    A note has ``attempt`` and ``n``; a cover line ``attempt``, ``notes`` and ``row_sha256``;
    a rename ``was`` and ``row_sha256``. Values are checked where they are used.
    """

    attempt: Any = None
    n: Any = None
    method: Any = None
    id: Any = None
    seed: Any = None
    input_tokens: Any = None
    output_tokens: Any = None
    requests: Any = None
    failed_requests: Any = None
    notes: Any = None
    row_sha256: Any = None
    was: Any = None
    input_estimate: Any = None
    closed: Any = None
    closed_estimate: Any = None


_NOTE_LINE = msgspec.json.Decoder(_NoteLine)


def note_files(out_dir: Path) -> list[Path]:
    """The spend-note files of a results directory, each with one writer.

    ``OUT/spend.jsonl`` (the run's own process: its notes, the cover lines and renames) and
    ``OUT/spend/<run>/<worker>.jsonl``, the notes each Ray worker wrote itself.
    """
    workers = sorted((out_dir / SPEND_NOTES_DIR).glob("*/*.jsonl"))
    return [out_dir / SPEND_NOTES_FILE, *workers]


def _note_lines(out_dir: Path, *, covers: bool) -> Iterator[_NoteLine]:
    """The whole JSON-object lines of every note file (:func:`note_files`), one at a time.

    With ``covers``, the cover lines and renames (:func:`log_renamed`) only; else the rest.
    A torn or damaged line is skipped, and each line is parsed by one of the two passes only.
    """
    for path in note_files(out_dir):
        try:
            file = path.open("rb")
        except (FileNotFoundError, IsADirectoryError):
            continue
        with file:
            for raw in file:
                if not raw.endswith(b"\n") or (_COVER_KEY in raw) != covers:
                    continue  # torn by a crash, or the other pass's
                try:
                    yield _NOTE_LINE.decode(raw)
                except (msgspec.DecodeError, RecursionError):
                    continue


_COVER_KEY = b'"row_sha256":'
"""How a cover line or a rename names its row, as :class:`NoteFile` writes it."""


def log_renamed(out_dir: Path, renamed: Sequence[tuple[str, str]]) -> None:
    """Note that rewritten results lines changed bytes (call before the file is replaced).

    A rewrite passes every kept line through the redactor again; a secret configured since
    changes the line, and so its :func:`fingerprint`. Each ``(old, new)`` pair becomes a line
    ``{"was": old, "row_sha256": new}`` of ``spend.jsonl``, so that the cover lines naming the
    old fingerprint still cover their notes and no note is counted twice.
    """
    if not renamed:
        return
    notes = NoteFile(out_dir, fsync=True)
    try:
        for old, new in renamed:
            notes.write({"was": old, "row_sha256": new})
    finally:
        notes.close()
    if notes.failure is not None:
        raise notes.failure


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


Key = tuple[str, str, int | None]
"""A row's method, id and seed (``None`` without ``--seeds``)."""


def _key(method: object, item_id: object, seed: object) -> Key | None:
    if not isinstance(method, str) or not isinstance(item_id, str):
        return None
    return method, item_id, seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def _result_lines(results: Path, named: set[str]) -> tuple[set[str], Counter[Key]]:
    """The fingerprints of every whole line of a results file, and the unnamed rows' keys.

    A row whose fingerprint no cover line or rename names (``named``) was edited since.
    """
    found: set[str] = set()
    unnamed: Counter[Key] = Counter()
    try:
        file = results.open("rb")
    except FileNotFoundError:
        return found, unnamed
    with file:
        for line in file:
            if not line.endswith(b"\n"):
                continue
            sha = fingerprint(line)
            found.add(sha)
            if sha in named:
                continue
            try:
                row = json.loads(line)
            except (ValueError, RecursionError):
                continue
            key = (
                _key(row.get("method"), row.get("id"), row.get("seed"))
                if isinstance(row, dict)
                else None
            )
            if key is not None:
                unnamed[key] += 1
    return found, unnamed


class _Cover(NamedTuple):
    attempt: str
    sha: str
    notes: int
    key: Key | None


def _covered(out_dir: Path, ledger: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, int]:
    """How many of each attempt's notes a row or entry holds (the first pass).

    A cut-short entry holds its attempt's first ``notes`` notes; a cover line does when its
    row is a line of ``results.jsonl`` (under its SHA-256, or renamed) or a retried entry.
    A row edited by hand (its SHA-256 named by no cover line), or the retried entry of
    such a row, is held by the last cover line of its key whose own line is gone, so its
    notes are not counted twice.
    """
    held: dict[str, int] = {}
    for debate in ledger.get("cut_short", ()):
        attempt, notes = debate.get("attempt"), _count(debate.get("notes"))
        if isinstance(attempt, str):
            held[attempt] = max(held.get(attempt, 0), notes)
    covers: list[_Cover] = []
    renames: list[tuple[str, str]] = []
    for line in _note_lines(out_dir, covers=True):
        sha = line.row_sha256
        if not isinstance(sha, str):
            continue
        if isinstance(line.was, str):
            renames.append((line.was, sha))
        elif isinstance(line.attempt, str):
            key = _key(line.method, line.id, line.seed)
            covers.append(_Cover(line.attempt, sha, _count(line.notes), key))
    if not covers:
        return held
    named = {c.sha for c in covers} | {new for _, new in renames}
    rows, edited = _result_lines(out_dir / RESULTS_FILE, named)
    for retried in ledger.get("retried", ()):
        sha = str(retried.get("row_sha256"))
        key = _key(retried.get("method"), retried.get("id"), retried.get("seed"))
        if sha not in named and sha not in rows and key is not None:
            edited[key] += 1  # a row edited by hand, then retried: its line is gone
        rows.add(sha)
    for old, new in reversed(renames):  # a line rewritten twice: the later name first
        if new in rows:
            rows.add(old)
    for cover in reversed(covers):  # an edited row: its key's last cover whose line is gone
        if cover.sha in rows:
            held[cover.attempt] = max(held.get(cover.attempt, 0), cover.notes)
        elif cover.key is not None and edited[cover.key] > 0:
            edited[cover.key] -= 1
            held[cover.attempt] = max(held.get(cover.attempt, 0), cover.notes)
    return held


def _read_notes(
    out_dir: Path, ledger: Mapping[str, Sequence[Mapping[str, Any]]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The notes no row or entry holds, and the requests with no reply on record.

    Two streamed passes: the cover lines (:func:`_covered`), then the notes. A request note
    with its ``input_estimate`` opens a request of its attempt, a note with ``closed``
    closes it (a reply or a failure); those left open, over all notes (held or not), are
    the :data:`UNANSWERED` requests. A cut-short entry without an attempt (its run kept no
    notes) adds its own ``cut_off_requests`` and ``estimated_input_tokens``.
    """
    held = _covered(out_dir, ledger)
    spent: dict[str, dict[str, Any]] = {}
    open_: dict[str, dict[str, Any]] = {}
    for line in _note_lines(out_dir, covers=False):  # second pass: sum what no one holds
        attempt = line.attempt
        if line.n is None or not isinstance(attempt, str):
            continue
        _balance(open_, attempt, line)
        if _count(line.n) <= held.get(attempt, 0):
            continue
        if attempt not in spent:
            spent[attempt] = {**entry(line.method, line.id, dict.fromkeys(TOTALS, 0),
                                      seed=line.seed), "attempt": attempt}  # fmt: skip
        debate = spent[attempt]
        for name in NOTE_FIGURES:
            debate[name] += _count(getattr(line, name))
    unanswered = list(open_.values())
    for cut in ledger.get("cut_short", ()):
        cut_off = _count(cut.get("cut_off_requests"))
        if "attempt" not in cut and cut_off:
            zero = dict.fromkeys(TOTALS, 0)
            legacy = entry(cut["method"], cut["id"], zero, seed=cut.get("seed"))
            estimate = _count(cut.get("estimated_input_tokens"))
            unanswered.append({**legacy, "requests": cut_off, "input_estimate": estimate})
    return [d for d in spent.values() if any(d[name] for name in TOTALS)], unanswered


def _balance(open_: dict[str, dict[str, Any]], attempt: str, line: _NoteLine) -> None:
    """Open a request (a note with its ``input_estimate``) or close one (``closed``)."""
    estimate = line.input_estimate
    if _count(line.requests) and isinstance(estimate, int) and not isinstance(estimate, bool):
        if attempt not in open_:
            debate = entry(line.method, line.id, dict.fromkeys(TOTALS, 0), seed=line.seed)
            open_[attempt] = {**debate, "attempt": attempt, "input_estimate": 0}
        debate = open_[attempt]
        debate["requests"] += 1
        debate["input_estimate"] += max(0, estimate)
    closed = _count(line.closed)
    if closed and attempt in open_:
        debate = open_[attempt]
        debate["requests"] -= closed
        debate["input_estimate"] = max(0, debate["input_estimate"] - _count(line.closed_estimate))
        if debate["requests"] <= 0:
            del open_[attempt]


def uncovered_notes(
    out_dir: Path, ledger: Mapping[str, Sequence[Mapping[str, Any]]]
) -> list[dict[str, Any]]:
    """The spend of the notes that no row, retried entry or cut-short entry holds.

    A cut-short entry holds its attempt's first ``notes`` notes; a cover line does when its
    row is a line of ``results.jsonl`` or a retried entry (the row was dropped to run again).

    Args:
        out_dir: The results directory.
        ledger: The ledger's entries by kind (:data:`KINDS`), read from ``interrupted.jsonl``.

    Returns:
        One entry per attempt with uncovered notes (its ``attempt`` named), in file order.
    """
    return _read_notes(out_dir, ledger)[0]


def spend_on_record(out_dir: Path) -> dict[str, int]:
    """Every token ``out_dir``'s runs spent, as :data:`TOTALS`.

    Its rows' (used and wasted) plus the ledger's (every kind of :data:`BILLED_KINDS`).
    """
    sums = dict.fromkeys(TOTALS, 0)
    try:
        file = (out_dir / RESULTS_FILE).open("rb")
    except FileNotFoundError:
        file = None
    if file is not None:
        with file:
            for line in file:
                try:
                    row = decode_row(line.rstrip(b"\n"), texts=False, lenient=True)
                except (msgspec.DecodeError, RowError, RecursionError):
                    continue
                for name, value in row_spend(row).items():
                    sums[name] += value
    found = read_ledger(out_dir)
    ledger = totals(e for kind in BILLED_KINDS for e in found[kind])
    return {name: sums[name] + ledger[name] for name in TOTALS}
