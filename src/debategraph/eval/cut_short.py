"""What the debates an interruption cut short had spent: kept beside the rows, never in them.

A debate that Ctrl-C (or a failure elsewhere in the run) cancels writes no row: resume runs
it again from the start, so a partial row would break the one row per (method, item) that
resume guarantees. Its requests were made all the same. When such a debate is cancelled its
spend meter is read and noted in :data:`CUT_SHORT`; the runner appends one line per
interrupted run to ``OUT/interrupted.jsonl``, and ``debategraph eval`` names the totals in
its ``interrupted:`` line. So the tokens of the rows (used and wasted) plus those of
``interrupted.jsonl`` are every token the provider reported.

Not counted: a request still in flight when the debate was cancelled (the provider may bill
it; the client never sees its usage), and debates on Ray workers (their process is stopped
with the run).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from debategraph.eval.spend import SpendMeter

INTERRUPTED_FILE = "interrupted.jsonl"
"""Name of the log of interrupted runs inside a results directory."""

CUT_SHORT: ContextVar[list[dict[str, Any]] | None] = ContextVar(
    "debategraph_cut_short", default=None
)
"""The spend of the debates cut short in the current run (``None`` outside a run)."""

TOTALS = ("input_tokens", "output_tokens", "requests", "failed_requests")
"""The figures summed over the cut-short debates."""


def note_spend(
    sink: list[dict[str, Any]] | None,
    method: object,
    item_id: object,
    spend: Mapping[str, int],
    *,
    seed: int | None = None,
) -> None:
    """Add a debate that wrote no row to ``sink``, if it spent anything.

    Args:
        sink: The run's list of such debates (:data:`CUT_SHORT`'s), or ``None``: nothing kept.
        method: The arm's label.
        item_id: The item's id.
        spend: Its :data:`TOTALS`.
        seed: The debate's seed under ``--seeds`` (recorded when given).
    """
    if sink is None or not any(spend.values()):
        return
    debate: dict[str, Any] = {"method": method, "id": item_id}
    if seed is not None:
        debate["seed"] = seed
    sink.append({**debate, **{key: spend[key] for key in TOTALS}})


def note_cut_short(
    method: str, item_id: str, meter: SpendMeter, *, seed: int | None = None
) -> None:
    """Record what a cancelled debate had spent, if it made any request.

    Args:
        method: The arm's label.
        item_id: The item's id.
        meter: The debate's spend meter.
        seed: The debate's seed under ``--seeds`` (recorded when given).
    """
    spend = {
        "input_tokens": meter.input_tokens,
        "output_tokens": meter.output_tokens,
        "requests": meter.requests,
        "failed_requests": meter.failed,
    }
    note_spend(CUT_SHORT.get(), method, item_id, spend, seed=seed)


def totals(debates: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The sums of :data:`TOTALS` over cut-short debates, and their count as ``debates``."""
    sums = dict.fromkeys(TOTALS, 0)
    count = 0
    for debate in debates:
        count += 1
        for name in TOTALS:
            sums[name] += int(debate[name])
    return {"debates": count, **sums}


def log_cut_short(out_dir: Path, debates: list[dict[str, Any]]) -> dict[str, Any]:
    """Append one interrupted run's line to ``out_dir/interrupted.jsonl``; returns the line.

    The line holds the time, the totals and every cut-short debate.
    """
    line = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **totals(debates)}
    line["cut_short"] = debates
    with open(out_dir / INTERRUPTED_FILE, "a", encoding="utf-8") as log:
        log.write(json.dumps(line) + "\n")
    return line


def read_cut_short(out_dir: Path) -> dict[str, int]:
    """The totals over every interrupted run logged in ``out_dir`` (zeros when none).

    A line that is not whole JSON (a crash while it was written) is skipped.
    """
    runs: list[dict[str, Any]] = []
    try:
        text = (out_dir / INTERRUPTED_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    for raw in text.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict):
            runs.extend(d for d in line.get("cut_short", ()) if isinstance(d, dict))
    return totals(runs)
