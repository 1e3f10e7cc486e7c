"""The report's ``pareto.png``: accuracy against tokens per item, every point, the front drawn.

Needs matplotlib (``pip install 'debategraph[plots]'``), imported only when drawing, with the
Agg backend and no pyplot state (as :mod:`debategraph.eval.report.plots`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from debategraph.eval.analysis.pareto import ParetoPoint, front
from debategraph.eval.report.plots import _new_figure


def _draw_group(axes: Any, points: Sequence[ParetoPoint], colors: dict[str, str]) -> None:
    """One group's points (a line per arm, 95% Wilson bars), decisions as stars, the front."""
    for arm in dict.fromkeys(p["arm"] for p in points):
        color = colors[arm]
        for decided in (False, True):
            mine = [p for p in points if p["arm"] == arm and p["decision"] is decided]
            if not mine:
                continue
            xs = [p["tokens_per_item"] for p in mine]
            ys = [100 * p["accuracy"] for p in mine]
            bars = [
                [100 * (p["accuracy"] - p["ci_low"]) for p in mine],
                [100 * (p["ci_high"] - p["accuracy"]) for p in mine],
            ]
            axes.errorbar(
                xs, ys, yerr=bars, color=color, marker="*" if decided else "o",
                markersize=9 if decided else 4, linestyle="none" if decided else "-",
                linewidth=1, elinewidth=0.6, capsize=2, alpha=0.85,
                label=None if decided else arm,
            )  # fmt: skip
    best = front(points)
    if best:
        xs = [p["tokens_per_item"] for p in best]
        ys = [100 * p["accuracy"] for p in best]
        axes.step(xs, ys, where="post", color="black", linewidth=1.6, label="front")
        axes.scatter(xs, ys, s=70, facecolors="none", edgecolors="black", linewidths=1.2)
    if any(p["decision"] for p in points):
        axes.plot([], [], "*", color="gray", markersize=9, label="an arm's own decision")
    spend = [p["tokens_per_item"] for p in points if p["tokens_per_item"] > 0]
    if spend and max(spend) > 10 * min(spend):
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

        axes.set_xscale("log")
        axes.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
        axes.xaxis.set_minor_formatter(NullFormatter())
    axes.set_xlabel("Tokens per item (input + output)")
    axes.set_ylabel("Accuracy (%)")
    axes.grid(alpha=0.3)


def plot_pareto(groups: Sequence[Any], points: Sequence[Sequence[ParetoPoint]], path: Path) -> Path:
    """Accuracy (%) against tokens per item: every arm's points, the front as a step line.

    One panel per report group with points. Debates draw a line over their rounds, votes over
    ``k``; an arm's own decision, where it adds a point, is a star; points on the front are
    ringed and the front is drawn as the best accuracy reached for a given spend.

    Args:
        groups: The report's groups (their ``title``).
        points: The points of each group, in the groups' order.
        path: The PNG to write.

    Returns:
        ``path``.
    """
    panels = [(g, p) for g, p in zip(groups, points, strict=True) if p]
    arms = list(dict.fromkeys(pt["arm"] for _, group_points in panels for pt in group_points))
    figure = _new_figure(4.6 * max(1, len(panels)) + 2.2, 4.8)
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    palette = colormaps["tab10" if len(arms) <= 10 else "tab20"]
    colors = {arm: to_hex(palette(i % palette.N)) for i, arm in enumerate(arms)}
    if not panels:
        axes = figure.add_subplot()
        axes.text(0.5, 0.5, "no scored rows", ha="center", va="center")
        axes.set_axis_off()
        figure.savefig(path, dpi=120)
        return path
    for column, (group, group_points) in enumerate(panels, start=1):
        axes = figure.add_subplot(1, len(panels), column)
        _draw_group(axes, group_points, colors)
        axes.set_title(f"{group.title}\ncompute-Pareto front (95% Wilson CI)", fontsize=9)
    handles: dict[str, Any] = {}
    for axes in figure.axes:
        for handle, label in zip(*axes.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    figure.legend(
        list(handles.values()), list(handles), loc="outside right upper", fontsize=8,
        frameon=False,
    )  # fmt: skip
    figure.savefig(path, dpi=120)
    return path
