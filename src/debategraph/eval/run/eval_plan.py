"""What one evaluation run does with its arms: the items, where rows go, and how it runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debategraph.eval.run.budget import Budget

if TYPE_CHECKING:
    from debategraph.eval.log.spend import SpendLimit
    from debategraph.eval.run.executors import Executor

_RUN_EVAL_KEYWORDS = (
    "dataset", "selection", "concurrency", "rps", "force", "fsync", "cache", "texts", "executor",
    "seeds", "prompts", "spend_limit",
)  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class EvalPlan:
    """An evaluation's run settings, from ``eval``'s options or a sweep file.

    Attributes:
        dataset: The dataset's name.
        selection: ``limit``, ``seed``, ``ids`` and ``path``: how items are picked.
        out_dir: The results directory.
        concurrency: Most model calls in flight at once.
        rps: Most requests per second to provider models.
        cache: The model-call cache file.
        match_budget: Add budget-matched voting arms (``calls`` or ``tokens``).
        noise_control: Add a noise-control arm per debating arm (see
            :func:`~debategraph.eval.run.arms.noise_arms`).
        only_contested: Screen the items first (see :func:`~debategraph.eval.run.arms.screen_arm`).
        force: Discard rows written with other settings.
        fsync: fsync every row.
        quiet: No progress display.
        price: $ per input and output token, for the cost column.
        texts: Keep every reply's text in the rows.
        prompts: Keep every call's prompt in the rows.
        executor: Where the debates run (``None``: this process).
        seeds: The debates' seeds, each arm run once per seed.
        spend_limit: Stop once the results directory has spent this much (``None``: no
            limit).
    """

    dataset: str
    selection: dict[str, Any]
    out_dir: Path
    concurrency: int = 16
    rps: float | None = None
    cache: Path | str | None = None
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
    seeds: list[int] | None = None
    spend_limit: SpendLimit | None = None

    def run_options(self) -> dict[str, Any]:
        """The keywords of :func:`~debategraph.eval.run.runner.run_eval` this plan sets."""
        return {name: getattr(self, name) for name in _RUN_EVAL_KEYWORDS}
