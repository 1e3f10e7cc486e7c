"""Evaluation harness, laid out by stage (read in this order).

``run`` plans the arms and runs every item through them (the runner, its executors, the
breaker, progress bars); ``log`` holds the results row and the files a run writes
(``results.jsonl``, ``run.json``, the spend ledger); ``analysis`` computes over rows (metrics,
paired statistics, comparisons, seeds, Pareto points, round dynamics, rescoring);
``report`` turns a results directory into ``report.md``, tables and plots; ``export``
writes a finished run out for Inspect or LangSmith. ``datasets`` loads and samples question
sets and ``commands`` holds ``debategraph eval``, ``report`` and ``export``.
``compare_arms`` and ``paired_comparisons`` (from ``analysis.comparisons``) compare two arms
on the items both finished; ``transitions_by_arm`` (``analysis.transitions``) gives each
debating arm's transition ledger, and ``replay`` (``analysis.replay``) an intervention
replayed on stored debates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from debategraph.eval.analysis.comparisons import Comparison, compare_arms, paired_comparisons
    from debategraph.eval.analysis.replay import replay
    from debategraph.eval.analysis.transitions import transitions_by_arm

_HOMES = {
    "Comparison": "comparisons",
    "compare_arms": "comparisons",
    "paired_comparisons": "comparisons",
    "replay": "replay",
    "transitions_by_arm": "transitions",
}
__all__ = ["Comparison", "compare_arms", "paired_comparisons", "replay", "transitions_by_arm"]


def __getattr__(name: str) -> Any:  # loaded on first use: numpy stays out of plain imports
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(f"debategraph.eval.analysis.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
