"""A replayed intervention (:func:`debategraph.eval.analysis.replay.replay`) as Markdown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debategraph.eval.report.cells import MISSING, number_cell
from debategraph.eval.report.transitions_table import difference_cell


def _pct(value: float) -> str:
    cell = number_cell(value, ".1f", 100)
    return cell if cell == MISSING else f"{cell}%"


def _tokens(value: float | None) -> str:
    return "not kept" if value is None else number_cell(value, ".0f")


def replay_table(policy: str, arms: Mapping[str, Mapping[str, Any]]) -> str:
    """The comparison of each debating arm under ``policy`` with the arm as it ran.

    Args:
        policy: The policy as given (``stop-at-round:2``).
        arms: Arm -> :meth:`debategraph.eval.analysis.replay.ReplayTally.result`.

    Returns:
        A heading, a table, and a line per reason some items could not be replayed.
    """
    out = [
        f"## Replayed: {policy}",
        "",
        "| Arm | Items (exact) | Cut short | Accuracy as run | Accuracy replayed | "
        "Tokens/item as run | Tokens/item replayed | Collapses prevented | "
        "Corrections lost | Replayed − as run (pts) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    if not arms:
        return "\n".join([*out, "", "No debating arm in the rows."]) + "\n"
    notes: list[str] = []
    for arm, r in arms.items():
        out.append(
            f"| {arm} | {r['items']} ({r['exact_items']}) | {r['cut_short']} | "
            f"{_pct(r['accuracy_as_run'])} | {_pct(r['accuracy_replayed'])} | "
            f"{_tokens(r['tokens_per_item_as_run'])} | "
            f"{_tokens(r['tokens_per_item_replayed'])} | {r['collapses_prevented']} | "
            f"{r['corrections_lost']} | {difference_cell(r['paired'])} |"
        )
        notes += [f"- {arm}: {k} item(s) not replayed: {why}" for why, k in r["not_exact"].items()]
        if not r["tokens_known"] and r["exact_items"]:
            notes.append(f"- {arm}: the rows keep no turns, so the replayed tokens are unknown")
    return "\n".join(out + (["", *notes] if notes else [])) + "\n"
