"""The report's bill section: paid calls beside calls replayed from the cache, per method."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from debategraph.eval.analysis.metrics import MethodSummary
from debategraph.eval.log.bill import Bill
from debategraph.eval.report.cells import number_cell

BILL_NOTE = (
    "Paid calls made a request; cached calls were replayed from the call cache (--cache) and "
    "cost nothing in this run (their tokens were paid by the run that stored them). Input "
    "tokens include those the provider served from its prompt cache, which --prices "
    "IN,OUT,CACHED prices at CACHED; output tokens include reasoning tokens. Paid, not kept: "
    "tokens of retried or rejected replies, of the sample a --match-budget tokens arm draws "
    "to price its samples (its first sample replays it: one cached call per item, paid "
    "once), and of failed items; the cost counts them (unkept input at the input price). "
    "— = the provider did not say."
)


def shows_bill(summaries: Mapping[str, MethodSummary]) -> bool:
    """Whether some method replayed calls, paid unkept tokens or was told cached/reasoning ones."""
    return any(
        s["bill"]["cached_calls"]
        or s["bill"]["cached_input_tokens"] is not None
        or s["bill"]["reasoning_tokens"] is not None
        or s["bill"]["unkept_input_tokens"]
        or s["bill"]["unkept_output_tokens"]
        for s in summaries.values()
    )


def bill_table(summaries: Mapping[str, MethodSummary], *, with_cost: bool = False) -> str:
    """Markdown table of each method's bill (see :class:`debategraph.eval.log.bill.Bill`).

    Args:
        summaries: Method -> summary.
        with_cost: Whether to add the total cost of the paid calls.

    Returns:
        The table.
    """
    header = ["Method", "Paid calls", "Cached calls", "Paid input tok", "of which cached",
              "Paid output tok", "of which reasoning", "Paid, not kept in tok",
              "Paid, not kept out tok", "Replayed tok", "Paid s/call"]  # fmt: skip
    if with_cost:
        header.append("Cost $")
    body: list[list[str]] = []
    for s in summaries.values():
        bill: Bill = s["bill"]
        cells = [
            s["method"],
            f"{bill['paid_calls']:,}",
            f"{bill['cached_calls']:,}",
            f"{bill['input_tokens']:,}",
            number_cell(bill["cached_input_tokens"], ","),
            f"{bill['output_tokens']:,}",
            number_cell(bill["reasoning_tokens"], ","),
            f"{bill['unkept_input_tokens']:,}",
            f"{bill['unkept_output_tokens']:,}",
            f"{bill['cached_call_tokens']:,}",
            number_cell(bill["latency_s_per_call"], ".2f"),
        ]
        if with_cost:
            cost = s["cost"]
            cells.append(number_cell(cost, ".5f"))
        body.append(cells)
    lines: list[Sequence[Any]] = [header, ["---"] + ["---:"] * (len(header) - 1), *body]
    return "\n".join("| " + " | ".join(map(str, cells)) + " |" for cells in lines)


def bill_section(groups: Sequence[Any], *, with_cost: bool = False) -> list[str]:
    """The report's lines for the bill, one table per group; none when there is nothing to say.

    Args:
        groups: The report's groups (each with ``title`` and ``summaries``).
        with_cost: Whether tables get the cost column.
    """
    shown = [g for g in groups if shows_bill(g.summaries)]
    if not shown:
        return []
    out = ["", "## The provider's bill", "", BILL_NOTE]
    for group in shown:
        out += ["", f"{group.title}:", "", bill_table(group.summaries, with_cost=with_cost)]
    return out
