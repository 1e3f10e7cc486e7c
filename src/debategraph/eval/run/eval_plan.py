"""What one evaluation run does with its arms: the items, where rows go, and how it runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debategraph.eval.run.budget import Budget

if TYPE_CHECKING:
    from debategraph.eval.log.spend import SpendLimit
    from debategraph.eval.run.executors import Executor


@dataclass(frozen=True, kw_only=True)
class EvalPlan:
    """An evaluation's run settings, from ``eval``'s options, a sweep file or :func:`evaluate`.

    :func:`~debategraph.eval.run.runner.run_eval` takes it whole; the command line also reads
    the arm and report settings (``match_budget`` to ``only_contested``, ``quiet``, ``price``).

    Attributes:
        dataset: The dataset's name, recorded in every row (``gsm8k`` enables
            ``source: "real"``).
        selection: ``limit``, ``seed``, ``ids`` and ``path``: how items are picked, recorded
            in ``run.json``.
        out_dir: The results directory (``results.jsonl`` and ``run.json``).
        concurrency: Most model calls in flight at once, across items and agents (and items
            run at once).
        rps: Most requests per second to provider models (a shared LangChain
            ``InMemoryRateLimiter``); ``None`` for no rate limit.
        cache: Cache model calls in this SQLite file (or LangGraph ``BaseCache``); rerunning
            into a fresh directory with the same settings then makes no model call.
        match_budget: Add budget-matched voting arms (``calls`` or ``tokens``).
        noise_control: Add a noise-control arm per debating arm (see
            :func:`~debategraph.eval.run.arms.noise_arms`).
        only_contested: Screen the items first (see :func:`~debategraph.eval.run.arms.screen_arm`).
        force: Discard earlier results of other settings instead of refusing.
        fsync: ``fsync`` every appended row.
        quiet: No progress display.
        price: $ per input and output token, for the cost column.
        texts: Keep every turn's reply text in the rows (``debategraph show`` prints them);
            off for very large runs.
        prompts: Also keep every turn's prompt (the last user message its model was sent)
            in the rows, for ``debategraph show`` and ``export --to inspect``. Like
            ``texts``, not part of the settings a resumed run must share.
        executor: Where the debates run: :class:`~debategraph.eval.run.executors.LocalExecutor`
            (``None``, the default: this process) or
            :class:`~debategraph.eval.run.executors.RayExecutor` (Ray workers);
            ``concurrency`` and ``rps`` are shared out among its workers.
        seeds: Run every arm on every item once per seed (``--seeds``): each debate runs
            with that seed in place of its arm's ``seed`` setting (sampling, agent order,
            random tie-breaks, the simulated model) and its row records it as ``seed``;
            the items are the same for every seed. ``None`` (the default) runs each arm
            once with its own seed, and rows record none.
        spend_limit: Stop when what ``out_dir`` has spent, over all its runs (rows and
            ledger), reaches this limit: no debate starts after that, and the debates in
            progress are cut short as by Ctrl-C (their spend is logged), so the spend ends
            within one window of calls in flight of the limit. A later run with a higher
            limit continues. Not part of the settings a resumed run must share. ``None``:
            no limit.
    """

    dataset: str
    out_dir: Path
    selection: dict[str, Any] = field(default_factory=dict)
    concurrency: int = 16
    rps: float | None = None
    cache: Any = None
    match_budget: Budget | None = None
    noise_control: bool = False
    only_contested: bool = False
    force: bool = False
    fsync: bool = False
    quiet: bool = False
    price: dict[str, float] | None = None
    texts: bool = True
    prompts: bool = False
    executor: Executor | None = None
    seeds: Sequence[int] | None = None
    spend_limit: SpendLimit | None = None
