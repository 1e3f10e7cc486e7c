"""Reading a results directory: its rows, and their summaries per (source, dataset) group."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import msgspec.structs
from msgspec import UNSET

from debategraph.eval.analysis.dynamics import RoundStats, round_dynamics
from debategraph.eval.analysis.metrics import MethodSummary, Row, RowLike, group_by, summarize
from debategraph.eval.log.row import RECORD_FIELDS, RowError, as_row, decode_row, opt
from debategraph.eval.log.row_index import row_files
from debategraph.policies.model_names import SIMULATED

SOURCE_TITLES = {
    "simulated": "Simulated models",
    "real": "Real model outputs",
    "": "Source not recorded",
}


SIMULATED_NOTE = (
    "Simulated rows come from the simulated chat model, a test double: they show that the "
    "pipeline runs and what it measures, not how accurate a method is."
)


@dataclass(frozen=True)
class Group:
    """Rows of one (source, dataset) pair and their per-method summaries.

    Attributes:
        source: ``simulated``, ``real`` or ``""`` (not recorded).
        dataset: The rows' ``dataset`` value, or ``""``.
        summaries: Method -> summary, in first-seen order.
        overall_rounds: The rounds of every method that debated, pooled (each debate
            counts once); empty unless two methods or more debated.
        rows: The group's rows, each with the source it is reported under (what every view
            of the group, summaries and Pareto points alike, rests on).
    """

    source: str
    dataset: str
    summaries: dict[str, MethodSummary]
    overall_rounds: list[RoundStats] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list, repr=False, compare=False)

    @property
    def title(self) -> str:
        """Heading of the group, e.g. ``Simulated models: gsm8k``."""
        base = SOURCE_TITLES.get(self.source, f"Source: {self.source}")
        return f"{base}: {self.dataset}" if self.dataset else base

    @property
    def tag(self) -> str:
        """Short label for plot legends, e.g. ``simulated/gsm8k``."""
        return "/".join(part for part in (self.source, self.dataset) if part)


@dataclass
class LoadedRows:
    """The rows of a results directory that a report may rest on, and what was left out.

    Attributes:
        rows: The rows used, in file order (empty where they were streamed,
            :func:`stream_rows`).
        problems: One line per line left out, with its file and line number and why.
        excluded: How many lines were left out, by reason (``malformed``, ``not utf-8``,
            ``foreign id``, ``foreign method``, ``duplicate``).
        used: How many rows were used.
    """

    rows: list[Row] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    excluded: dict[str, int] = field(default_factory=dict)
    used: int = 0

    def leave_out(self, where: str, reason: str, detail: str) -> None:
        """Record a line left out."""
        self.problems.append(f"{where}: {detail}")
        self.excluded[reason] = self.excluded.get(reason, 0) + 1

    def describe(self) -> str:
        """One sentence: how many rows the figures rest on, and what was left out."""
        text = f"The figures rest on {self.used} row(s)"
        if not self.excluded:
            return text + "."
        parts = ", ".join(f"{n} {reason}" for reason, n in self.excluded.items())
        return f"{text}; {sum(self.excluded.values())} line(s) were left out ({parts})."


def load_rows(results_dir: str | os.PathLike[str], *, texts: bool = True) -> LoadedRows:
    """Read every ``*.jsonl`` file of a directory (not recursive, name order), checked.

    The ledger of spend kept beside the rows (``interrupted.jsonl``) holds no rows and is
    not read.

    Lines that are not UTF-8, not JSON, or not a well-formed row are left out and listed. A
    row whose ``(method, id)`` was seen before (in the same source and dataset) is a
    duplicate: the first one counts. When the
    directory's ``run.json`` names the run's items and arms, the rows of ``results.jsonl``
    must belong to them: rows of other items or methods are left out and listed.

    Every line is decoded through the row's declaration (:mod:`debategraph.eval.log.row`).

    Args:
        results_dir: The results directory.
        texts: Keep every field, and what the turns' models wrote (texts, reasoning,
            prompts); without, a row keeps its figures only (its turns
            :class:`~debategraph.eval.log.row.TurnFigures`, its
            :data:`~debategraph.eval.log.row.RECORD_FIELDS` unset), which is all a report
            reads.

    Returns:
        The rows used, and what was left out.
    """
    loaded = LoadedRows()
    rows = stream_rows(results_dir, loaded, texts=texts)
    loaded.rows.extend(rows if texts else map(_figures_only, rows))
    return loaded


def _figures_only(row: Row) -> Row:
    """The row without its :data:`~debategraph.eval.log.row.RECORD_FIELDS` (held rows)."""
    for name in RECORD_FIELDS:
        setattr(row, name, UNSET)
    return row


def stream_rows(
    results_dir: str | os.PathLike[str], loaded: LoadedRows, *, texts: bool = True
) -> Iterator[Row]:
    """The rows :func:`load_rows` uses, one at a time, recording in ``loaded`` what it leaves out.

    Every row is a :class:`~debategraph.eval.log.row.Row`: a line the typed decoder refuses
    is read as JSON and checked into one (:func:`~debategraph.eval.log.row.as_row`), or left
    out as malformed with the reason the check gives, naming the field. Holds one key per
    row (to find duplicates), not the rows.
    """
    from debategraph.eval.log.store import RESULTS_FILE, read_manifest

    folder = Path(results_dir)
    manifest = read_manifest(folder)
    item_ids = set(manifest.get("item_ids") or ()) or None
    labels = {a.get("label") for a in manifest.get("settings", {}).get("arms", ())} or None
    seen: dict[tuple[str | int | None, ...], tuple[str, int]] = {}
    for file in row_files(folder):
        own = file.name == RESULTS_FILE
        for number, raw in enumerate(_lines(file), start=1):
            if raw.isspace() or not raw:
                continue
            row, key, why = _checked(raw, texts, own, item_ids, labels)
            if row is not None:
                identity = (row.source or "", row.dataset or "", *key)
                if identity in seen:
                    first = "{}, line {}".format(*seen[identity])
                    why = ("duplicate", f"{key[0]}/{key[1]} repeats {first}")
                else:
                    seen[identity] = (file.name, number)
            if why is not None or row is None:
                loaded.leave_out(f"{file.name}, line {number}", *(why or ("malformed", "")))
                continue
            loaded.used += 1
            yield row


def _key(row: Row) -> tuple[str, str, int | None]:
    """A row's identity: method, id and seed (``store.row_key``'s)."""
    return (row.method, str(row.id), opt(row.seed))


_NO_KEY = ("", "", None)


def _checked(
    raw: bytes, texts: bool, own: bool, item_ids: set[Any] | None, labels: set[Any] | None
) -> tuple[Row | None, tuple[str, str, int | None], tuple[str, str] | None]:
    """The row of a line and its key, or ``None`` and why it is left out (reason, detail)."""
    row, unread = _decoded(raw, texts)
    if row is None:
        return None, _NO_KEY, ("not utf-8" if unread == NOT_UTF8 else "malformed", unread)
    if not _well_formed(row):
        from debategraph.eval.log.store import row_problem

        return None, _NO_KEY, ("malformed", row_problem(row) or "not a results row")
    key = _key(row)
    if own and item_ids is not None and key[1] not in item_ids:
        return None, key, ("foreign id", f"item {key[1]!r} is not in this run")
    if own and labels is not None and key[0] not in labels:
        return None, key, ("foreign method", f"method {key[0]!r} is not an arm")
    return row, key, None


def _well_formed(row: Row) -> bool:
    """What ``store.row_problem`` checks, read from a row whose field types are checked.

    A failed row needs its ``id`` a string; a finished one ``answer`` (a string or null),
    ``correct``, ``round_answers`` (an answer per agent in every round) and its counters,
    none negative.
    """
    if not isinstance(row.id, str):
        return False
    if row.error is not UNSET:
        return True
    counters = (row.input_tokens, row.output_tokens, row.calls)
    rounds = row.round_answers
    return (
        (row.answer is None or isinstance(row.answer, str))
        and row.correct is not UNSET
        and rounds is not UNSET
        and all(n is not UNSET and n >= 0 for n in counters)
        and all(len(answers) == len(rounds[0]) for answers in rounds)
    )


NOT_UTF8 = "not UTF-8 text"


def _lines(file: Path) -> Iterator[bytes]:
    """The lines of ``file``, one at a time (a results file may be larger than memory)."""
    with file.open("rb", buffering=1 << 20) as lines:
        yield from lines


def _decoded(raw: bytes, texts: bool) -> tuple[Row | None, str]:
    """The row of a line through its declaration, or ``None`` and why it is no row."""
    try:
        return decode_row(raw, texts=texts), ""
    except RowError as exc:  # JSON that the declaration refused after its own repairs
        return None, str(exc) if raw.lstrip().startswith(b"{") else "not a JSON object"
    except msgspec.DecodeError:
        pass
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, NOT_UTF8
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg})"
    except RecursionError:
        return None, "JSON nested too deeply"
    if not isinstance(value, dict):
        return None, "not a JSON object"
    try:
        return as_row(value), ""
    except RowError as exc:
        return None, str(exc)


def read_results(results_dir: str | os.PathLike[str]) -> tuple[list[Row], list[str]]:
    """The checked rows of a directory and one line per line left out (see :func:`load_rows`)."""
    loaded = load_rows(results_dir)
    return loaded.rows, loaded.problems


def group_sources(rows: Sequence[RowLike]) -> list[str]:
    """The source each row is reported under, so that one arm's rows are never split.

    A row's own ``source`` says where its answers came from (see
    :func:`debategraph.eval.log.rows.row_source`). Rows written by earlier versions call an item
    that a simulated debate ended at round 0 ``real`` (only replayed answers): such a row, made by
    the simulated model alone (``agent_models``), joins its arm's simulated rows when the arm
    (``method`` and ``dataset``) has any. A row without a source (a failed item) joins its
    arm's source when the arm has one. Real rows of provider models stay real.

    Args:
        rows: Result rows.

    Returns:
        One source per row, in order.
    """
    typed = [as_row(row) for row in rows]
    arms: dict[tuple[str, str], set[str]] = {}
    for row in typed:
        if row.source:
            arms.setdefault(_arm(row), set()).add(row.source)
    own = []
    for row in typed:
        source = row.source or ""
        if source == "real" and "simulated" in arms.get(_arm(row), ()) and replayed(row):
            source = "simulated"
        own.append(source)
    resolved: dict[tuple[str, str], set[str]] = {}
    for row, source in zip(typed, own, strict=True):
        if source:
            resolved.setdefault(_arm(row), set()).add(source)
    sources = []
    for row, source in zip(typed, own, strict=True):
        arm_sources = resolved.get(_arm(row), set())
        sources.append(source or (next(iter(arm_sources)) if len(arm_sources) == 1 else ""))
    return sources


def sourced_rows(rows: Sequence[RowLike]) -> list[Row]:
    """The rows, each with ``source`` set to the source it is reported under.

    Every view of a report's groups (summaries, Pareto points) reads these, so that each
    covers the same rows (see :func:`group_sources`).
    """
    typed = [as_row(row) for row in rows]
    return [
        msgspec.structs.replace(row, source=source)
        for row, source in zip(typed, group_sources(typed), strict=True)
    ]


def _arm(row: Row) -> tuple[str, str]:
    return row.method, row.dataset or ""


def replayed(row: RowLike) -> bool:
    """Whether every agent of ``row`` was the simulated model (so its real answers replay)."""
    models = as_row(row).agent_models or ()
    return bool(models) and all(str(m).split(":")[0] in SIMULATED for m in models)


def build_groups(rows: Sequence[RowLike], prices: Mapping[str, float] | None = None) -> list[Group]:
    """Summaries per method within each (source, dataset) group, groups in first-seen order.

    Each row is reported under :func:`group_sources`' source, so one arm is one group.

    Args:
        rows: Result rows.
        prices: ``{"input": $ per token, "output": $ per token}``, or ``None``.

    Returns:
        The groups.
    """
    groups = []
    for source, source_rows in group_by(sourced_rows(rows), "source").items():
        for dataset, dataset_rows in group_by(source_rows, "dataset").items():
            summaries = summarize(dataset_rows, prices)
            debated = {m for m, s in summaries.items() if len(s["round_stats"]) > 1}
            pooled = [r for r in dataset_rows if r.method in debated and r.error is UNSET]
            overall = round_dynamics(pooled) if len(debated) > 1 else []
            groups.append(Group(source, dataset, summaries, overall, dataset_rows))
    return groups
