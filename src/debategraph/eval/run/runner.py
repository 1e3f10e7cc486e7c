"""The evaluation runner: many debates at once, a JSONL row per (method, item, seed), resumable.

:func:`run_eval` runs every method ("arm") on every item, under each seed when given
several (``seeds``: one row per (method, item, seed)). It owns the results directory
(one writer at a time, ``run.json``, resume, the final plan-order rewrite) and hands the
pending items to an executor (:mod:`debategraph.eval.run.executors`): by default this process's
event loop, or Ray workers on one machine or many. The executor hands rows back and only
this process writes ``results.jsonl``; a row is written at most once per (arm, item, seed).

Items start one at a time, as call slots free up (see
:mod:`~debategraph.eval.run.executors.admission`), and three bounds apply to model calls:

* one :class:`~debategraph.nodes.call.CallLimiter` of ``concurrency`` slots, shared by every
  debate's graph: the hard bound on in-flight model calls across items and agents (split
  among the workers of a Ray run);
* LangGraph's ``max_concurrency`` in each debate's run config (the same number);
* optionally a shared ``langchain_core.rate_limiters.InMemoryRateLimiter`` (``rps``
  requests per second) attached to the provider models.

Transient model errors are retried by the call nodes' LangGraph ``RetryPolicy``; a debate
that still fails becomes a failed row (``error`` says what failed, without secrets) and is run
again on the next run. When :data:`~debategraph.eval.run.breaker.DOWN_STREAK` debates in a row
could not connect to their model server, the run stops with
:class:`~debategraph.eval.run.breaker.ServerDownError` and writes no row for them (see
:mod:`debategraph.eval.run.breaker`). Rows are appended as they finish (see
:mod:`debategraph.eval.log.store`) and not kept in memory; running the same command again resumes.

Budget matching: an arm with ``budget_of="du"`` runs self-consistency with as many samples as
``du`` made model calls on that item (``agents = calls``, 0 rounds, majority vote); it is
labelled ``sc@du``.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

import msgspec
import msgspec.structs

from debategraph.eval.datasets import Item
from debategraph.eval.log.ledger import NoteFile, log_renamed, log_retried, spend_on_record
from debategraph.eval.log.row import ROW_FIELDS, Row, TurnFigures, as_row, row_dict
from debategraph.eval.log.rows import describe_error, error_row, result_row, row_source
from debategraph.eval.log.spend import COVERS_KEY, SpendGuard, SpendLimit, SpendLimitReached
from debategraph.eval.log.store import (
    RESULTS_FILE,
    Key,
    OutputLock,
    ResultsFile,
    check_finished,
    check_manifest,
    read_rows,
    row_key,
)
from debategraph.eval.run.arms import Arm, arms_for, budget_arms, check_arms, screen_arm
from debategraph.eval.run.breaker import Breaker, ServerDownError
from debategraph.eval.run.budget import BudgetBase, budget_digest
from debategraph.eval.run.cut_short import (
    CUT_SHORT,
    SPEND_NOTES,
    WORKER_NOTES,
    WorkerNotes,
    log_cut_short,
    note_row,
)
from debategraph.eval.run.eval_plan import EvalPlan
from debategraph.eval.run.executors import Executor, Job, LocalExecutor, Work
from debategraph.eval.run.executors.local import with_rate_limiter
from debategraph.eval.run.redaction import run_redactor
from debategraph.nodes.call import CALLS_HALTED
from debategraph.nodes.runnable import run_sync
from debategraph.policies.secrets import Redactor

__all__ = [
    "Arm",
    "EvalOutcome",
    "EvalPlan",
    "Plan",
    "Progress",
    "ServerDownError",
    "SpendLimit",
    "SpendLimitReached",
    "arms_for",
    "budget_arms",
    "check_arms",
    "check_seeds",
    "describe_error",
    "error_row",
    "evaluate",
    "result_row",
    "row_source",
    "run_eval",
    "run_settings",
    "screen_arm",
    "with_rate_limiter",
]


class Progress(Protocol):
    """Receives the run's progress (e.g. :class:`debategraph.eval.run.progress.RichProgress`)."""

    def start(self, totals: Mapping[str, int], done: Sequence[Mapping[str, Any]]) -> None:
        """Called once: items per arm label, and the rows already finished (resumed).

        Each resumed row has the :data:`PROGRESS_FIELDS` only (method, id, error, correct,
        token counts).
        """

    def advance(self, row: Mapping[str, Any]) -> None:
        """Called after every row written.

        Also called with ``{"method", "id", "skipped": True}`` for each arm that skips an
        item a screen found settled (done, never scored).
        """

    def stop(self) -> None:
        """Called once at the end, interrupted or not."""


PROGRESS_FIELDS = ("method", "id", "error", "correct", "input_tokens", "output_tokens")
"""The fields of a resumed row that :meth:`Progress.start` receives."""

SUMMARY_FIELDS = frozenset(
    {
        "method", "id", "dataset", "source", "task", "error", "answer", "reference",
        "correct", "abstained", "input_tokens", "output_tokens", "calls", "ncomm", "rounds",
        "agents", "parse_failures", "wall_s", "round_answers", "tokens_by_kind",
        "answer_sources", "requests", "failed_requests", "wasted_input_tokens",
        "wasted_output_tokens", "gate", "screen", "turns", "seed", "cached_calls",
        "cached_input_tokens", "reasoning_tokens", "usage_by_source",
    }
)  # fmt: skip
"""The fields of a row that :func:`debategraph.eval.analysis.metrics.summarize` reads: what
:meth:`EvalOutcome.summary_rows` keeps (a test checks the summary is the same); of
``turns``, round 0's, as :class:`~debategraph.eval.log.row.TurnFigures` (what prices the
vote at round 0)."""


@dataclass
class EvalOutcome:
    """What a call of :func:`run_eval` did.

    The rows stay in the results file: :attr:`rows` reads them on first access (and keeps
    them), :meth:`summary_rows` streams the fields a summary needs.

    Attributes:
        path: The results file.
        count: Rows of the file that belong to this run's items and arms.
        resumed: Rows already finished before this call.
        written: Rows written by this call (failed ones included).
        failed: Failed rows in the file (run again next time).
        problems: Malformed lines found on resume, with their line numbers (run again).
        peak_in_flight: Most model calls in flight at once during this call (with several
            workers, the sum of each one's peak).
        wall_s: Seconds this call spent running the pending debates (loading and
            rewriting the file excluded).
        settled: Items a screening arm found settled at round 0, which the other arms
            skipped (``--only-contested``; see :func:`~debategraph.eval.run.arms.screen_arm`);
            with several seeds, (item, seed) pairs.
        repeated: Rows an executor handed back again for an (arm, item, seed) already written
            (work Ray ran again after a worker died), left out.
        plan: The run's arms, seeds and items in order (what :attr:`rows` sorts by).
    """

    path: Path
    count: int
    resumed: int
    written: int
    failed: int
    problems: list[str] = field(default_factory=list)
    peak_in_flight: int = 0
    wall_s: float = 0.0
    settled: int = 0
    repeated: int = 0
    plan: Plan | None = field(default=None, repr=False)
    _rows: list[dict[str, Any]] | None = field(default=None, init=False, repr=False)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every row of this run's items and arms, in plan order (read from the file once).

        Each is the JSON object ``eval`` wrote, decoded through the row's declaration.
        """
        if self._rows is None:
            rows = list(self._planned_rows())
            plan = self.plan
            if plan is not None:
                rows.sort(key=lambda row: plan.order(row_key(row)))
            self._rows = [row_dict(row) for row in rows]
        return self._rows

    def summary_rows(self) -> Iterator[Row[TurnFigures]]:
        """This run's rows, in file order, each with the :data:`SUMMARY_FIELDS` only.

        What ``summarize`` needs from a large run, without the texts a row may carry (the
        turns decoded as :class:`~debategraph.eval.log.row.TurnFigures`, round 0's only);
        the command line reads them once with
        :func:`~debategraph.eval.analysis.summary_stream.summarize_stream`, which holds no row.
        """
        for row in self._planned_rows(texts=False):
            yield _summary_digest(row)

    def _planned_rows(self, *, texts: bool = True) -> Iterator[Row[Any]]:
        if not self.path.exists():
            raise FileNotFoundError(
                f"{self.path} is gone: read an outcome's rows before its results directory "
                "is removed"
            )
        for row in read_rows(self.path, texts=texts):
            if self.plan is None or row_key(row) in self.plan:
                yield row


_DROPPED_FROM_SUMMARY = tuple(name for name in ROW_FIELDS if name not in SUMMARY_FIELDS)


def _summary_digest(row: Row[TurnFigures]) -> Row[TurnFigures]:
    """``row`` with the :data:`SUMMARY_FIELDS` only and its turns of round 0.

    Its short strings (labels, answers) are interned: one object for all rows.
    """
    digest = msgspec.structs.replace(
        row,
        method=sys.intern(row.method),
        answer=_shared(row.answer),
        dataset=_shared(row.dataset),
        source=_shared(row.source),
        task=_shared(row.task),
        **{name: msgspec.UNSET for name in _DROPPED_FROM_SUMMARY},
    )
    if row.turns:
        digest.turns = [t for t in row.turns if t.round == 0]
    return digest


V = TypeVar("V")


def _shared(value: V) -> V:
    """A short string (a label, an answer) interned: one object for all rows."""
    if isinstance(value, str) and len(value) <= 64:
        return sys.intern(value)  # type: ignore[return-value]
    return value


class Plan:
    """The order of a run's rows: arm order, then seed order, then item order.

    Args:
        items: The run's items.
        arms: The run's arms.
        seeds: The run's seeds (``--seeds``); ``None`` for one run whose rows record none.
    """

    def __init__(
        self, items: Sequence[Item], arms: Sequence[Arm], seeds: Sequence[int] | None = None
    ) -> None:
        self.arms = {arm.label: k for k, arm in enumerate(arms)}
        self.items = {item.id: k for k, item in enumerate(items)}
        self.seeds: dict[int | None, int] = {
            seed: k for k, seed in enumerate(seeds if seeds is not None else [None])
        }

    def __contains__(self, key: object) -> bool:
        return (
            isinstance(key, tuple)
            and len(key) == 3
            and key[0] in self.arms
            and key[1] in self.items
            and key[2] in self.seeds
        )

    def __len__(self) -> int:
        return len(self.arms) * len(self.seeds) * len(self.items)

    def order(self, key: Key) -> tuple[int, int, int]:
        """Sort key of a row's key (keys of other runs last)."""
        return (
            self.arms.get(key[0], len(self.arms)),
            self.seeds.get(key[2], len(self.seeds)),
            self.items.get(key[1], len(self.items)),
        )


def run_settings(
    items: Sequence[Item],
    arms: Sequence[Arm],
    *,
    dataset: str,
    selection: Mapping[str, Any] | None = None,
    seeds: Sequence[int] | None = None,
) -> dict[str, Any]:
    """The settings recorded in ``run.json``: what a resumed run must share.

    Args:
        items: The evaluated items (their whole content is hashed: ids, questions, choices,
            references, task kinds).
        arms: The arms.
        dataset: Dataset name.
        selection: How the items were picked (``limit``, ``seed``, ``ids``, ``path``).
        seeds: The debates' seeds (``--seeds``), recorded only when given, so that a
            directory of a single-seed run resumes as before.

    Returns:
        JSON-ready settings.
    """
    content = [item.to_json() for item in items]
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
    return {
        "dataset": dataset,
        "selection": dict(selection or {}),
        "items": len(items),
        "items_sha256": digest[:16],
        "arms": [arm.to_json() for arm in arms],
        **({"seeds": list(seeds)} if seeds is not None else {}),
    }


def check_seeds(seeds: Sequence[int] | None) -> list[int] | None:
    """``seeds`` as a list, or a ValueError that says what to fix.

    Raises:
        ValueError: An empty list, a value that is not an integer, or a repeated seed.
    """
    if seeds is None:
        return None
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence):
        raise ValueError(f"seeds must be a list of integers such as [0, 1, 2], got {seeds!r}")
    given = list(seeds)
    if not given:
        raise ValueError("seeds is empty: give one integer or more, such as [0, 1, 2]")
    wrong = [s for s in given if not isinstance(s, int) or isinstance(s, bool)]
    if wrong:
        raise ValueError(f"seeds must be integers, got {wrong[0]!r}")
    repeated = sorted({s for s in given if given.count(s) > 1})
    if repeated:
        raise ValueError(f"seed(s) given more than once: {', '.join(map(str, repeated))}")
    return given


def _settled(row: Row[Any]) -> bool:
    """Whether ``row`` is a screening arm's row that found its item settled (skipped)."""
    return bool((row.screen or {}).get("settled"))


def _skipped(row: Row[Any], arms: Sequence[Arm]) -> list[dict[str, Any]]:
    """What progress is told of the arms a settled item skips: one marker per arm."""
    return [{"method": a.label, "id": row.id, "skipped": True} for a in arms if not a.screens]


def _progress_fields(row: Row[Any]) -> dict[str, Any]:
    """What progress is told of a resumed row: its :data:`PROGRESS_FIELDS`."""
    kept = Row[Any](method=row.method, id=row.id, error=row.error, correct=row.correct,
                    input_tokens=row.input_tokens, output_tokens=row.output_tokens)  # fmt: skip
    return row_dict(kept)


Unit = tuple[str, int | None]
"""An (item id, seed) pair: what a screen settles and what budget-matched arms read."""


def _settled_items(path: Path, arms: Sequence[Arm]) -> set[Unit]:
    """The (item, seed) pairs a finished run's screening arm found settled (none without one)."""
    screen = next((arm.label for arm in arms if arm.screens), None)
    if screen is None or not path.exists():
        return set()
    return {row_key(row)[1:] for row in read_rows(path) if row.method == screen and _settled(row)}


class _Writer:
    """Takes the executor's rows: writes each (arm, item, seed) once, counts, shows progress."""

    def __init__(
        self,
        results: ResultsFile,
        progress: Progress | None,
        arms: Sequence[Arm],
        cut_short: list[dict[str, Any]] | None = None,
        notes: NoteFile | None = None,
    ):
        self.results = results
        self.progress = progress
        self.arms = arms
        self.cut_short = cut_short
        self.notes = notes
        self.written: set[Key] = set()
        self.repeated = 0
        self.settled = 0

    def __call__(self, row: dict[str, Any]) -> None:
        written = as_row(row)
        key = row_key(written)
        if self.notes is not None and self.notes.failure is not None:
            raise self.notes.failure  # the notes cannot be written: stop, as for rows
        if key in self.written:  # work an executor ran again (a worker died): written once
            self.repeated += 1
            note_row(self.cut_short, row)
            return
        self.written.add(key)
        covers = row.pop(COVERS_KEY, None)
        notes = self.notes
        if notes is not None and isinstance(covers, Mapping):
            try:
                self.results.append(row, before=partial(notes.cover, covers, key=key))
            except OSError as exc:
                if exc is notes.failure:  # no cover line, so no row: its spend is cut short
                    self.written.discard(key)
                    note_row(self.cut_short, {**row, COVERS_KEY: covers})
                raise
        else:
            self.results.append(row)
        settled = _settled(written)
        self.settled += settled
        if self.progress is not None:
            self.progress.advance(row)
            for marker in _skipped(written, self.arms) if settled else ():
                self.progress.advance(marker)


class _Resumed:
    """What the run keeps of the rows already in the file: keys, not rows."""

    def __init__(self, arms: Sequence[Arm], *, progress: bool) -> None:
        self.arms = arms
        self.bases = {arm.budget_of for arm in arms if arm.budget_of is not None}
        self.screen = next((arm.label for arm in arms if arm.screens), None)
        self.done: set[Key] = set()
        self.settled: set[Unit] = set()
        self.budgets: dict[Unit, dict[str, BudgetBase]] = {}
        self.progress: list[dict[str, Any]] | None = [] if progress else None

    def __call__(self, row: Row[Any]) -> None:
        key = row_key(row)
        self.done.add(key)
        if key[0] in self.bases:
            self.budgets.setdefault(key[1:], {})[key[0]] = budget_digest(row)
        settled = key[0] == self.screen and _settled(row)
        if settled:
            self.settled.add(key[1:])
        if self.progress is not None:
            self.progress.append(_progress_fields(row))
            self.progress += _skipped(row, self.arms) if settled else []

    def work(
        self, items: Sequence[Item], arms: Sequence[Arm], seeds: Sequence[int | None]
    ) -> Iterator[Work]:
        """The pending units, seed by seed in item order, made as the executor asks for them.

        Items a screening arm found settled under a seed have none under it; an item's
        screen comes first.
        """
        for seed in seeds:
            for item in items:
                unit = (item.id, seed)
                if unit in self.settled:
                    continue
                labels = tuple(a.label for a in arms if (a.label, *unit) not in self.done)
                if labels:
                    yield Work(item, labels, self.budgets.get(unit, {}), seed)


async def run_eval(
    items: Sequence[Item],
    arms: Sequence[Arm],
    plan: EvalPlan,
    *,
    progress: Progress | None = None,
) -> EvalOutcome:
    """Run every arm on every item, appending rows to ``plan.out_dir/results.jsonl``; resumable.

    Finished (method, item, seed) rows already in the file are skipped; failed rows are run
    again.
    At most ``plan.concurrency`` model calls are in flight, across items and agents, and items
    start as call slots free up (about ``concurrency`` / calls per round at once). When every
    row is in, the file is rewritten in plan order (arm order, then item order), so an
    interrupted and resumed run ends with the same file as an uninterrupted one (up to
    ``wall_s``). Rows are not kept in memory: the outcome reads them from the file.

    Args:
        items: The questions.
        arms: The configurations to evaluate (see :func:`arms_for`).
        plan: The run settings (results directory, dataset, concurrency, seeds, spend limit,
            ...: see :class:`~debategraph.eval.run.eval_plan.EvalPlan`); its arm and report
            settings are not read here.
        progress: Progress display.

    Returns:
        The outcome.

    Raises:
        DebateConfigError: Invalid arms, or a job the executor cannot run, caught before
            any model call.
        SettingsMismatchError: ``out_dir`` holds results of other settings (and no ``force``).
        ValueError: ``concurrency`` below 1, ``rps`` not above 0, repeated item ids, or
            ``seeds`` empty, repeated or not integers.
        OutputBusyError: Another process is writing ``out_dir``.
        ServerDownError: :data:`~debategraph.eval.run.breaker.DOWN_STREAK` debates in a row
            could not connect to their model server: the run stopped, the debates in
            progress were cancelled, and none of them left a row (resume runs them).
        SpendLimitReached: ``spend_limit`` was reached (before the run, with no request,
            or during it): the rows finished are kept, the spend is on record.
    """
    seeds = _checked_seeds(items, arms, plan)
    executor = plan.executor or LocalExecutor()
    job = Job(
        tuple(arms), plan.dataset, plan.concurrency, plan.rps, plan.cache, plan.texts, plan.prompts
    )
    executor.check(job)
    out = Path(plan.out_dir)
    redact = run_redactor(arms)
    settings = run_settings(
        items, arms, dataset=plan.dataset, selection=plan.selection, seeds=seeds
    )
    order = Plan(items, arms, seeds)
    if out.is_dir() and not os.access(out, os.W_OK):
        return _finished(out, items, arms, order, settings, redact)
    with OutputLock(out):
        ids = [i.id for i in items]
        check_manifest(out, settings, force=plan.force, redact=redact, item_ids=ids)
        results = ResultsFile(
            out / RESULTS_FILE,
            fsync=plan.fsync,
            redact=redact,
            keep_spend=partial(log_retried, out),
            renamed=partial(log_renamed, out),
        )
        resumed = _resume(results, items, arms, order, progress)
        work = resumed.work(items, arms, list(order.seeds))
        first = next(work, None)  # nothing pending: no executor started (no Ray cluster)
        pending = work if first is None else itertools.chain([first], work)
        # a finished run is never refused by its spend limit
        guard = None if first is None else _spend_guard(out, plan.spend_limit, results)
        run = _Run(out, results, progress, arms, guard, plan.fsync)
        ran = await _execute(executor, job, pending, run)
        kept = results.finalize(order.order)
        if ran.stopped and guard is not None:
            raise SpendLimitReached(guard.words(str(out)))
    return _outcome(results, kept, resumed, ran, order)


def _checked_seeds(items: Sequence[Item], arms: Sequence[Arm], plan: EvalPlan) -> list[int] | None:
    """The plan's seeds, once the plan, the items and the arms are checked (before any call)."""
    concurrency, rps, spend_limit = plan.concurrency, plan.rps, plan.spend_limit
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if len({item.id for item in items}) != len(items):
        raise ValueError("item ids must be unique")
    if rps is not None and (not math.isfinite(rps) or rps <= 0):
        raise ValueError(f"rps must be a number above 0 (requests per second), got {rps}")
    seeds = check_seeds(plan.seeds)
    if spend_limit is not None:
        spend_limit.check()
    check_arms(arms)
    return seeds


def _finished(
    out: Path,
    items: Sequence[Item],
    arms: Sequence[Arm],
    plan: Plan,
    settings: dict[str, Any],
    redact: Redactor,
) -> EvalOutcome:
    """The outcome of a finished run in a read-only directory: checked, nothing run."""
    settled = _settled_items(out / RESULTS_FILE, arms)
    planned = {
        (a.label, i.id, s)
        for a in arms
        for i in items
        for s in plan.seeds
        if a.screens or (i.id, s) not in settled
    }
    check_finished(out, settings, planned, redact=redact)
    return EvalOutcome(path=out / RESULTS_FILE, count=len(planned), resumed=len(planned),
                       written=0, failed=0, settled=len(settled), plan=plan)  # fmt: skip


def _resume(
    results: ResultsFile,
    items: Sequence[Item],
    arms: Sequence[Arm],
    plan: Plan,
    progress: Progress | None,
) -> _Resumed:
    """What the file already holds (keys, not rows); the progress display starts from it."""
    resumed = _Resumed(arms, progress=progress is not None)
    results.load(resumed)
    if progress is not None:
        per_arm = len(items) * len(plan.seeds)
        progress.start({arm.label: per_arm for arm in arms}, resumed.progress or [])
        resumed.progress = None
    return resumed


def _spend_guard(
    out: Path, spend_limit: SpendLimit | None, results: ResultsFile
) -> SpendGuard | None:
    """The run's spend guard (``None`` without a limit); stops at once if the limit is reached."""
    guard = None
    if spend_limit is not None:
        on_record = spend_on_record(out)
        guard = SpendGuard(spend_limit, on_record["input_tokens"], on_record["output_tokens"])
        if guard.reached():
            results.close()
            raise SpendLimitReached(guard.words(str(out)))
    return guard


@dataclass(frozen=True)
class _Run:
    """Where the executor's rows and spend notes go."""

    out: Path
    results: ResultsFile
    progress: Progress | None
    arms: Sequence[Arm]
    guard: SpendGuard | None
    fsync: bool


@dataclass(frozen=True)
class _Ran:
    """What the executor's run did."""

    writer: _Writer
    peak: int
    wall: float
    stopped: bool


async def _execute(executor: Executor, job: Job, work: Iterator[Work], run: _Run) -> _Ran:
    """Hand the pending work to the executor and write its rows; close the files after.

    A run whose spend guard trips is cancelled and ends with ``stopped`` (its rows kept).
    """
    out, results, progress, arms, guard = run.out, run.results, run.progress, run.arms, run.guard
    stopper = None if guard is None else _Stopper(guard)
    if stopper is not None:
        work = stopper.until_tripped(work)
    first = next(work, None)  # nothing pending: no executor started (no Ray cluster)
    start = time.perf_counter()
    peak = 0
    cut_short = CUT_SHORT.get()
    token = CUT_SHORT.set([]) if cut_short is None else None
    noted = len(cut_short or ())
    notes = NoteFile(out, fsync=run.fsync)
    noting = SPEND_NOTES.set(notes.note if stopper is None else stopper.take(notes))
    seen = None if stopper is None else stopper.count
    halting = CALLS_HALTED.set(None if stopper is None else stopper.halted)
    workers = WORKER_NOTES.set(WorkerNotes(out, fsync=run.fsync, seen=seen))
    stopped = False
    writer = _Writer(results, progress, arms, cut_short=CUT_SHORT.get(), notes=notes)
    breaker = Breaker(writer, cut_short=CUT_SHORT.get())
    try:
        if first is not None:
            peak = await executor.run(job, itertools.chain([first], work), breaker)
            breaker.flush()
    except BaseException as exc:
        breaker.drop_held()  # rows held back when the run stopped: unwritten, spend noted
        if not (stopper and stopper.fired and isinstance(exc, asyncio.CancelledError)):
            raise
        stopped = True
    finally:
        if stopper is not None:
            stopped = stopper.disarm() or stopped
        wall = time.perf_counter() - start
        SPEND_NOTES.reset(noting)
        WORKER_NOTES.reset(workers)
        CALLS_HALTED.reset(halting)
        notes.close()
        results.close()
        if progress is not None:
            progress.stop()
        spent = (CUT_SHORT.get() or [])[noted:]
        if token is not None:
            CUT_SHORT.reset(token)
        if spent:
            log_cut_short(out, spent)
    return _Ran(writer, peak, wall, stopped)


def _outcome(
    results: ResultsFile, kept: list[tuple[Key, bool]], resumed: _Resumed, ran: _Ran, plan: Plan
) -> EvalOutcome:
    """What the run did, counted over this run's items and arms (other rows are a problem)."""
    writer = ran.writer
    failed_flags = [failed for key, failed in kept if key in plan]
    problems = list(results.problems)
    if len(failed_flags) < len(kept):
        problems.append(
            f"{len(kept) - len(failed_flags)} row(s) of {results.path.name} belong to no item and "
            "method of this run: left out of the summary (the report lists them)"
        )
    return EvalOutcome(
        path=results.path,
        count=len(failed_flags),
        resumed=sum(key in plan for key in resumed.done),
        written=len(writer.written),
        settled=sum(i in plan.items and s in plan.seeds for i, s in resumed.settled)
        + writer.settled,
        repeated=writer.repeated,
        failed=sum(failed_flags),
        problems=problems,
        peak_in_flight=ran.peak,
        wall_s=ran.wall,
        plan=plan,
    )


class _Stopper:
    """Stops a run (its task) once the spend notes reach the guard's limit.

    The cancellation is sent from whatever thread makes the note; an executor may swallow
    it (a cleanup that suppresses everything), so the run asks :meth:`disarm` after the
    executor returns, whatever happened.
    """

    def __init__(self, guard: SpendGuard) -> None:
        self.guard = guard
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        self.armed = True
        self.fired = False
        self.held_back = False
        self.halted = threading.Event()

    def until_tripped(self, work: Iterator[Work]) -> Iterator[Work]:
        """``work`` until the limit is reached; then no more (and :attr:`held_back` is set)."""
        for unit in work:
            if self.guard.tripped:
                self.held_back = True
                return
            yield unit

    def take(self, notes: NoteFile) -> Callable[[dict[str, Any]], None]:
        """The note-taker: writes each note, then stops the run once the limit is reached."""

        def take(note: dict[str, Any]) -> None:
            notes.write(note)
            self.count(note)

        return take

    def count(self, note: Mapping[str, Any]) -> None:
        """Add a note (written already) to the guard; stop the run once the limit is reached.

        From then on no call is sent (:data:`~debategraph.nodes.call.CALLS_HALTED`): the spend
        past the limit is at most the calls in flight when it was reached.
        """
        if self.guard.add(note):
            if self.armed:
                self.halted.set()
            self.loop.call_soon_threadsafe(self._cancel)

    def _cancel(self) -> None:
        if self.armed and self.task is not None:
            self.fired = True
            self.task.cancel()

    def disarm(self) -> bool:
        """Send no cancellation from now on, undo one sent; whether the limit stopped the run.

        It did when it cancelled the run or held work back, even where the executor then
        returned as if nothing happened; a limit reached by the last reply stopped nothing.
        """
        self.armed = False
        if self.fired and self.task is not None and self.task.cancelling():
            self.task.uncancel()
        return self.fired or self.held_back


def evaluate(
    items: Sequence[Item],
    arms: Sequence[Arm],
    out_dir: str | Path,
    *,
    dataset: str,
    selection: Mapping[str, Any] | None = None,
    concurrency: int = 16,
    rps: float | None = None,
    force: bool = False,
    fsync: bool = False,
    progress: Progress | bool | None = None,
    cache: Any = None,
    texts: bool = True,
    executor: Executor | None = None,
    seeds: Sequence[int] | None = None,
    prompts: bool = False,
    spend_limit: SpendLimit | None = None,
) -> EvalOutcome:
    """Synchronous :func:`run_eval`; works inside a running event loop (Jupyter) too.

    The keywords are the run settings of
    :class:`~debategraph.eval.run.eval_plan.EvalPlan` (``out_dir`` is its results
    directory); ``progress=True`` shows progress bars in a terminal and plain lines in a
    notebook.
    """
    plan = EvalPlan(
        dataset=dataset,
        out_dir=Path(out_dir),
        selection=dict(selection or {}),
        concurrency=concurrency,
        rps=rps,
        force=force,
        fsync=fsync,
        cache=cache,
        texts=texts,
        executor=executor,
        seeds=seeds,
        prompts=prompts,
        spend_limit=spend_limit,
    )
    shown: Progress | None
    if progress is True:
        from debategraph.eval.run.progress import auto_progress

        shown = auto_progress()
    else:
        shown = progress or None
    return run_sync(run_eval(items, arms, plan, progress=shown))
