"""The report's *Accuracy over seeds* table: per method, mean ± sd, min–max and each seed."""

from __future__ import annotations

from collections.abc import Mapping

from debategraph.eval.analysis.metrics import MethodSummary
from debategraph.eval.analysis.seeds import SeedSpread
from debategraph.eval.report.cells import number_cell

SEEDS_NOTE = (
    "Accuracy over seeds (a run with --seeds: the same items under each seed; each seed's "
    "accuracy over its scored rows, then their mean ± sample sd (ddof=1), min–max, and "
    "each seed's, in %):"
)


def _pct(value: float | None) -> str:
    return number_cell(value, ".1f", 100)


def seeds_line(spread: SeedSpread) -> str:
    """``72.0 ± 2.6 (69.0–74.0)``: one method's accuracy over seeds, in %."""
    sd = "" if spread["sd"] is None else f" ± {_pct(spread['sd'])}"
    return f"{_pct(spread['mean'])}{sd} ({_pct(spread['min'])}–{_pct(spread['max'])})"


def seeds_table(summaries: Mapping[str, MethodSummary]) -> str:
    """The Markdown table of accuracy over seeds, one line per method.

    Args:
        summaries: Method -> summary.

    Returns:
        The table, or ``""`` when no method has rows of two seeds or more.
    """
    spread = [s for s in summaries.values() if s["seeds"]["n"] > 1]
    if not spread:
        return ""
    lines = [
        "| Method | Seeds | Accuracy % mean ± sd (min–max) | Per seed % |",
        "| --- | ---: | ---: | --- |",
    ]
    for s in spread:
        seeds = s["seeds"]
        each = ", ".join(
            f"{'—' if e['seed'] is None else e['seed']}: {_pct(e['accuracy'])}"
            for e in seeds["accuracies"]
        )
        lines.append(f"| {s['method']} | {seeds['n']} | {seeds_line(seeds)} | {each} |")
    return "\n".join(lines)


def seeds_section(summaries: Mapping[str, MethodSummary]) -> list[str]:
    """The report lines of :func:`seeds_table` with their note (none without several seeds)."""
    table = seeds_table(summaries)
    return ["", SEEDS_NOTE, "", table] if table else []
