"""The report's compute-Pareto section: the front of each group as a Markdown table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from debategraph.eval.analysis.pareto import ParetoPoint, front, point_label


def _percent(value: float) -> str:
    return format(100 * value, ".1f")


def pareto_table(points: Sequence[ParetoPoint]) -> str:
    """Markdown table of the points on the front, cheapest first.

    Columns: the point (``du r1``, ``sc k=3``, ``svr decision``), tokens per item (``≤`` where
    an upper bound, ``≈`` where estimated: rows without turns), accuracy with its 95% Wilson
    interval, and the items it rests on.

    Args:
        points: The points of one group, marked for its front.

    Returns:
        The table, or ``""`` when no point is on the front.
    """
    rows = front(points)
    if not rows:
        return ""
    lines = [
        "| Point | Tokens/item | Accuracy % (95% CI) | n |",
        "| --- | ---: | ---: | ---: |",
    ]
    for p in rows:
        mark = "" if p["tokens_exact"] else ("≈" if p["k"] is not None else "≤")
        accuracy = f"{_percent(p['accuracy'])} ({_percent(p['ci_low'])}–{_percent(p['ci_high'])})"
        lines.append(
            f"| {point_label(p)} | {mark}{p['tokens_per_item']:,.0f} | {accuracy} | {p['n']} |"
        )
    return "\n".join(lines)


def pareto_section(groups: Sequence[Any], points: Sequence[Sequence[ParetoPoint]]) -> str:
    """The ``## Compute-Pareto front`` section of ``report.md``: one table per group.

    Args:
        groups: The report's groups (their ``title``).
        points: The points of each group, in the groups' order.

    Returns:
        Markdown text, or ``""`` when no group has a point.
    """
    blocks = []
    for group, group_points in zip(groups, points, strict=True):
        table = pareto_table(group_points)
        if table:
            arms = len({p["arm"] for p in group_points})
            on = sum(p["on_front"] for p in group_points)
            blocks.append(
                f"{group.title}: {len(group_points)} points of {arms} arm(s), {on} on the "
                f"front:\n\n{table}"
            )
    if not blocks:
        return ""
    intro = (
        "## Compute-Pareto front\n\n"
        "Each debate stopped after round r (the majority of that round's answers, against the "
        "tokens spent through it) and each vote over its first k answers (against the tokens "
        "of those k calls) is a cheaper configuration of the same run; an arm whose own "
        "decision differs from its last such point adds that decision. A point is on the "
        "front when no other point of its group spends no more tokens for no less accuracy "
        "(one of them strictly). Majority with the first-seen tie-break; 95% Wilson "
        "intervals; ≤ marks an upper bound and ≈ an estimate (rows without turns). Every "
        "point is in `summary.json` (`pareto`) and `pareto.png`."
    )
    return "\n\n".join([intro, *blocks])
