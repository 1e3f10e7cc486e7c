"""Evaluation harness: question sets, metrics over result rows, and Markdown/PNG reports.

``datasets`` loads and samples question sets (the bundled GSM8K split and Du et al.'s
arithmetic task work offline; the others go through the Hugging Face ``datasets`` library).
``metrics`` summarises result rows per method; ``report`` turns a results directory into
``report.md`` and plots. ``runner`` runs methods over items concurrently and resumably,
writing rows through ``store`` (``results.jsonl`` and ``run.json``); ``progress`` draws its
progress bars and ``commands`` holds ``debategraph eval`` and ``debategraph report``.
``comparisons`` compares two arms on the items both finished (``compare_arms``,
``paired_comparisons``), with the paired statistics of ``stats``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from debategraph.eval.comparisons import Comparison, compare_arms, paired_comparisons

__all__ = ["Comparison", "compare_arms", "paired_comparisons"]


def __getattr__(name: str) -> Any:  # loaded on first use: numpy stays out of plain imports
    if name in __all__:
        from importlib import import_module

        return getattr(import_module("debategraph.eval.comparisons"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
