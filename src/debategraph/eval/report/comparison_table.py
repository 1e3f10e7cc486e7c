"""The report's "Is the difference real?" section: paired comparisons as a Markdown table."""

from __future__ import annotations

import math
from collections.abc import Sequence

from debategraph.eval.analysis.comparisons import Comparison
from debategraph.eval.report.cells import number_cell

_KINDS = {"vote": "round-0 vote", "budget": "budget", "user": "asked"}


def _points(value: float, spec: str = ".1f") -> str:
    return number_cell(value, spec, 100)


def _p(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "—"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def reading(c: Comparison, *, holm: bool = False) -> str:
    """In words: which arm is ahead, or that the interval covers zero.

    An interval clear of zero whose p-value (Holm-adjusted with ``holm``) is 0.05 or more (the
    interval and the test can disagree near the edge) is said to be so.
    """
    if c["n"] == 0 or math.isnan(c["ci_low"]):
        return "no item finished by both"
    if c["ci_low"] <= 0 <= c["ci_high"]:
        return "interval covers 0: no clear difference"
    ahead = c["a"] if c["ci_low"] > 0 else c["b"]
    p = c["p_holm"] if holm and c["p_holm"] is not None else c["p_value"]
    if p >= 0.05:
        return f"{ahead} ahead by the interval, but p ≥ 0.05: too few items to be sure"
    return f"{ahead} ahead"


def comparison_table(comparisons: Sequence[Comparison], *, holm: bool = False) -> str:
    """Markdown table, one line per comparison.

    Args:
        comparisons: The comparisons (see
            :func:`debategraph.eval.analysis.comparisons.paired_comparisons`).
        holm: Print the Holm-adjusted p-values (``p_holm``) instead of the raw ones.

    Returns:
        The table, or ``""`` without comparisons.
    """
    if not comparisons:
        return ""
    several = len({c["dataset"] for c in comparisons}) > 1
    header = [
        *(["Dataset"] if several else []),
        "A",
        "B",
        "Pair",
        "n",
        "A %",
        "B %",
        "Δ points (95% CI)",
        "A only",
        "B only",
        "p (Holm)" if holm else "p",
        "Test",
        "Failed",
        "Reading",
    ]
    left = {"Dataset", "A", "B", "Pair", "Test", "Reading"}
    lines = [header, ["---" if name in left else "---:" for name in header]]
    for c in comparisons:
        interval = f"{_points(c['ci_low'], '+.1f')} to {_points(c['ci_high'], '+.1f')}"
        lines.append(
            [
                *([c["dataset"] or "—"] if several else []),
                c["a"],
                c["b"],
                _KINDS[c["kind"]],
                str(c["n"]) if c["seeds"] <= 1 else f"{c['n']} × ≤{c['seeds']} seeds",
                _points(c["accuracy_a"]),
                _points(c["accuracy_b"]),
                f"{_points(c['difference'], '+.1f')} ({interval})",
                str(c["a_only"]),
                str(c["b_only"]),
                _p(c["p_holm"] if holm else c["p_value"]),
                c["test"],
                str(c["failed"]),
                reading(c, holm=holm),
            ]
        )
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def comparison_section(comparisons: Sequence[Comparison], *, holm: bool = False) -> list[str]:
    """The section's lines (heading, how to read it, the table), or none without comparisons."""
    if not comparisons:
        return []
    first = comparisons[0]
    count = len(comparisons)
    correction = (
        f"p-values are Holm-adjusted over all {count} comparisons."
        if holm
        else f"p-values are not adjusted for the {count} comparisons (pass --holm to adjust)."
        if count > 1
        else "One comparison."
    )
    return [
        "",
        "## Is the difference real?",
        "",
        f"{count} paired comparison(s) on the items both arms finished (n; pairs where either "
        "row failed are left out of both and counted in *Failed*; abstentions count as wrong). "
        "Δ = A − B in points, with its 95% interval: Tango's score interval for paired "
        "proportions with one seed; with several seeds, the percentile interval of a paired "
        f"bootstrap over items ({first['resamples']:,} resamples, seed {first['bootstrap_seed']}). "
        "A only / B only: items (item-seed pairs with several seeds) that one arm got right "
        "and the other wrong. p: exact two-sided McNemar test with one seed; with several "
        "seeds, a paired sign-flip test over items on their mean differences. An interval "
        "that covers 0 means these items cannot tell the arms apart. " + correction,
        "",
        comparison_table(comparisons, holm=holm),
    ]
