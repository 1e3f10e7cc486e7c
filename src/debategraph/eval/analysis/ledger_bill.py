"""The ledger's spend on the methods' bills: tokens that left the rows, paid but not kept.

The debates an interruption cut short and the failed rows a resume ran again left their
spend in the ledger (:mod:`debategraph.eval.log.ledger`), not in ``results.jsonl``, and the
spend notes written ahead hold what no row or entry does (a run killed, replies that came
after their debate's row). Their
tokens were paid all the same, so ``debategraph report`` and ``eval``'s closing table add
them to their method's bill as paid, not kept (and to its cost, requests and wasted
tokens); the tokens of the rows plus those added are every token the provider reported.

What no record can hold is said apart, as an estimate: requests sent whose reply never
reached the run (on the wire when it was killed, cut off in flight), with an estimate of
their input tokens; the provider may have billed them, and their output is not known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from typing import Any

from debategraph.eval.analysis.metrics import MethodSummary
from debategraph.eval.analysis.summary_fields import ratio
from debategraph.eval.log.bill import bill_cost
from debategraph.eval.log.files import INTERRUPTED_FILE, SPEND_NOTES_FILE
from debategraph.eval.log.ledger import BILLED_KINDS, UNANSWERED, totals

Ledger = Mapping[str, Sequence[Mapping[str, Any]]]
"""The ledger's entries by kind, as :func:`~debategraph.eval.log.ledger.read_ledger` reads them."""


def add_entry(
    summary: MutableMapping[str, Any],
    debate: Mapping[str, Any],
    kind: str,
) -> None:
    """Add one ledger entry's spend to a method's summary (its cost is not updated)."""
    inputs, outputs = int(debate["input_tokens"]), int(debate["output_tokens"])
    bill = summary["bill"]
    bill["unkept_input_tokens"] += inputs
    bill["unkept_output_tokens"] += outputs
    summary["wasted_tokens"] += inputs + outputs
    if kind == "retried":
        summary["failed_item_tokens"] += inputs + outputs
    summary["requests"] = (summary["requests"] or 0) + int(debate["requests"])
    summary["failed_requests"] += int(debate["failed_requests"])


def reprice(summary: MutableMapping[str, Any], prices: Mapping[str, float] | None) -> None:
    """Set a summary's cost and cost per item from its bill again."""
    cost = bill_cost(summary["bill"], prices)
    summary["cost"] = cost
    summary["cost_per_item"] = None if cost is None else ratio(cost, summary["n"])


def fold_ledger(
    tables: Iterable[Mapping[str, MethodSummary]],
    ledger: Ledger,
    prices: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Add the ledger's entries to the bills of their methods, in place.

    An entry goes to the first table (a report's group) that summarizes its method; an
    entry whose method has no row anywhere is counted in no table.

    Args:
        tables: Method -> summary, one mapping per group.
        ledger: The entries by kind.
        prices: As for :func:`~debategraph.eval.log.bill.bill_cost` (the cost is recomputed).

    Returns:
        The totals of each kind (``cut_short``, ``retried``, ``noted``) and of the entries
        counted in no table (``unplaced``); where there are any, under ``unanswered``
        (added to no bill), the requests with no reply on record and their
        ``input_estimate``.
    """
    tables = list(tables)
    touched: dict[int, MutableMapping[str, Any]] = {}
    unplaced: list[Mapping[str, Any]] = []
    for kind in BILLED_KINDS:
        for debate in ledger.get(kind, ()):
            table = next((t for t in tables if debate.get("method") in t), None)
            if table is None:
                unplaced.append(debate)
                continue
            summary: MutableMapping[str, Any] = table[debate["method"]]  # type: ignore[assignment]
            add_entry(summary, debate, kind)
            touched[id(summary)] = summary
    for summary in touched.values():
        reprice(summary, prices)
    folded: dict[str, Any] = {kind: totals(ledger.get(kind, ())) for kind in BILLED_KINDS}
    folded["unplaced"] = totals(unplaced)
    unanswered = ledger.get(UNANSWERED, ())
    if unanswered:
        folded[UNANSWERED] = {
            "requests": sum(int(d["requests"]) for d in unanswered),
            "input_estimate": sum(int(d["input_estimate"]) for d in unanswered),
        }
    return folded


def unanswered_words(folded: Mapping[str, Any]) -> str:
    """One sentence on the requests whose reply no record holds (empty when none).

    Args:
        folded: What :func:`fold_ledger` returned.
    """
    unanswered = folded.get(UNANSWERED) or {}
    count = int(unanswered.get("requests") or 0)
    if not count:
        return ""
    return (
        f"Not on the bill: {count:,} request(s) sent whose reply reached no record (on the "
        "wire when a run was killed, or cut off in flight); their input was about "
        f"{int(unanswered['input_estimate']):,} tokens (an estimate, counted in no figure "
        "above); what the provider billed for them, and their output, are not known here."
    )


def ledger_words(folded: Mapping[str, Any]) -> str:
    """One sentence on what the ledger added to the bills (empty when it holds nothing).

    Args:
        folded: What :func:`fold_ledger` returned.
    """
    cut, retried = folded["cut_short"], folded["retried"]
    noted = folded.get("noted") or totals(())
    if not cut["debates"] and not retried["debates"] and not noted["debates"]:
        return unanswered_words(folded)
    parts = []
    if retried["debates"]:
        parts.append(f"{retried['debates']} failed row(s) run again")
    if cut["debates"]:
        parts.append(f"{cut['debates']} debate(s) cut short")
    if noted["debates"]:
        parts.append(f"{noted['debates']} debate(s) whose spend no row holds")
    both = {
        k: cut[k] + retried[k] + noted[k] for k in ("input_tokens", "output_tokens", "requests")
    }
    files = (
        f"{INTERRUPTED_FILE} keeps"
        if not noted["debates"]
        else f"{INTERRUPTED_FILE} and {SPEND_NOTES_FILE} keep"
    )
    text = (
        f"{files} the spend of {' and '.join(parts)}: {both['input_tokens']:,} "
        f"input and {both['output_tokens']:,} output tokens in {both['requests']:,} requests, "
        "counted in the bill as paid, not kept"
    )
    unplaced = folded["unplaced"]
    if unplaced["debates"]:
        text += (
            f" ({unplaced['input_tokens']:,} input and {unplaced['output_tokens']:,} output "
            f"tokens of them belong to {unplaced['debates']} debate(s) of methods with no row, "
            "in no table)"
        )
    return " ".join(filter(None, [text + ".", unanswered_words(folded)]))
