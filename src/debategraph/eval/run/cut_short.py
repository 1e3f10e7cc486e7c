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

A request still in flight when the debate was cancelled is counted as a request; the
provider may bill it, but the client never sees its usage: the entry states how many such
requests were cut off (``cut_off_requests``) and an estimate of the input tokens they sent
(``estimated_input_tokens``), which the ``interrupted:`` line gives as an estimate and the
bill leaves out.

Each entry also names the debate's attempt and how many of its spend notes it holds
(``attempt``, ``notes``): the notes written ahead as the replies arrived
(:data:`SPEND_NOTES`, kept in ``OUT/spend.jsonl``) count only where no row or entry holds
them, so nothing is counted twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debategraph.eval.log.ledger import TOTALS, append_line, entry, read_ledger, row_spend, totals
from debategraph.eval.log.row import as_row, opt
from debategraph.eval.log.spend import COVERS_KEY, Note, SpendMeter

SPEND_NOTES: ContextVar[Note | None] = ContextVar("debategraph_spend_notes", default=None)
"""Where the current run's meters hand their spend notes (``None``: no notes kept); each note
carries its debate's ``method``, ``id`` and ``seed`` (see :func:`debate_notes`)."""


@dataclass(frozen=True)
class WorkerNotes:
    """Where an executor's workers may write their own spend notes, and who counts them.

    Attributes:
        out_dir: The results directory (its ``spend/`` folder holds the workers' files).
        fsync: Sync every note to disk (``--fsync``).
        seen: Hands a note a worker wrote itself to the run's spend guard (counted, never
            written again), or ``None`` without a guard.
    """

    out_dir: Path
    fsync: bool = False
    seen: Note | None = None


WORKER_NOTES: ContextVar[WorkerNotes | None] = ContextVar("debategraph_worker_notes", default=None)
"""Set by the runner while its executor runs; ``None``: workers hand every note to the driver."""

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
    covers: Mapping[str, Any] | None = None,
    extra: Mapping[str, int] | None = None,
) -> None:
    """Add a debate that wrote no row to ``sink``, if it spent anything.

    Args:
        sink: The run's list of such debates (:data:`CUT_SHORT`'s), or ``None``: nothing kept.
        method: The arm's label.
        item_id: The item's id.
        spend: Its :data:`TOTALS`.
        seed: The debate's seed under ``--seeds`` (recorded when given).
        covers: The attempt and the count of its spend notes that ``spend`` holds.
        extra: Figures kept beside the totals (the cut-off requests and their estimate).
    """
    if sink is None or not any(spend[key] for key in TOTALS):
        return
    debate = entry(method, item_id, spend, seed=seed)
    if covers is not None:
        debate["attempt"], debate["notes"] = str(covers["attempt"]), int(covers["notes"])
    debate.update({k: int(v) for k, v in (extra or {}).items() if v})
    sink.append(debate)


def note_row(sink: list[dict[str, Any]] | None, row: Mapping[str, Any]) -> None:
    """Note the spend of a row that will not be written (and the notes it covers)."""
    covers = row.get(COVERS_KEY)  # the runner's note beside the row's fields
    written = as_row(row)
    note_spend(
        sink,
        written.method,
        written.id,
        row_spend(row),
        seed=opt(written.seed),
        covers=covers if isinstance(covers, Mapping) else None,
    )


def debate_notes(method: str, item_id: str, seed: int | None) -> Note | None:
    """A note-taker for one debate's meter (``None`` when the run keeps no notes).

    It hands each note, with the debate's key, to :data:`SPEND_NOTES`.
    """
    sink = SPEND_NOTES.get()
    if sink is None:
        return None
    key: dict[str, Any] = {"method": method, "id": item_id}
    if seed is not None:
        key["seed"] = seed

    def note(spend: dict[str, Any]) -> None:
        sink({**key, **spend})

    return note


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
    spend, covers = meter.snapshot()
    note_spend(
        CUT_SHORT.get(),
        method,
        item_id,
        spend,
        seed=seed,
        covers=covers if meter.note is not None else None,
        extra=meter.cut_off(),
    )


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
