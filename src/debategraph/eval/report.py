"""Markdown report and plots from a directory of result rows.

:func:`write_report` reads every ``*.jsonl`` file of a results directory (rows as described
in :mod:`debategraph.eval.metrics`), groups them by ``source`` (``simulated`` / ``real``)
and ``dataset`` when rows carry them, and writes ``report.md`` with one table per group in
the shape of the papers' tables, a per-round table, an answer-extraction table (fallback and
abstention rates per method, when rows record ``answer_sources``), and three plots:

- ``accuracy_vs_tokens.png``: accuracy against total tokens per item, one point per method,
  with 95% Wilson intervals;
- ``per_round.png``: majority-vote accuracy and consensus per round per method;
- ``token_breakdown.png``: mean tokens per item by call kind, input vs output.

Plots need matplotlib (``pip install 'debategraph[plots]'``); it is imported only when
plotting and draws with the Agg backend, without touching pyplot's global state.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debategraph.eval.metrics import MethodSummary, Row, group_by, is_failed, summarize

REPORT_NAME = "report.md"
PLOT_NAMES = ("accuracy_vs_tokens.png", "per_round.png", "token_breakdown.png")
_SOURCE_TITLES = {
    "simulated": "Simulated models",
    "real": "Real model outputs",
    "": "Source not recorded",
}
_SIMULATED_NOTE = (
    "Simulated rows come from the simulated chat model, a test double: they show that the "
    "pipeline runs and what it measures, not how accurate a method is."
)
_COLUMNS = (
    ("Method", "left"),
    ("n", "right"),
    ("Accuracy % (95% CI)", "right"),
    ("Abstain %", "right"),
    ("Tokens/item", "right"),
    ("Input tok/call", "right"),
    ("Calls/item", "right"),
    ("NComm/item", "right"),
    ("Rounds", "right"),
    ("Wall s/item", "right"),
    ("Failed", "right"),
)


@dataclass(frozen=True)
class Group:
    """Rows of one (source, dataset) pair and their per-method summaries.

    Attributes:
        source: ``simulated``, ``real`` or ``""`` (not recorded).
        dataset: The rows' ``dataset`` value, or ``""``.
        summaries: Method -> summary, in first-seen order.
    """

    source: str
    dataset: str
    summaries: dict[str, MethodSummary]

    @property
    def title(self) -> str:
        """Heading of the group, e.g. ``Simulated models: gsm8k``."""
        base = _SOURCE_TITLES.get(self.source, f"Source: {self.source}")
        return f"{base}: {self.dataset}" if self.dataset else base

    @property
    def tag(self) -> str:
        """Short label for plot legends, e.g. ``simulated/gsm8k``."""
        return "/".join(part for part in (self.source, self.dataset) if part)


def read_results(results_dir: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Read every ``*.jsonl`` file of a directory (not recursive), in name order.

    Args:
        results_dir: The results directory.

    Returns:
        The rows, and one message per unreadable line (bad JSON, not an object, no
        ``method``); those lines are skipped, e.g. a line cut short by an interrupted run.
    """
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for file in sorted(Path(results_dir).glob("*.jsonl")):
        with file.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                row, problem = _parse_row(line)
                if problem:
                    problems.append(f"{file.name}, line {number}: {problem}")
                else:
                    rows.append(row)
    return rows, problems


def _parse_row(line: str) -> tuple[dict[str, Any], str]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        return {}, f"not valid JSON ({exc.msg})"
    if not isinstance(row, dict):
        return {}, "not a JSON object"
    if "method" not in row:
        return {}, "no 'method' key"
    return row, ""


def build_groups(rows: Sequence[Row], prices: Mapping[str, float] | None = None) -> list[Group]:
    """Summaries per method within each (source, dataset) group, groups in first-seen order.

    Args:
        rows: Result rows.
        prices: ``{"input": $ per token, "output": $ per token}``, or ``None``.

    Returns:
        The groups.
    """
    groups = []
    for source, source_rows in group_by(rows, "source").items():
        for dataset, dataset_rows in group_by(source_rows, "dataset").items():
            groups.append(Group(source, dataset, summarize(dataset_rows, prices)))
    return groups


# --------------------------------------------------------------------------- Markdown


def _fmt(value: float | None, spec: str, scale: float = 1.0) -> str:
    if value is None or math.isnan(value):
        return "—"
    return format(value * scale, spec)


def _accuracy_cell(s: MethodSummary) -> str:
    if s["n"] == 0:
        return "—"
    low, high = _fmt(s["ci_low"], ".1f", 100), _fmt(s["ci_high"], ".1f", 100)
    return f"{_fmt(s['accuracy'], '.1f', 100)} ({low}–{high})"


def table_row(s: MethodSummary, *, with_cost: bool = False) -> list[str]:
    """The cells of one method's line of the results table.

    Args:
        s: The method's summary.
        with_cost: Whether to append the cost per item column.

    Returns:
        Cells in the order of the table header.
    """
    cells = [
        s["method"],
        str(s["n"]),
        _accuracy_cell(s),
        _fmt(s["abstention_rate"], ".1f", 100),
        _fmt(s["total_tokens_per_item"], ",.0f"),
        _fmt(s["input_tokens_per_call"], ",.1f"),
        _fmt(s["calls_per_item"], ".1f"),
        _fmt(s["ncomm_per_item"], ".1f"),
        _fmt(s["rounds_mean"], ".2f"),
        _fmt(s["wall_s_mean"], ".2f"),
        str(s["failed"]),
    ]
    if with_cost:
        cells.append(_fmt(s["cost_per_item"], ".5f"))
    return cells


def _markdown_table(header: Sequence[str], aligns: Sequence[str], body: list[list[str]]) -> str:
    rule = ["---:" if align == "right" else "---" for align in aligns]
    lines = [header, rule, *body]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def results_table(summaries: Mapping[str, MethodSummary], *, with_cost: bool = False) -> str:
    """The Markdown table comparing methods (one line per method).

    Args:
        summaries: Method -> summary.
        with_cost: Whether to add a ``Cost $/item`` column.

    Returns:
        The table.
    """
    header = [name for name, _ in _COLUMNS]
    aligns = [align for _, align in _COLUMNS]
    if with_cost:
        header.append("Cost $/item")
        aligns.append("right")
    body = [table_row(s, with_cost=with_cost) for s in summaries.values()]
    return _markdown_table(header, aligns, body)


def per_round_table(summaries: Mapping[str, MethodSummary]) -> str:
    """Markdown table of majority-vote accuracy and consensus per round, per method.

    Args:
        summaries: Method -> summary.

    Returns:
        The table, or ``""`` when no method recorded per-round answers.
    """
    width = max((len(s["accuracy_by_round"]) for s in summaries.values()), default=0)
    if width == 0:
        return ""
    header = ["Method", "Metric", *(f"Round {k}" for k in range(width))]
    body = []
    for s in summaries.values():
        for label, values in (
            ("accuracy %", s["accuracy_by_round"]),
            ("consensus %", s["consensus_by_round"]),
        ):
            cells = [_fmt(v, ".1f", 100) for v in values] + ["—"] * (width - len(values))
            body.append([s["method"], label, *cells])
    return _markdown_table(header, ["left", "left", *["right"] * width], body)


def extraction_table(summaries: Mapping[str, MethodSummary]) -> str:
    """Markdown table of how answers were found, per method.

    Columns: answer turns, the share declared, the share from the fallback (a guess such as
    the last number), the share without an answer, and how many rows record it. A method
    whose rows do not record ``answer_sources`` shows ``—`` (unknown, not zero).

    Args:
        summaries: Method -> summary.

    Returns:
        The table, or ``""`` when no method records answer sources.
    """
    if all(s["answer_sources"] is None for s in summaries.values()):
        return ""
    header = ["Method", "Answer turns", "Declared %", "Fallback %", "No answer %", "Rows known"]
    body = []
    for s in summaries.values():
        sources, turns = s["answer_sources"], s["answer_turns"]
        declared = sources["declared"] / turns if sources and turns else None
        body.append(
            [
                s["method"],
                "—" if turns is None else f"{turns:,}",
                _fmt(declared, ".1f", 100),
                _fmt(s["fallback_rate"], ".1f", 100),
                _fmt(s["turn_abstention_rate"], ".1f", 100),
                f"{s['answer_sources_rows']}/{s['n']}",
            ]
        )
    return _markdown_table(header, ["left", *["right"] * 5], body)


def _sources_line(groups: Sequence[Group], rows: Sequence[Row]) -> str:
    counts = {source: len(r) for source, r in group_by(rows, "source").items()}
    if set(counts) == {""}:
        return "Rows do not say whether they come from simulated models or real outputs."
    parts = []
    for source, count in counts.items():
        methods = sorted({m for g in groups if g.source == source for m in g.summaries})
        title = _SOURCE_TITLES.get(source, source).lower()
        parts.append(f"{title}: {count} rows ({', '.join(methods)})")
    line = "Rows by source: " + "; ".join(parts) + "."
    return f"{line} {_SIMULATED_NOTE}" if "simulated" in counts else line


def spending_table(summaries: Mapping[str, MethodSummary]) -> str:
    """Requests, failed requests and wasted tokens per method (rows that record them)."""
    body = []
    for s in summaries.values():
        if s["requests"] is None:
            continue
        body.append(
            [
                s["method"],
                f"{s['requests']:,}",
                f"{s['calls']:,}",
                f"{s['failed_requests']:,}",
                f"{s['wasted_tokens']:,}",
                f"{s['failed_item_tokens']:,}",
                str(s["failed"]),
            ]
        )
    header = ["Method", "Requests", "Calls kept", "Failed requests", "Wasted tokens",
              "of which failed items", "Failed items"]  # fmt: skip
    return _markdown_table(header, ["left"] + ["right"] * 6, body)


def render_markdown(
    groups: Sequence[Group],
    rows: Sequence[Row],
    *,
    files: Sequence[str],
    problems: Sequence[str],
    plots: Sequence[str],
    with_cost: bool = False,
) -> str:
    """The whole ``report.md`` text.

    Args:
        groups: Summaries per (source, dataset).
        rows: All rows read (for the source counts).
        files: Names of the results files read.
        problems: Unreadable lines that were skipped.
        plots: File names of the plots written next to the report.
        with_cost: Whether tables get a cost column.

    Returns:
        Markdown text.
    """
    failed = sum(is_failed(row) for row in rows)
    out = [
        "# Evaluation report",
        "",
        f"{len(rows)} result rows from {len(files)} file(s): {', '.join(files)}. "
        f"{failed} failed item(s) are counted in *Failed* and left out of every other column.",
        "",
        _sources_line(groups, rows),
        "",
        "Accuracy counts abstentions as wrong; the interval is the 95% Wilson interval. "
        "Tokens/item is input + output tokens of every call (agents, summaries, evaluators); "
        "Input tok/call is total input tokens / calls; NComm counts pairwise context "
        "transfers; Rounds follows each method's own convention.",
    ]
    for group in groups:
        out += ["", f"## {group.title}", "", results_table(group.summaries, with_cost=with_cost)]
        rounds = per_round_table(group.summaries)
        if rounds:
            out += ["", "Per round (majority vote, first-seen tie-break; consensus = all agree):"]
            out += ["", rounds]
        extraction = extraction_table(group.summaries)
        if extraction:
            out += [
                "",
                "Answer extraction (per answer turn: declared answer, fallback guess such as "
                "the last number, or no answer; — = not recorded):",
                "",
                extraction,
            ]
    spending = [g for g in groups if any(s["requests"] is not None for s in g.summaries.values())]
    if spending:
        out += [
            "",
            "## Spending on the provider",
            "",
            "Requests include retries; failed requests are errors and rejected replies (e.g. "
            "empty); wasted tokens are those of replies that arrived but were not used, "
            "failed items included.",
        ]
        for group in spending:
            out += ["", f"{group.title}:", "", spending_table(group.summaries)]
    if plots:
        out += ["", "## Plots", ""]
        out += [f"![{Path(name).stem.replace('_', ' ')}]({name})" for name in plots]
    if problems:
        out += ["", f"## Skipped lines ({len(problems)})", ""]
        out += [f"- {problem}" for problem in problems]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- plots


def _new_figure(width: float, height: float) -> Any:
    """A matplotlib Figure on an Agg canvas (no pyplot, no global backend change)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "Plots need matplotlib: pip install 'debategraph[plots]' "
            "(or call write_report(..., plots=False))"
        ) from exc
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _labelled(groups: Sequence[Group]) -> list[tuple[str, MethodSummary]]:
    """(legend label, summary) of every method with scored items."""
    many = len(groups) > 1
    return [
        (f"{method} [{group.tag}]" if many and group.tag else method, s)
        for group in groups
        for method, s in group.summaries.items()
        if s["n"] > 0
    ]


def plot_accuracy_vs_tokens(groups: Sequence[Group], path: Path) -> Path:
    """Accuracy (%) against total tokens per item, one point per method, with CI bars.

    Args:
        groups: Summaries to plot.
        path: The PNG to write.

    Returns:
        ``path``.
    """
    figure = _new_figure(6.4, 4.4)
    axes = figure.add_subplot()
    for label, s in _labelled(groups):
        accuracy = 100 * s["accuracy"]
        error = [[accuracy - 100 * s["ci_low"]], [100 * s["ci_high"] - accuracy]]
        x = s["total_tokens_per_item"]
        axes.errorbar([x], [accuracy], yerr=error, fmt="o", capsize=4, label=label)
        axes.annotate(label, (x, accuracy), textcoords="offset points", xytext=(6, 4), fontsize=8)
    axes.set_xlabel("Total tokens per item")
    axes.set_ylabel("Accuracy (%)")
    axes.set_title("Accuracy vs token cost (95% Wilson CI)")
    axes.grid(alpha=0.3)
    figure.savefig(path, dpi=120)
    return path


def plot_per_round(groups: Sequence[Group], path: Path) -> Path:
    """Majority-vote accuracy and consensus per round, one line per method.

    Methods that debated draw a line over their rounds; methods with only initial answers
    (``cot``, ``sc``, ``mav``) draw a dashed level across the plot, so they stay comparable
    without faking a trend. One legend below both panels names every method.

    Args:
        groups: Summaries to plot.
        path: The PNG to write.

    Returns:
        ``path``.
    """
    figure = _new_figure(10.0, 4.8)
    left, right = figure.subplots(1, 2)
    labelled = _labelled(groups)
    longest = max((len(s["accuracy_by_round"]) for _, s in labelled), default=0)
    titles = ("Accuracy of the round's majority", "Consensus")
    if longest <= 1:
        # Nobody debated: one bar per method for its initial answers, no fake trend.
        names = [label for label, _ in labelled]
        firsts = [
            [
                100 * s["accuracy_by_round"][0] if s["accuracy_by_round"] else 0.0
                for _, s in labelled
            ],
            [
                100 * s["consensus_by_round"][0] if s["consensus_by_round"] else 0.0
                for _, s in labelled
            ],
        ]
        for axes, values in zip((left, right), firsts, strict=True):
            axes.bar(range(len(names)), values, color=[f"C{i}" for i in range(len(names))])
            axes.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=8)
        for axes, title in zip((left, right), titles, strict=True):
            axes.set_title(f"{title} (initial answers; no method debated)", fontsize=10)
            axes.set_ylabel("%")
            axes.set_ylim(0, 100)
            axes.grid(alpha=0.3, axis="y")
        figure.savefig(path, dpi=120)
        return path
    for label, s in labelled:
        accuracy = [100 * v for v in s["accuracy_by_round"]]
        consensus = [100 * v for v in s["consensus_by_round"]]
        if len(accuracy) > 1:
            rounds = range(len(accuracy))
            (line,) = left.plot(rounds, accuracy, marker="o", label=label)
            right.plot(rounds, consensus, marker="o", color=line.get_color())
        elif accuracy:
            span = [0, longest - 1]
            (line,) = left.plot(span, accuracy * 2, linestyle="--", label=f"{label} (no debate)")
            right.plot(span, consensus * 2, linestyle="--", color=line.get_color())
    for axes, title in zip((left, right), titles, strict=True):
        axes.set_xlabel("Round (0 = initial answers)")
        axes.set_ylabel("%")
        axes.set_ylim(0, 100)
        axes.set_title(title)
        axes.grid(alpha=0.3)
        axes.xaxis.get_major_locator().set_params(integer=True)
    figure.legend(loc="outside lower center", ncols=min(4, len(left.lines)), fontsize=8)
    figure.savefig(path, dpi=120)
    return path


def _kinds_per_item(s: MethodSummary) -> dict[str, dict[str, float]]:
    """Mean tokens per item by call kind; tokens no kind accounts for go to ``unattributed``."""
    by_kind = {kind: dict(usage) for kind, usage in s["tokens_by_kind"].items()}
    rest = {
        key: s[key] - sum(usage.get(key, 0) for usage in by_kind.values())
        for key in ("input_tokens", "output_tokens")
    }
    if any(value > 0 for value in rest.values()):
        by_kind["all" if not by_kind else "unattributed"] = rest
    return {
        kind: {key: usage.get(key, 0) / s["n"] for key in ("input_tokens", "output_tokens")}
        for kind, usage in by_kind.items()
    }


def plot_token_breakdown(groups: Sequence[Group], path: Path) -> Path:
    """Stacked bars of mean tokens per item by call kind, input (solid) and output (hatched).

    Methods whose rows carry no ``tokens_by_kind`` show one kind, ``all``.

    Args:
        groups: Summaries to plot.
        path: The PNG to write.

    Returns:
        ``path``.
    """
    labelled = _labelled(groups)
    figure = _new_figure(max(6.4, 1.2 * len(labelled) + 2), 4.6)
    from matplotlib import colormaps

    axes = figure.add_subplot()
    per_method = [(label, _kinds_per_item(s)) for label, s in labelled]
    kinds = list(dict.fromkeys(kind for _, by_kind in per_method for kind in by_kind))
    colors = colormaps["tab10"]
    for position, (_, by_kind) in enumerate(per_method):
        bottom = 0.0
        for k, kind in enumerate(kinds):
            usage = by_kind.get(kind, {"input_tokens": 0.0, "output_tokens": 0.0})
            for part, hatch in (("input_tokens", ""), ("output_tokens", "//")):
                legend = f"{kind} · {part.split('_')[0]}" if position == 0 else None
                height = usage[part]
                axes.bar(
                    position,
                    height,
                    bottom=bottom,
                    color=colors(k % 10),
                    hatch=hatch,
                    edgecolor="white",
                    label=legend,
                )
                bottom += height
    axes.set_xticks(range(len(per_method)), [label for label, _ in per_method], rotation=20)
    axes.set_ylabel("Mean tokens per item")
    axes.set_title("Token breakdown by call kind")
    if per_method:
        axes.legend(fontsize=8)
    figure.savefig(path, dpi=120)
    return path


# --------------------------------------------------------------------------- entry point


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
    redact: Callable[[str], str] = str,
) -> Path:
    """Write ``report.md``, ``summary.json`` and the plots for a results directory.

    Args:
        results_dir: Directory of ``*.jsonl`` result files (rows as in
            :mod:`debategraph.eval.metrics`; a row with ``error`` is a failed item).
        out_dir: Where to write; defaults to ``results_dir``.
        prices: ``{"input": $ per token, "output": $ per token}`` adds a cost column.
        plots: Whether to draw the PNGs (they need the ``plots`` extra).
        decisions: Re-decide the stored debates with these rules (no model call); each
            method then appears once per rule, as ``method [rule]``.
        redact: Applied to the report and summary text before they are written.

    Returns:
        The path of ``report.md``.

    Raises:
        FileNotFoundError: ``results_dir`` holds no ``*.jsonl`` file.
        ValueError: The files hold no readable row.
        ImportError: ``plots`` is true and matplotlib is not installed.
    """
    source = Path(results_dir)
    files = sorted(file.name for file in source.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no *.jsonl result files in {source}")
    rows, problems = read_results(source)
    if not rows:
        raise ValueError(f"no readable result rows in {source}: " + "; ".join(problems[:5]))
    if decisions:
        from debategraph.eval.rescore import rescore_all

        rows = rescore_all(rows, decisions)
    target = Path(out_dir) if out_dir is not None else source
    target.mkdir(parents=True, exist_ok=True)
    groups = build_groups(rows, prices)
    plot_files: list[str] = []
    if plots:
        plot_accuracy_vs_tokens(groups, target / PLOT_NAMES[0])
        plot_per_round(groups, target / PLOT_NAMES[1])
        plot_token_breakdown(groups, target / PLOT_NAMES[2])
        plot_files = list(PLOT_NAMES)
    summary = [{"source": g.source, "dataset": g.dataset, "methods": g.summaries} for g in groups]
    (target / "summary.json").write_text(redact(json.dumps(_jsonable(summary), indent=2)) + "\n")
    text = render_markdown(
        groups, rows, files=files, problems=problems, plots=plot_files, with_cost=prices is not None
    )
    report = target / REPORT_NAME
    report.write_text(redact(text), encoding="utf-8")
    return report
