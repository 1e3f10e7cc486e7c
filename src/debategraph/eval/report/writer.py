"""Markdown report and plots from a directory of result rows.

:func:`write_report` reads every ``*.jsonl`` file of a results directory (rows as described
in :mod:`debategraph.eval.analysis.metrics`; the ledger ``interrupted.jsonl`` is not rows: its spend
is added to the bills, :mod:`debategraph.eval.analysis.ledger_bill`), groups them by ``source``
(``simulated`` / ``real``) and ``dataset`` when rows carry them, and writes ``report.md``
with one table per group in the shape of the papers' tables, a table of each debate against
the vote of its own round 0, paired comparisons with bootstrap intervals and exact tests
(:mod:`debategraph.eval.analysis.comparisons`), a per-round table (majority accuracy, agents right,
flips), an answer-extraction table (fallback and abstention rates per method, when rows
record ``answer_sources``), and four plots:

- ``accuracy_vs_tokens.png``: accuracy against total tokens per item, one point per method,
  with 95% Wilson intervals;
- ``per_round.png``: majority-vote accuracy and consensus per round per method;
- ``token_breakdown.png``: mean tokens per item by call kind, input vs output;
- ``debate_vs_vote.png``: each debate's final accuracy against its round-0 vote, and the
  agents' flips (right → wrong, wrong → right) over all rounds;
- ``pareto.png``: the compute-Pareto points (each debate per round, each vote per number of
  answers) against tokens per item, with the front (:mod:`debategraph.eval.analysis.pareto`).

Plots need matplotlib (``pip install 'debategraph[plots]'``); it is imported only when
plotting and draws with the Agg backend, without touching pyplot's global state.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from debategraph.eval.analysis.ledger_bill import fold_ledger, ledger_words
from debategraph.eval.analysis.metrics import Row
from debategraph.eval.analysis.pareto import ParetoPoint
from debategraph.eval.analysis.report_pass import GroupTally, ReportPass
from debategraph.eval.analysis.results import (
    Group,
    LoadedRows,
    build_groups,
    read_results,
    stream_rows,
)
from debategraph.eval.analysis.stats import DEFAULT_RESAMPLES
from debategraph.eval.log.ledger import read_ledger
from debategraph.eval.log.row_index import row_files
from debategraph.eval.report.comparison_table import comparison_section
from debategraph.eval.report.pareto_plot import plot_pareto
from debategraph.eval.report.pareto_table import pareto_section
from debategraph.eval.report.plots import (
    plot_accuracy_vs_tokens,
    plot_debate_vs_vote,
    plot_per_round,
    plot_token_breakdown,
)
from debategraph.eval.report.tables import render_markdown, results_table
from debategraph.eval.report.transitions_table import transitions_section

__all__ = ["PLOT_NAMES", "REPORT_NAME", "Group", "build_groups", "read_results", "results_table",
           "write_report"]  # fmt: skip

REPORT_NAME = "report.md"


PLOT_NAMES = (
    "accuracy_vs_tokens.png",
    "per_round.png",
    "token_breakdown.png",
    "debate_vs_vote.png",
    "pareto.png",
)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def write_report(
    results_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str] | None = None,
    *,
    prices: Mapping[str, float] | None = None,
    plots: bool = True,
    decisions: Sequence[str] = (),
    sid_et_skip_rates: Sequence[float | str] = (),
    redact: Callable[[str], str] = str,
    compare: Sequence[str | tuple[str, str]] = (),
    baseline: str | None = None,
    holm: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    bootstrap_seed: int = 0,
) -> Path:
    """Write ``report.md``, ``summary.json`` and the plots for a results directory.

    Args:
        results_dir: Directory of ``*.jsonl`` result files (rows as in
            :mod:`debategraph.eval.analysis.metrics`; a row with ``error`` is a failed item).
        out_dir: Where to write; defaults to ``results_dir``.
        prices: ``{"input": $ per token, "output": $ per token}`` adds a cost column.
        plots: Whether to draw the PNGs (they need the ``plots`` extra).
        decisions: Re-decide the stored debates with these rules (no model call); each
            method then appears once per rule, as ``method [rule]``.
        sid_et_skip_rates: Add SID-ET at these skip rates (in [0, 1], or ``"auto"``), read
            from a ``sid-et`` run's rows (:func:`~debategraph.eval.analysis.rescore.sid_et_arm`).
        redact: Applied to the report and summary text before they are written.
        compare: ``(a, b)`` arm pairs (or ``"a:b"`` strings) to compare, besides those the
            report always compares (each debate and its round-0 vote, each budget-matched
            arm and its debate; :func:`~debategraph.eval.analysis.comparisons.paired_comparisons`).
        baseline: Compare every other arm with this one as well.
        holm: Print Holm-adjusted p-values (``p_holm`` in ``summary.json``).
        resamples: Resamples of the paired bootstrap.
        bootstrap_seed: Seed of the paired bootstrap (and Monte Carlo sign-flip tests).

    Returns:
        The path of ``report.md``.

    Raises:
        FileNotFoundError: ``results_dir`` holds no ``*.jsonl`` file.
        ValueError: The files hold no readable row, or ``compare`` or ``baseline`` names
            no arm of the rows.
        ImportError: ``plots`` is true and matplotlib is not installed.
    """
    source = Path(results_dir)
    loaded, read, files = _read_rows(source, decisions, sid_et_skip_rates)
    problems = list(loaded.problems)
    paired = read.comparisons.comparisons(
        compare=compare, baseline=baseline, holm_correction=holm, resamples=resamples,
        seed=bootstrap_seed,
    )  # fmt: skip
    target = Path(out_dir) if out_dir is not None else source
    target.mkdir(parents=True, exist_ok=True)
    groups, pareto = _groups(read, prices, source, sid_et_skip_rates, decisions)
    folded = fold_ledger((g.summaries for g in groups), read_ledger(source, problems), prices)
    plot_files = _draw_plots(groups, pareto, target) if plots else []
    summary: dict[str, Any] = {
        "rows": {"used": loaded.used, "left_out": loaded.excluded, "problems": problems},
        "groups": [_group_entry(g, points) for g, points in zip(groups, pareto, strict=True)],
        "comparisons": paired,
        "beside_rows": folded,
        "transitions": read.transitions.result(),
    }
    (target / "summary.json").write_text(redact(json.dumps(_jsonable(summary), indent=2)) + "\n")
    text = render_markdown(
        groups,
        read.facts,
        files=files,
        problems=problems,
        plots=plot_files,
        with_cost=prices is not None,
        rows_line=" ".join(filter(None, [loaded.describe(), ledger_words(folded)])),
        comparisons=comparison_section(paired, holm=holm),
        pareto=pareto_section(groups, pareto),
    )
    text += "\n" + transitions_section(summary["transitions"])
    report = target / REPORT_NAME
    report.write_text(redact(text), encoding="utf-8")
    return report


def _rows(
    source: Path, loaded: LoadedRows, decisions: Sequence[str], rates: Sequence[float | str]
) -> Iterable[Row]:
    """The directory's rows, streamed; re-decided and with SID-ET arms where asked.

    Re-deciding and SID-ET read the files again (:func:`~debategraph.eval.analysis.rescore.
    rescored_rows`); the first pass records in ``loaded`` what it leaves out.
    """
    if not (decisions or rates):
        return stream_rows(source, loaded, texts=False)
    from debategraph.eval.analysis.rescore import rescored_rows

    passes = iter([loaded])

    def again() -> Iterable[Row]:
        return stream_rows(source, next(passes, LoadedRows()), texts=True)

    return rescored_rows(again, decisions, rates)


def _read_rows(
    source: Path, decisions: Sequence[str], sid_et_skip_rates: Sequence[float | str]
) -> tuple[LoadedRows, ReportPass, list[str]]:
    """The directory's rows, read once into the report's tallies, and its files."""
    files = [file.name for file in row_files(source)]
    if not files:
        raise FileNotFoundError(f"no *.jsonl result files in {source}")
    loaded = LoadedRows()
    read = ReportPass()
    for row in _rows(source, loaded, decisions, sid_et_skip_rates):
        read.add(row)
    if not loaded.used:
        raise ValueError(f"no readable result rows in {source}: " + "; ".join(loaded.problems[:5]))
    return loaded, read, files


def _groups(
    read: ReportPass,
    prices: Mapping[str, float] | None,
    source: Path,
    rates: Sequence[float | str],
    decisions: Sequence[str],
) -> tuple[list[Group], list[list[ParetoPoint]]]:
    """The groups and their Pareto points; where an arm's parts share a source, read again."""
    found = read.groups.groups(prices)
    if found is not None:
        return found
    again = GroupTally(read.groups.resolved())
    for row in _rows(source, LoadedRows(), decisions, rates):
        again.add(row)
    regrouped = again.groups(prices)
    assert regrouped is not None  # keyed by resolved sources, parts never share one
    return regrouped


def _draw_plots(groups: list[Group], pareto: list[list[ParetoPoint]], target: Path) -> list[str]:
    """Draw every plot into ``target``; returns their file names."""
    plot_accuracy_vs_tokens(groups, target / PLOT_NAMES[0])
    plot_per_round(groups, target / PLOT_NAMES[1])
    plot_token_breakdown(groups, target / PLOT_NAMES[2])
    plot_debate_vs_vote(groups, target / PLOT_NAMES[3])
    plot_pareto(groups, pareto, target / PLOT_NAMES[4])
    return list(PLOT_NAMES)


def _group_entry(group: Group, points: list[ParetoPoint]) -> dict[str, Any]:
    """One group's entry of ``summary.json``."""
    return {
        "source": group.source,
        "dataset": group.dataset,
        "methods": group.summaries,
        "overall_rounds": group.overall_rounds,
        "pareto": points,
    }
