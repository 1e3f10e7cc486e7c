"""What the debates an interruption cut short had spent: kept beside the rows, never in them.

A debate that Ctrl-C (or a failure elsewhere in the run) cancels writes no row: resume runs
it again from the start, so a partial row would break the one row per (method, item) that
resume guarantees. Its requests were made all the same. When such a debate is cancelled its
spend meter is read and noted in :data:`CUT_SHORT`; the runner appends one ``cut_short``
line per interrupted run to the ledger ``OUT/interrupted.jsonl``
(:mod:`debategraph.eval.log.ledger`, which also keeps the spend of the failed rows a resume
drops), and ``debategraph eval`` names the totals in its ``interrupted:`` line. So the
tokens of the rows (used and wasted) plus those of the ledger are every token the provider
reported.

On Ray workers a cancelled debate notes its spend in its worker's own list, and a worker's
unit cancelled after some of its debates finished notes their rows' spend too (the rows never
reached the driver); the driver collects these lists from the workers before it lets them go
(:mod:`debategraph.eval.run.executors.ray`).

Not counted: a request still in flight when the debate was cancelled (the provider may bill
it; the client never sees its usage), and a Ray worker that did not answer within
:data:`~debategraph.eval.run.executors.ray.SETTLE_S` once the run was cut short (killed, or its
node lost: its process, and the meters in it, are gone).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from debategraph.eval.log.ledger import TOTALS, append_line, entry, read_ledger, totals
from debategraph.eval.log.spend import SpendMeter

CUT_SHORT: ContextVar[list[dict[str, Any]] | None] = ContextVar(
    "debategraph_cut_short", default=None
)
"""The spend of the debates cut short in the current run (``None`` outside a run)."""


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
    if sink is None or not any(spend[key] for key in TOTALS):
        return
    sink.append(entry(method, item_id, spend, seed=seed))


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


def log_cut_short(out_dir: Path, debates: list[dict[str, Any]]) -> dict[str, Any]:
    """Append one interrupted run's ``cut_short`` line to the ledger; returns the line.

    The line holds the time, the totals and every cut-short debate.
    """
    return append_line(out_dir, "cut_short", debates)


def read_cut_short(out_dir: Path) -> dict[str, int]:
    """The totals over every debate cut short in ``out_dir``'s runs (zeros when none).

    A line that is not whole JSON (a crash while it was written) is skipped.
    """
    return totals(read_ledger(out_dir)["cut_short"])
