"""The evaluation runner: many debates at once, one JSONL row per (method, item), resumable.

:func:`run_eval` runs every method ("arm") on every item. Items run concurrently, and three
bounds apply to model calls:

* one :class:`~debategraph.nodes.call.CallLimiter` of ``concurrency`` slots, shared by every
  debate's graph: the hard bound on in-flight model calls across items and agents;
* LangGraph's ``max_concurrency`` in each debate's run config (the same number);
* optionally a shared ``langchain_core.rate_limiters.InMemoryRateLimiter`` (``rps``
  requests per second) attached to the provider models.

Transient model errors are retried by the call nodes' LangGraph ``RetryPolicy``; a debate
that still fails becomes a failed row (``error`` says what failed, without secrets) and is run
again on the next run. Rows are appended as they finish (see :mod:`debategraph.eval.store`);
running the same command again resumes.

Budget matching: an arm with ``budget_of="du"`` runs self-consistency with as many samples as
``du`` made model calls on that item (``agents = calls``, 0 rounds, majority vote); it is
labelled ``sc@du``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.rate_limiters import InMemoryRateLimiter

from debategraph.api import DebateConfigError, arun, call_cache
from debategraph.eval.arms import Arm, arms_for, budget_arms, check_arms
from debategraph.eval.budget import budget_settings
from debategraph.eval.datasets import Item
from debategraph.eval.rows import describe_error, error_row, result_row, row_source
from debategraph.eval.spend import SpendMeter
from debategraph.eval.store import (
    RESULTS_FILE,
    Key,
    OutputLock,
    ResultsFile,
    check_manifest,
    finished_rows,
    row_key,
)
from debategraph.models.resolve import SIMULATED, ModelConfigError, resolve_model
from debategraph.nodes.call import CallLimiter
from debategraph.nodes.runnable import run_sync
from debategraph.policies.secrets import Redactor
from debategraph.tracing import item_run_config

__all__ = [
    "Arm",
    "EvalOutcome",
    "Progress",
    "arms_for",
    "budget_arms",
    "check_arms",
    "describe_error",
    "error_row",
    "evaluate",
    "result_row",
    "row_source",
    "run_eval",
    "run_settings",
    "with_rate_limiter",
]


class Progress(Protocol):
    """Receives the run's progress (e.g. :class:`debategraph.eval.progress.RichProgress`)."""

    def start(self, totals: Mapping[str, int], done: Sequence[Mapping[str, Any]]) -> None:
        """Called once: items per arm label, and the rows already finished (resumed)."""

    def advance(self, row: Mapping[str, Any]) -> None:
        """Called after every row written."""

    def stop(self) -> None:
        """Called once at the end, interrupted or not."""


@dataclass
class EvalOutcome:
    """What a call of :func:`run_eval` did.

    Attributes:
        path: The results file.
        rows: Every row of the file, in plan order when the run completed.
        resumed: Rows already finished before this call.
        written: Rows written by this call (failed ones included).
        failed: Failed rows in the file (run again next time).
        problems: Malformed lines found on resume, with their line numbers (run again).
        peak_in_flight: Most model calls in flight at once during this call.
        wall_s: Seconds this call spent running the pending debates (loading and
            rewriting the file excluded).
    """

    path: Path
    rows: list[dict[str, Any]]
    resumed: int
    written: int
    failed: int
    problems: list[str] = field(default_factory=list)
    peak_in_flight: int = 0
    wall_s: float = 0.0


def run_settings(
    items: Sequence[Item],
    arms: Sequence[Arm],
    *,
    dataset: str,
    selection: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The settings recorded in ``run.json``: what a resumed run must share.

    Args:
        items: The evaluated items (their whole content is hashed: ids, questions, choices,
            references, task kinds).
        arms: The arms.
        dataset: Dataset name.
        selection: How the items were picked (``limit``, ``seed``, ``ids``, ``path``).

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
    }


def with_rate_limiter(settings: Mapping[str, Any], limiter: InMemoryRateLimiter) -> dict[str, Any]:
    """``settings`` with ``limiter`` attached to every provider model (a shared limiter).

    Model strings other than the simulated model are resolved here, once, so that every
    debate shares the same rate-limited model objects; the offline simulated model is left
    as it is.

    Raises:
        DebateConfigError: A model spec that cannot be resolved.
    """
    spec = settings.get("models")
    if spec is None:
        return dict(settings)
    specs = list(spec) if isinstance(spec, list | tuple) else [spec]
    limited: list[Any] = []
    for s in specs:
        if isinstance(s, str) and s.split(":")[0] in SIMULATED:
            limited.append(s)
            continue
        try:
            model = (
                s
                if isinstance(s, BaseChatModel)
                else resolve_model(
                    s,
                    index=0,
                    agent="a1",
                    base_url=settings.get("base_url"),
                    timeout=settings.get("timeout"),
                )
            )
        except ModelConfigError as exc:
            raise DebateConfigError(str(exc)) from None
        limited.append(model.model_copy(update={"rate_limiter": limiter}))
    model_setting = limited if isinstance(spec, list | tuple) else limited[0]
    return {**settings, "models": model_setting}


class _Run:
    """One call of :func:`run_eval`: the shared limits, the file and the plan."""

    def __init__(
        self,
        arms: Sequence[Arm],
        results: ResultsFile,
        *,
        dataset: str,
        concurrency: int,
        rps: float | None,
        progress: Progress | None,
        redact: Redactor,
        cache: Any = None,
        texts: bool = True,
    ) -> None:
        self.cache = cache
        self.texts = texts
        self.arms = arms
        self.redact = redact
        self.results = results
        self.dataset = dataset
        self.concurrency = concurrency
        self.progress = progress
        self.limiter = CallLimiter(concurrency)
        rate = InMemoryRateLimiter(requests_per_second=rps, max_bucket_size=1) if rps else None
        self.settings = {
            arm.label: with_rate_limiter(arm.settings, rate) if rate else dict(arm.settings)
            for arm in arms
        }
        self.done: dict[Key, dict[str, Any]] = {}
        self.written = 0

    async def debate(self, arm: Arm, item: Item) -> dict[str, Any]:
        settings = dict(self.settings[arm.label])
        start = time.perf_counter()
        if arm.budget_of is not None:
            base = self.done.get((arm.budget_of, item.id))
            if base is None or "error" in base:
                error = f"BudgetUnavailable: {arm.budget_of} has no result for this item"
                return error_row(arm, item, error, wall_s=0.0, dataset=self.dataset)
            try:
                settings = budget_settings(arm.budget, settings, base)
            except ValueError as exc:
                error = f"BudgetUnavailable: {exc}"
                return error_row(arm, item, error, wall_s=0.0, dataset=self.dataset)
        meter = SpendMeter()
        traced = item_run_config(arm.label, item.id, self.dataset)
        try:
            result = await arun(
                item.question,
                method=arm.method,
                task=item.task,
                choices=item.choices,
                reference=item.reference,
                item_id=item.id,
                config={"max_concurrency": self.concurrency, "callbacks": [meter], **traced},
                call_limiter=self.limiter,
                cache=self.cache,
                **settings,
            )
        except DebateConfigError:
            raise
        except Exception as exc:
            wall = time.perf_counter() - start
            error = describe_error(exc, self.redact)
            return error_row(arm, item, error, wall_s=wall, dataset=self.dataset, spend=meter)
        wall = time.perf_counter() - start
        return result_row(
            arm, item, result, wall_s=wall, dataset=self.dataset, spend=meter, texts=self.texts
        )

    async def run_item(self, item: Item) -> None:
        for arm in self.arms:
            if (arm.label, item.id) in self.done:
                continue
            row = await self.debate(arm, item)
            self.done[row_key(row)] = row
            self.results.append(row)
            self.written += 1
            if self.progress is not None:
                self.progress.advance(row)

    async def run(self, pending: Sequence[Item]) -> None:
        queue = iter(pending)

        async def worker() -> None:
            for item in queue:
                await self.run_item(item)

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self.concurrency, len(pending))):
                    group.create_task(worker())
        except BaseExceptionGroup as failure:  # a bug, not a failed debate: show it as is
            raise failure.exceptions[0] from None


async def run_eval(
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
    progress: Progress | None = None,
    cache: Any = None,
    texts: bool = True,
) -> EvalOutcome:
    """Run every arm on every item, appending rows to ``out_dir/results.jsonl``; resumable.

    Finished (method, item) rows already in the file are skipped; failed rows are run again.
    ``concurrency`` items run at once and at most ``concurrency`` model calls are in flight,
    across items and agents. When every row is in, the file is rewritten in plan order (arm
    order, then item order), so an interrupted and resumed run ends with the same file as an
    uninterrupted one (up to ``wall_s``).

    Args:
        items: The questions.
        arms: The configurations to evaluate (see :func:`arms_for`).
        out_dir: The results directory (``results.jsonl`` and ``run.json``).
        dataset: Dataset name, recorded in every row (``gsm8k`` enables ``source: "real"``).
        selection: How the items were picked, recorded in ``run.json``.
        concurrency: Bound on in-flight model calls (and on items run at once).
        rps: Requests per second allowed to provider models (a shared LangChain
            ``InMemoryRateLimiter``); ``None`` for no rate limit.
        force: Discard earlier results of other settings instead of refusing.
        fsync: ``fsync`` every appended line.
        progress: Progress display.
        cache: Cache model calls in this SQLite file (or LangGraph ``BaseCache``); rerunning
            into a fresh directory with the same settings then makes no model call.
        texts: Keep every turn's reply text in the rows (``debategraph show`` prints them);
            off for very large runs.

    Returns:
        The outcome.

    Raises:
        DebateConfigError: Invalid arms, caught before any model call.
        SettingsMismatchError: ``out_dir`` holds results of other settings (and no ``force``).
        ValueError: ``concurrency`` below 1, ``rps`` not above 0, or repeated item ids.
        OutputBusyError: Another process is writing ``out_dir``.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if len({item.id for item in items}) != len(items):
        raise ValueError("item ids must be unique")
    if rps is not None and (not math.isfinite(rps) or rps <= 0):
        raise ValueError(f"rps must be a number above 0 (requests per second), got {rps}")
    check_arms(arms)
    call_cache(cache)  # a cache path that cannot be used fails here, before any call
    out = Path(out_dir)
    redact = Redactor.from_environment(urls=[arm.settings.get("base_url") for arm in arms])
    settings = run_settings(items, arms, dataset=dataset, selection=selection)
    if out.is_dir() and not os.access(out, os.W_OK):
        planned = {(arm.label, item.id) for arm in arms for item in items}
        done = finished_rows(out, settings, planned, redact=redact)
        done.sort(key=lambda row: _plan_order(items, arms)(row_key(row)))
        return EvalOutcome(path=out / RESULTS_FILE, rows=done, resumed=len(done), written=0,
                           failed=0)  # fmt: skip
    with OutputLock(out):
        check_manifest(out, settings, force=force, redact=redact, item_ids=[i.id for i in items])
        results = ResultsFile(out / RESULTS_FILE, fsync=fsync, redact=redact)
        kept, _ = results.load()
        state = _Run(
            arms,
            results,
            dataset=dataset,
            concurrency=concurrency,
            rps=rps,
            progress=progress,
            redact=redact,
            cache=cache,
            texts=texts,
        )
        state.done = {row_key(row): row for row in kept}
        pending = [i for i in items if any((a.label, i.id) not in state.done for a in arms)]
        if progress is not None:
            progress.start({arm.label: len(items) for arm in arms}, kept)
        start = time.perf_counter()
        try:
            await state.run(pending)
        finally:
            wall = time.perf_counter() - start
            results.close()
            if progress is not None:
                progress.stop()
        written = results.finalize(_plan_order(items, arms))
    planned = {(arm.label, item.id) for arm in arms for item in items}
    rows = [row for row in written if row_key(row) in planned]
    problems = list(results.problems)
    if len(rows) < len(written):
        problems.append(
            f"{len(written) - len(rows)} row(s) of {results.path.name} belong to no item and "
            "method of this run: left out of the summary (the report lists them)"
        )
    return EvalOutcome(
        path=results.path,
        rows=rows,
        resumed=len(kept),
        written=state.written,
        failed=sum("error" in row for row in rows),
        problems=problems,
        peak_in_flight=state.limiter.peak,
        wall_s=wall,
    )


def _plan_order(items: Sequence[Item], arms: Sequence[Arm]) -> Callable[[Key], tuple[int, int]]:
    arm_index = {arm.label: k for k, arm in enumerate(arms)}
    item_index = {item.id: k for k, item in enumerate(items)}

    def order(key: Key) -> tuple[int, int]:
        return (arm_index.get(key[0], len(arm_index)), item_index.get(key[1], len(item_index)))

    return order


def evaluate(
    items: Sequence[Item],
    arms: Sequence[Arm],
    out_dir: str | Path,
    *,
    progress: Progress | bool | None = None,
    **kwargs: Any,
) -> EvalOutcome:
    """Synchronous :func:`run_eval`; works inside a running event loop (Jupyter) too.

    ``progress=True`` shows progress bars in a terminal and plain lines in a notebook.
    """
    shown: Progress | None
    if progress is True:
        from debategraph.eval.progress import auto_progress

        shown = auto_progress()
    else:
        shown = progress or None
    return run_sync(run_eval(items, arms, out_dir, progress=shown, **kwargs))
