"""The report's plots: accuracy against tokens, accuracy per round, tokens by call kind.

Plots need matplotlib (``pip install 'debategraph[plots]'``); it is imported only when
plotting and draws with the Agg backend, without touching pyplot's global state.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from debategraph.eval.analysis.metrics import MethodSummary
from debategraph.eval.analysis.results import Group


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


def point_labels(labelled: Sequence[tuple[str, MethodSummary]]) -> dict[tuple[float, float], str]:
    """Per point (tokens per item, accuracy %), the numbers of the methods drawn there."""
    at: dict[tuple[float, float], list[int]] = {}
    for number, (_, s) in enumerate(labelled, 1):
        point = (round(s["total_tokens_per_item"], 6), round(100 * s["accuracy"], 6))
        at.setdefault(point, []).append(number)
    return {point: ",".join(map(str, numbers)) for point, numbers in at.items()}


def plot_accuracy_vs_tokens(groups: Sequence[Group], path: Path) -> Path:
    """Accuracy (%) against total tokens per item, one numbered point per method, CI bars.

    Points carry numbers, and the legend beside the plot names them, so that labels never
    print over each other: methods at the same point (the same debates re-decided by several
    rules, ``report --decision``) share one annotation listing their numbers.

    Args:
        groups: Summaries to plot.
        path: The PNG to write.

    Returns:
        ``path``.
    """
    labelled = _labelled(groups)
    figure = _new_figure(8.4, max(4.4, 1.2 + 0.22 * len(labelled)))
    axes = figure.add_subplot()
    for number, (label, s) in enumerate(labelled, 1):
        accuracy = 100 * s["accuracy"]
        error = [[accuracy - 100 * s["ci_low"]], [100 * s["ci_high"] - accuracy]]
        x = s["total_tokens_per_item"]
        axes.errorbar([x], [accuracy], yerr=error, fmt="o", capsize=4, label=f"{number}  {label}")
    for (x, accuracy), text in point_labels(labelled).items():
        axes.annotate(text, (x, accuracy), textcoords="offset points", xytext=(6, 4), fontsize=8)
    axes.set_xlabel("Total tokens per item")
    axes.set_ylabel("Accuracy (%)")
    axes.set_title("Accuracy vs token cost (95% Wilson CI)")
    axes.grid(alpha=0.3)
    if labelled:
        figure.legend(loc="outside right upper", fontsize=8, frameon=False)
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


def plot_debate_vs_vote(groups: Sequence[Group], path: Path) -> Path:
    """Did debating help? Each debate against the vote of its own round 0, and its flips.

    Left: an arrow per method from the accuracy of the majority of its round-0 answers to
    its final accuracy (green up, red down). Right: the agents' flips over all rounds,
    wrong → right to the right, right → wrong and wrong → other wrong to the left.

    Args:
        groups: Summaries to plot.
        path: The PNG to write.

    Returns:
        ``path``.
    """
    debated = [(label, s) for label, s in _labelled(groups) if len(s["round_stats"]) > 1]
    figure = _new_figure(10.0, max(2.6, 0.55 * len(debated) + 1.6))
    left, right = figure.subplots(1, 2, sharey=True)
    if not debated:
        for axes in (left, right):
            axes.text(0.5, 0.5, "no method debated", ha="center", va="center")
            axes.set_axis_off()
        figure.savefig(path, dpi=120)
        return path
    ys = range(len(debated))
    for y, (_, s) in zip(ys, debated, strict=True):
        vote = s["vote_at_round0"]
        start, end = 100 * vote["accuracy"], 100 * vote["final_accuracy"]
        color = "tab:green" if end > start else "tab:red" if end < start else "tab:gray"
        left.annotate("", (end, y), (start, y), arrowprops={"arrowstyle": "->", "color": color})
        left.plot([start], [y], "o", markerfacecolor="white", color=color)
        left.plot([end], [y], "o", color=color)
        left.annotate(f"{end - start:+.1f}", (end, y), textcoords="offset points",
                      xytext=(0, 7), ha="center", fontsize=8)  # fmt: skip
        flips, first = s["flips"], y == 0
        right.barh(y, flips["wrong_to_right"], color="tab:green",
                   label="wrong → right" if first else None)  # fmt: skip
        right.barh(y, -flips["right_to_wrong"], color="tab:red",
                   label="right → wrong" if first else None)  # fmt: skip
        right.barh(y, -flips["wrong_to_other_wrong"], left=-flips["right_to_wrong"],
                   color="tab:gray", label="wrong → other wrong" if first else None)  # fmt: skip
    left.set_yticks(list(ys), [label for label, _ in debated])
    left.set_xlim(0, 100)
    left.set_xlabel("Accuracy (%): vote at round 0 (○) → final answer (●)")
    left.set_title("Did debating help?")
    right.axvline(0, color="black", linewidth=0.8)
    right.set_xlabel("Agents' answer changes, all rounds")
    right.set_title("Flips between rounds")
    figure.legend(loc="outside lower right", ncols=3, fontsize=8)
    for axes in (left, right):
        axes.grid(alpha=0.3, axis="x")
    figure.savefig(path, dpi=120)
    return path
