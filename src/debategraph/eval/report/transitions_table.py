"""The report's "Why did debate help or hurt?" section: each debating arm's transitions."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from debategraph.eval.analysis.transitions import LEDGER
from debategraph.eval.report.cells import number_cell


def _pct(value: float) -> str:
    return number_cell(value, ".1f", 100)


def rate_cell(rate: Mapping[str, Any]) -> str:
    """``12.5% [8.1, 18.7] (5/40)``: a rate, its 95% interval in percent, and its counts."""
    if not rate["n"]:
        return "— (0/0)"
    low, high = rate["interval"]
    return f"{_pct(rate['rate'])}% [{_pct(low)}, {_pct(high)}] ({rate['k']}/{rate['n']})"


def difference_cell(diff: Mapping[str, Any]) -> str:
    """``+6.5 [+3.8, +10.8] p < 0.001``: a paired difference in points, its interval and p."""
    if not diff["n"] or math.isnan(diff["difference"]):
        return "—"
    low, high = diff["interval"]
    p = diff["p_value"]
    words = "p < 0.001" if p < 0.001 else f"p = {p:.3f}"
    return f"{100 * diff['difference']:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}] {words}"


def _by_peer(arm: str, name: str, by_peer: Mapping[str, Any]) -> list[str]:
    if not by_peer:
        return []
    lines = ["", f"{name} of **{arm}** by the peer read:", "", "| Peer read | Rate |",
             "|---|---|"]  # fmt: skip
    lines += [f"| {peer} | {rate_cell(r)} |" for peer, r in by_peer.items()]
    return lines


def transitions_section(transitions: Mapping[str, Mapping[str, Any]]) -> str:
    """The section's Markdown, or ``""`` when no arm debated.

    Args:
        transitions: Arm -> transitions, as
            :func:`debategraph.eval.analysis.transitions.transitions_by_arm` gives them.
    """
    if not transitions:
        return ""
    out = [
        "## Why did debate help or hurt?",
        "",
        "Per item, the majority of round 0 against the majority of the last round (first-seen "
        "tie-break): preserved (right, right), collapse (right, wrong), correction (wrong, "
        "right), unrepaired (wrong, wrong). *Net* is corrections less collapses in points "
        "of all items, with Tango's paired 95% interval and the exact McNemar p-value. "
        "*Onset* counts the collapses by the round whose majority first went wrong. The "
        "oracle gap is the share of items whose right answer some agent gave in some round, "
        "less the share the arm's final answer got right. Conformity: of the answers given "
        "after reading peers whose most common answer differed from the reader's own, the "
        "share that took it; vulnerability: of the answers of agents right the round before "
        "that read peers, the share that went wrong. Rates carry 95% Wilson intervals. "
        "See docs/evaluation.md.",
        "",
        "| Arm | Items | " + " | ".join(k.capitalize() for k in LEDGER) + " | Net (pts) | "
        "Collapse rate | Correction rate | Onset (round: items) |",
        "|---|---:|" + "---:|" * len(LEDGER) + "---|---|---|---|",
    ]
    for arm, t in transitions.items():
        onset = ", ".join(f"{k}: {v}" for k, v in t["collapse_onset"].items()) or "—"
        if t["broke_and_recovered"]:
            onset += f" (and {t['broke_and_recovered']} broke and recovered)"
        counts = " | ".join(str(t["ledger"][k]) for k in LEDGER)
        out.append(
            f"| {arm} | {t['items']} | {counts} | {difference_cell(t['net'])} | "
            f"{rate_cell(t['collapse_rate'])} | {rate_cell(t['correction_rate'])} | {onset} |"
        )
    out += [
        "",
        "| Arm | Right answer in the pool | Final answer right | Oracle gap (pts) | "
        "Conformity | Vulnerability | Who read whom |",
        "|---|---|---|---|---|---|---|",
    ]
    for arm, t in transitions.items():
        oracle = t["oracle"]
        known = t["reads_known"]
        reads = (
            "the turns' reads"
            if known == t["items"]
            else f"the turns' reads on {known} of {t['items']} items, else every peer"
            if known
            else "not kept: every peer's previous answer assumed"
        )
        out.append(
            f"| {arm} | {rate_cell(oracle['pool_accuracy'])} | "
            f"{rate_cell(oracle['final_accuracy'])} | {difference_cell(oracle['gap'])} | "
            f"{rate_cell(t['conformity'])} | {rate_cell(t['vulnerability'])} | {reads} |"
        )
    for arm, t in transitions.items():
        out += _by_peer(arm, "Conformity", t["conformity"]["by_peer"])
        out += _by_peer(arm, "Vulnerability", t["vulnerability"]["by_peer"])
    return "\n".join(out) + "\n"
