"""What a method's rows cost on the provider's invoice: every paid request, none replayed.

Two caches meet here and must not be confused:

* the **call cache** (``--cache``): a call it replays made no request and costs nothing in
  this run (its turn is marked ``cached``; the row counts it in ``cached_calls`` and keeps its
  tokens under ``usage_by_source.cached``);
* the **provider's prompt cache**: a paid call whose prompt began like an earlier one may have
  some of its input tokens served from the provider's cache (``cached_input_tokens``, a part
  of ``input_tokens``), billed at the provider's cached-input price.

The bill of a set of rows counts the paid calls' tokens, and beside them the tokens that were
paid but not kept: retried and rejected replies, the sample a ``--match-budget tokens`` arm
draws to price one of its samples, and everything a failed row spent (a row's
``wasted_input_tokens``/``wasted_output_tokens``). The cost prices the kept input tokens at
the input price except the provider-cached ones, which take the cached-input price (the input
price when none is given), the unkept input tokens at the input price (rows do not say which
of them the provider cached), and all output tokens (reasoning included) at the output price,
so it is what the provider invoices. A call replayed from the call cache made no request and
adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from msgspec import UNSET

from debategraph.eval.log.row import Row, as_row, opt

RowLike = Row[Any] | Mapping[str, Any]

NAN = float("nan")


class Bill(TypedDict):
    """The paid and the replayed part of some rows' calls.

    Attributes:
        paid_calls: Calls that made a request (retries aside: see ``requests``).
        cached_calls: Calls replayed from the call cache (no request, nothing billed).
        input_tokens: Input tokens of the paid calls.
        output_tokens: Output tokens of the paid calls.
        cached_input_tokens: Of ``input_tokens``, those the provider served from its prompt
            cache; ``None`` when no row states them.
        reasoning_tokens: Of ``output_tokens``, the hidden reasoning; ``None`` when no row
            states them.
        cached_call_tokens: Input and output tokens of the replayed calls (paid by the run
            that stored them, not again).
        unkept_input_tokens: Input tokens paid but not kept: retries, rejected replies,
            pricing samples and failed rows.
        unkept_output_tokens: Output tokens paid but not kept, likewise.
        latency_s_per_call: Mean latency of a paid call; NaN when unknown.
        cached_latency_s: Seconds the replayed calls took when they were paid (this run
            spent none of them on the model).
    """

    paid_calls: int
    cached_calls: int
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int | None
    reasoning_tokens: int | None
    cached_call_tokens: int
    unkept_input_tokens: int
    unkept_output_tokens: int
    latency_s_per_call: float
    cached_latency_s: float


def row_parts(row: RowLike) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """A row's paid and replayed usage (a row without ``usage_by_source`` was all paid).

    Raises:
        RowError: ``row`` is a JSON object that is no well-typed row.
    """
    typed = as_row(row)
    split = _split(typed)
    if split is not None:
        return split
    paid: dict[str, Any] = {
        "calls": opt(typed.calls),
        "input_tokens": opt(typed.input_tokens),
        "output_tokens": opt(typed.output_tokens),
    }
    if typed.cached_input_tokens is not UNSET:
        paid["cached_input_tokens"] = typed.cached_input_tokens
    if typed.reasoning_tokens is not UNSET:
        paid["reasoning_tokens"] = typed.reasoning_tokens
    return paid, {}


def _split(row: Row[Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
    """The row's ``usage_by_source`` as (paid, replayed), where it records the paid part."""
    split = row.usage_by_source
    if split is UNSET or not isinstance(split.get("paid"), Mapping):
        return None
    cached = split.get("cached")
    return split["paid"], cached if isinstance(cached, Mapping) else {}


class BillTally:
    """A bill built one row at a time (what :func:`bill_of` adds up, in one pass)."""

    def __init__(self) -> None:
        self.paid_calls = self.cached_calls = self.input_tokens = self.output_tokens = 0
        self.cached_tokens = self.unkept_input = self.unkept_output = 0
        self.stated: dict[str, int] = {}
        self.latency, self.timed_calls, self.cached_latency = 0.0, 0, 0.0

    def add(self, row: Row[Any]) -> None:
        """Add one row (a failed row adds only what it paid)."""
        self.unkept_input += row.wasted_input_tokens or 0
        self.unkept_output += row.wasted_output_tokens or 0
        if row.error is not UNSET:
            return
        split = _split(row)
        if split is None:  # all paid, no latency recorded
            self.paid_calls += row.calls or 0
            self.input_tokens += row.input_tokens or 0
            self.output_tokens += row.output_tokens or 0
            for field, value in (
                ("cached_input_tokens", row.cached_input_tokens),
                ("reasoning_tokens", row.reasoning_tokens),
            ):
                if value is not UNSET:
                    self.stated[field] = self.stated.get(field, 0) + value
            return
        paid, cached = split
        calls = int(paid.get("calls") or 0)
        self.paid_calls += calls
        self.input_tokens += int(paid.get("input_tokens") or 0)
        self.output_tokens += int(paid.get("output_tokens") or 0)
        for field in ("cached_input_tokens", "reasoning_tokens"):
            stated = paid.get(field)
            if stated is not None:
                self.stated[field] = self.stated.get(field, 0) + int(stated or 0)
        latency = paid.get("latency_s")
        if latency is not None:
            self.latency += float(latency)
            self.timed_calls += calls
        if cached:
            self.cached_calls += int(cached.get("calls") or 0)
            self.cached_tokens += int(cached.get("input_tokens") or 0) + int(
                cached.get("output_tokens") or 0
            )
            self.cached_latency += float(cached.get("latency_s") or 0.0)

    def bill(self) -> Bill:
        """The bill of the rows added so far."""
        return Bill(
            paid_calls=self.paid_calls,
            cached_calls=self.cached_calls,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cached_input_tokens=self.stated.get("cached_input_tokens"),
            reasoning_tokens=self.stated.get("reasoning_tokens"),
            cached_call_tokens=self.cached_tokens,
            unkept_input_tokens=self.unkept_input,
            unkept_output_tokens=self.unkept_output,
            latency_s_per_call=self.latency / self.timed_calls if self.timed_calls else NAN,
            cached_latency_s=round(self.cached_latency, 4),
        )


def bill_of(rows: Iterable[RowLike]) -> Bill:
    """The bill of rows (see the module docstring).

    Args:
        rows: Result rows, failed ones included: they add only what they paid.

    Returns:
        The bill.
    """
    tally = BillTally()
    for row in rows:
        tally.add(as_row(row))
    return tally.bill()


def bill_cost(bill: Bill, prices: Mapping[str, float] | None) -> float | None:
    """The bill in dollars, paid-but-unkept tokens included (see the module docstring).

    ``(input - cached + unkept_in) · in + cached · cached_in + (output + unkept_out) · out``.

    Args:
        bill: The bill.
        prices: ``{"input": $ per token, "output": $ per token}``, and optionally
            ``"cached_input"`` ($ per provider-cached input token; the input price without
            it); ``None`` for no cost.

    Returns:
        The cost, or ``None`` without prices.

    Raises:
        ValueError: ``prices`` lacks ``input`` or ``output``.
    """
    if prices is None:
        return None
    if not {"input", "output"} <= set(prices):
        raise ValueError(f"prices needs 'input' and 'output' ($ per token), got {dict(prices)}")
    cached = bill["cached_input_tokens"] or 0
    cached_price = prices.get("cached_input", prices["input"])
    return (
        (bill["input_tokens"] - cached + bill["unkept_input_tokens"]) * prices["input"]
        + cached * cached_price
        + (bill["output_tokens"] + bill["unkept_output_tokens"]) * prices["output"]
    )
