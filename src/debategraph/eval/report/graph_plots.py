"""PNG pictures of per-round debate graphs (``debategraph run --graph-png DIR``).

Needs matplotlib (``pip install 'debategraph[plots]'``), imported only when drawing. Agents sit
on a circle; an arrow ``head -> tail`` means the tail may read the head. Arrow width grows with
the weight; kept edges are solid and labelled with their weight, pruned edges thin and dashed.
"""

from __future__ import annotations

import io
import math
from functools import cache
from pathlib import Path
from typing import Any

import networkx as nx

PLOTS_HINT = "drawing graphs needs matplotlib: pip install 'debategraph[plots]'"


@cache
def _figure_class() -> type:
    """A matplotlib ``Figure`` that Jupyter shows inline as a PNG without pyplot."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(PLOTS_HINT) from exc

    class InlineFigure(Figure):
        def _repr_png_(self) -> bytes:
            buffer = io.BytesIO()
            self.savefig(buffer, format="png", dpi=100)
            return buffer.getvalue()

    return InlineFigure


def _figure() -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError as exc:
        raise ImportError(PLOTS_HINT) from exc
    figure = _figure_class()(figsize=(5.5, 5.5), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def graph_figure(graph: nx.DiGraph, title: str = "") -> Any:
    """A matplotlib figure of one debate graph (Jupyter displays it inline).

    Args:
        graph: Edges with ``kept`` (bool) and ``weight`` (float, may be ``inf``; for
            who-read-whom graphs, the number of turns read along the edge), as from
            ``DebateResult.graphs()``. Weights are printed when ``graph.graph["weighted"]``
            is not false; an edge's ``label``, if any, replaces the weight as its caption.
        title: Figure title.

    Returns:
        A ``matplotlib.figure.Figure``.

    Raises:
        ImportError: matplotlib is missing; the message names the ``plots`` extra.
    """
    figure = _figure()
    weighted = graph.graph.get("weighted", True)
    ax = figure.subplots()
    nodes = list(graph.nodes)
    pos = {
        node: (math.cos(math.pi / 2 - 2 * math.pi * k / len(nodes)),
               math.sin(math.pi / 2 - 2 * math.pi * k / len(nodes)))
        for k, node in enumerate(nodes)
    }  # fmt: skip
    finite = [w for _, _, w in graph.edges(data="weight", default=1.0) if math.isfinite(w)]
    top = max(finite, default=0.0) or 1.0
    for head, tail, data in graph.edges(data=True):
        # A read graph (``read_graphs``) has no weights: every edge is a read that happened.
        weight, kept = data.get("weight", 1.0), data.get("kept", True)
        share = 1.0 if not math.isfinite(weight) else max(weight, 0.0) / top
        ax.annotate(
            "",
            xy=pos[tail],
            xytext=pos[head],
            arrowprops={
                "arrowstyle": "-|>",
                "lw": 0.6 + 4.0 * share if kept else 0.6,
                "linestyle": "solid" if kept else (0, (3, 3)),
                "color": "tab:blue" if kept else "0.7",
                "shrinkA": 16,
                "shrinkB": 16,
                "connectionstyle": "arc3,rad=0.12",
            },
        )
        if kept and (weighted or data.get("label")):
            (x0, y0), (x1, y1) = pos[head], pos[tail]
            label = data.get("label") or ("inf" if not math.isfinite(weight) else f"{weight:.3g}")
            # Offset the label to the arrow's side, so that i->j and j->i do not overlap.
            ax.text(
                0.5 * (x0 + x1) + 0.1 * (y1 - y0),
                0.5 * (y0 + y1) - 0.1 * (x1 - x0),
                label,
                fontsize=7,
                ha="center",
                va="center",
                color="tab:blue",
            )
    for node, (x, y) in pos.items():
        ax.scatter([x], [y], s=700, color="white", edgecolors="black", zorder=3)
        ax.text(x, y, node, ha="center", va="center", fontsize=10, zorder=4)
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title)
    return figure


def draw_graph(graph: nx.DiGraph, path: str | Path, title: str = "") -> Path:
    """Draw one debate graph to a PNG file (see :func:`graph_figure`).

    Returns:
        The path written.

    Raises:
        ImportError: matplotlib is missing; the message names the ``plots`` extra.
    """
    out = Path(path)
    graph_figure(graph, title).savefig(out, dpi=110)
    return out


def write_graph_pngs(
    graphs: list[nx.DiGraph], directory: str | Path, prefix: str = ""
) -> list[Path]:
    """One PNG per debate round, ``{prefix}-round-1.png``, ... (``round-1.png`` without one).

    Args:
        graphs: Per debate round, the weighted graph (``DebateResult.graphs()``); a graph's
            ``graph["round"]`` names its file, else its position (from 1), and its
            ``graph["title"]``, if any, its title.
        directory: Created if missing.
        prefix: Starts every file name (the method's name, so that debates of several
            methods can share a directory).

    Returns:
        The files written, in round order.

    Raises:
        ImportError: matplotlib is missing; the message names the ``plots`` extra.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for position, graph in enumerate(graphs, start=1):
        d = graph.graph.get("round", position)
        legend = " (solid: kept, dashed: pruned)" if graph.graph.get("weighted", True) else ""
        title = graph.graph.get("title") or f"debate round {d}{legend}"
        name = f"{prefix}-round-{d}.png" if prefix else f"round-{d}.png"
        written.append(draw_graph(graph, out / name, title))
    return written
