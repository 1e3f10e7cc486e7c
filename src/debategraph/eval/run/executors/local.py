"""Running work units in this process: the per-process runner and the local executor.

:class:`ItemRunner` is one process's share of a job: the arms' settings (model specs resolved
here, from this process's environment), the call limiter that also starts debates
(:class:`~debategraph.eval.run.executors.admission.Admission`), the shared rate limiter and the
call cache. :class:`LocalExecutor` runs every unit on one ``ItemRunner`` in this process;
each Ray worker holds one too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.rate_limiters import InMemoryRateLimiter
from langchain_core.runnables import RunnableConfig
from langgraph.cache.base import BaseCache
from langgraph.cache.memory import InMemoryCache

from debategraph.api import DebateConfigError, arun, call_cache
from debategraph.eval.analysis.dynamics import settled_at_round0
from debategraph.eval.datasets import Item
from debategraph.eval.log.row import as_row, opt
from debategraph.eval.log.rows import describe_error, error_row, result_row
from debategraph.eval.log.spend import SpendMeter
from debategraph.eval.run.arms import Arm
from debategraph.eval.run.breaker import UNREACHABLE_FIELD, mark_dependent, mark_unreachable
from debategraph.eval.run.budget import BudgetBase, budget_digest, budget_settings
from debategraph.eval.run.cut_short import debate_notes, note_cut_short
from debategraph.eval.run.executors.admission import Admission, Turn
from debategraph.eval.run.executors.base import Deliver, Job, Work
from debategraph.eval.run.redaction import run_redactor
from debategraph.models.resolve import ModelConfigError, resolve_model
from debategraph.policies.model_names import SIMULATED
from debategraph.result import DebateResult
from debategraph.tracing import item_run_config


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


@dataclass(frozen=True)
class _Matched:
    """A budget-matched arm's settings for one item, and the cache its probe filled."""

    settings: dict[str, Any]
    cache: BaseCache[Any] | None


class ItemRunner:
    """One process's share of a job: runs work units under its limits.

    Args:
        job: The job, with this process's share of ``concurrency`` and ``rps``.

    Attributes:
        limiter: The call limiter that also starts debates.
        redact: The redactor of this process's secrets and the arms' URLs.

    Raises:
        DebateConfigError: A model spec that cannot be resolved here (with ``rps``).
    """

    def __init__(self, job: Job) -> None:
        self.job = job
        self.arms = {arm.label: arm for arm in job.arms}
        self.bases = {arm.budget_of for arm in job.arms if arm.budget_of is not None}
        self.redact = run_redactor(job.arms)
        self.limiter = Admission(job.concurrency)
        self.cache = call_cache(job.cache)
        rate = (
            InMemoryRateLimiter(requests_per_second=job.rps, max_bucket_size=1) if job.rps else None
        )
        self.settings = {
            arm.label: with_rate_limiter(arm.settings, rate) if rate else dict(arm.settings)
            for arm in job.arms
        }

    async def run(self, work: Work, deliver: Deliver) -> None:
        """Run a unit's arms in order once its turn to start comes, delivering each row."""
        await self.run_started(work, deliver, await self.limiter.turn())

    async def run_started(self, work: Work, deliver: Deliver, start: Turn) -> None:
        """Run a unit whose turn came (``start``, from ``limiter.turn()``).

        After a screening arm's row, the other arms run only if it found the item contested
        (a failed screen leaves them to the next run). A budget-matched arm's row that could
        not start because its base could not connect is held by the breaker with its base's.
        """
        with self.limiter.running(start):
            budgets = dict(work.budgets)
            unreachable: dict[str, dict[str, Any]] = {}
            for label in work.labels:
                arm = self.arms[label]
                row = await self.debate(arm, work.item, budgets, seed=work.seed)
                written = as_row(row)
                failed = opt(written.error) is not None
                if UNREACHABLE_FIELD in row:  # the breaker's note beside the row's fields
                    unreachable[label] = row[UNREACHABLE_FIELD]
                elif arm.budget_of in unreachable and not written.requests:
                    mark_dependent(row, unreachable[str(arm.budget_of)])
                if label in self.bases and not failed:
                    budgets[label] = budget_digest(written)
                settled = not failed and arm.screens and settled_at_round0(row)
                if arm.screens and not failed:
                    row["screen"] = {"settled": settled}
                deliver(row)
                if arm.screens and (failed or settled):
                    return

    async def _arun(
        self,
        arm: Arm,
        item: Item,
        meter: SpendMeter,
        settings: Mapping[str, Any],
        *,
        reference: str | None = None,
        traced: RunnableConfig | None = None,
        cache: BaseCache[Any] | None = None,
    ) -> DebateResult:
        """``arm`` on ``item`` with this executor's limiter, cache and concurrency, metered.

        ``cache`` replaces the executor's call cache (which is ``None`` without ``--cache``).
        """
        return await arun(
            item.question,
            method=arm.method,
            task=item.task,
            choices=item.choices,
            reference=reference,
            item_id=item.id,
            config={
                "max_concurrency": self.job.concurrency,
                "callbacks": [meter],
                **(traced or RunnableConfig()),
            },
            call_limiter=self.limiter,
            cache=cache if cache is not None else self.cache,
            **settings,
        )

    async def sample_price(
        self,
        arm: Arm,
        item: Item,
        settings: Mapping[str, Any],
        meter: SpendMeter,
        cache: BaseCache[Any] | None = None,
    ) -> float:
        """What one of ``arm``'s samples costs on ``item``, in tokens: one drawn to see.

        A debate's own round-0 calls are no price for a sample (a system prompt or a request
        for a confidence makes them dearer, a short framing cheaper), so an arm that matches
        tokens draws one sample first: its first, through ``cache`` (the call cache, else
        one kept for this item), so the arm's run replays it instead of paying for it again.
        Its requests are in the row's spend (unkept), and the replayed sample costs nothing:
        on the bill the arm pays for the samples it keeps, as the debate it matches does.
        """
        probe = {**settings, "agents": 1}
        models = probe.get("models")
        if isinstance(models, list):
            probe["models"] = models[:1]
        result = await self._arun(arm, item, meter, probe, cache=cache)
        return float(result.usage["input_tokens"] + result.usage["output_tokens"])

    async def _budget_matched(
        self,
        arm: Arm,
        item: Item,
        base: BudgetBase | None,
        settings: dict[str, Any],
        meter: SpendMeter,
        start: float,
        seed: int | None,
    ) -> _Matched | dict[str, Any]:
        """A budget-matched arm's settings for this item, or its failed row.

        The budget is what ``arm.budget_of`` spent on the item (``base``: its row's digest,
        ``None`` without one): its calls, or its tokens priced by one sample of this arm.
        """
        dataset = self.job.dataset
        item_cache: BaseCache[Any] | None = None
        if base is None:
            error = f"BudgetUnavailable: {arm.budget_of} has no result for this item"
            return error_row(arm, item, error, wall_s=0.0, dataset=dataset, seed=seed)
        price = None
        if arm.budget == "tokens":
            if self.cache is None:  # the probe is the run's first sample, paid once
                item_cache = InMemoryCache()
            try:
                price = await self.sample_price(arm, item, settings, meter, item_cache)
            except Exception as exc:
                wall = time.perf_counter() - start
                error = describe_error(exc, self.redact)
                row = error_row(
                    arm, item, error, wall_s=wall, dataset=dataset, spend=meter, seed=seed
                )
                return mark_unreachable(row, exc, self.redact)
        try:
            matched = budget_settings(arm.budget, settings, base, price)
        except ValueError as exc:
            error = f"BudgetUnavailable: {exc}"
            return error_row(arm, item, error, wall_s=0.0, dataset=dataset, seed=seed)
        return _Matched(matched, item_cache)

    async def debate(
        self,
        arm: Arm,
        item: Item,
        budgets: Mapping[str, BudgetBase],
        *,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """One arm on one item: its row, a failed row if the debate failed.

        A failed row whose debate could not connect to its model server is marked for the
        driver's breaker (:func:`~debategraph.eval.run.breaker.mark_unreachable`).

        Args:
            arm: The arm.
            item: The question.
            budgets: What budget-matched arms read of this item's finished rows, by arm
                label.
            seed: The debate's seed in place of the arm's, recorded in the row; ``None``
                keeps the arm's and records none.

        Raises:
            DebateConfigError: Settings that cannot run (a bug in the checks before).
        """
        dataset = self.job.dataset
        settings = dict(self.settings[arm.label])
        if seed is not None:
            settings["seed"] = seed
        start = time.perf_counter()
        meter = SpendMeter(debate_notes(arm.label, item.id, seed))
        item_cache: BaseCache[Any] | None = None
        if arm.budget_of is not None:
            base = budgets.get(arm.budget_of)
            matched = await self._budget_matched(arm, item, base, settings, meter, start, seed)
            if not isinstance(matched, _Matched):
                return matched  # the failed row: no budget to match
            settings, item_cache = matched.settings, matched.cache
        traced = item_run_config(arm.label, item.id, dataset)
        try:
            result = await self._arun(
                arm,
                item,
                meter,
                settings,
                reference=item.reference,
                traced=traced,
                cache=item_cache,
            )
        except DebateConfigError:
            raise
        except asyncio.CancelledError:  # no row: resume runs it again; its spend is noted
            note_cut_short(arm.label, item.id, meter, seed=seed)
            raise
        except Exception as exc:
            wall = time.perf_counter() - start
            error = describe_error(exc, self.redact)
            row = error_row(arm, item, error, wall_s=wall, dataset=dataset, spend=meter, seed=seed)
            return mark_unreachable(row, exc, self.redact)
        wall = time.perf_counter() - start
        return result_row(
            arm,
            item,
            result,
            wall_s=wall,
            dataset=dataset,
            spend=meter,
            texts=self.job.texts,
            prompts=self.job.prompts,
            seed=seed,
        )


class LocalExecutor:
    """Runs every debate in this process, on its event loop: the default executor.

    Items start one at a time, as :mod:`~debategraph.eval.run.executors.admission` allows, so
    about ``concurrency`` / (calls per round) debates are in progress at once.
    """

    def check(self, job: Job) -> None:
        """A cache path that cannot be used fails here, before any call."""
        call_cache(job.cache)

    async def run(self, job: Job, work: Iterator[Work], deliver: Deliver) -> int:
        """Run every unit here (see :meth:`Executor.run`); returns the peak of in-flight calls."""
        runner = ItemRunner(job)
        try:
            async with asyncio.TaskGroup() as group:
                for unit in work:
                    # The unit's turn is awaited here: no task exists before it may run.
                    start = await runner.limiter.turn()
                    group.create_task(runner.run_started(unit, deliver, start))
        except BaseExceptionGroup as failure:  # a bug, not a failed debate: show it as is
            raise failure.exceptions[0] from None
        finally:
            runner.limiter.close()
        return runner.limiter.peak
