"""Budget matching: how many answers a voting arm draws to spend what a debate spent.

A budget-matched arm (``sc@du``, ``sc@du~tokens``, ``mav@du``) is sized on every item from the
row its base arm wrote for that item: one sample per model call (``calls``), or as many
samples as the base's tokens buy (``tokens``; GroupDebate's comparisons are at equal tokens),
a sample priced by drawing one on the item first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from debategraph.eval.log.row import Row
from debategraph.state.context import MAX_AGENTS

Budget = Literal["calls", "tokens"]
"""What a budget-matched arm matches: model calls, or total tokens."""


class PricedTurn(msgspec.Struct, kw_only=True, gc=False):
    """What pricing reads of a stored turn: its round, kind and tokens (no text)."""

    round: int | None = None
    kind: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


TURN_FIELDS = tuple(PricedTurn.__struct_fields__)
"""What pricing reads of a stored turn: its round, kind and tokens (no text)."""


class BudgetBase(msgspec.Struct, kw_only=True, gc=False):
    """What :func:`budget_samples` reads of a base arm's row, and nothing more.

    The runner keeps this, not the row, for the arms that others are matched to: a few
    numbers per item, which also travel cheaply to a Ray worker.

    Attributes:
        method: The base arm's label.
        calls: Its model calls on the item.
        input_tokens: Its prompt tokens.
        output_tokens: Its reply tokens.
        turns: Its round-0 answer turns (what prices a sample).
    """

    method: str | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    turns: list[PricedTurn] = msgspec.field(default_factory=list)


def round0_answers(row: Row[Any]) -> list[PricedTurn]:
    """A row's round-0 answer turns (lone answers to the question, which price a sample)."""
    return [
        PricedTurn(round=0, kind="answer", input_tokens=t.input_tokens or 0,
                   output_tokens=t.output_tokens or 0)
        for t in row.turns or ()
        if t.round == 0 and t.kind == "answer"
    ]  # fmt: skip


def budget_digest(row: Row[Any] | Mapping[str, Any]) -> BudgetBase:
    """What :func:`budget_samples` reads of a base arm's row (see :class:`BudgetBase`)."""
    if not isinstance(row, Row):
        return msgspec.convert(row, BudgetBase, str_keys=True)
    return BudgetBase(
        method=row.method,
        calls=row.calls or 0,
        input_tokens=row.input_tokens or 0,
        output_tokens=row.output_tokens or 0,
        turns=round0_answers(row),
    )


def budget_samples(
    budget: Budget, base: BudgetBase | Row[Any] | Mapping[str, Any], per_sample: float | None = None
) -> int:
    """How many answers a budget-matched arm draws on an item, from its base arm's row.

    ``calls``: one per model call of the base. ``tokens``: the base's total tokens divided by
    what one sample costs, rounded, at least 1. The runner measures that price
    (``per_sample``: the tokens of one sample drawn on the item, see
    :func:`debategraph.eval.run.executors.local.ItemRunner.debate`), since a method's own round 0
    may cost more than a sample (a system prompt, a request for a confidence) or less;
    without it, the price is the mean tokens (input and output) of the base's own round-0
    answer calls.

    Args:
        budget: What is matched.
        base: The base arm's row, its digest (:func:`budget_digest`), or the JSON object of
            either.
        per_sample: The measured price of one sample, in tokens.

    Raises:
        ValueError: ``tokens`` and the base row keeps no round-0 answer turns (and no
            ``per_sample`` is given).
    """
    if not isinstance(base, BudgetBase):
        base = budget_digest(base)
    if budget == "calls":
        return max(1, base.calls)
    total = base.input_tokens + base.output_tokens
    if per_sample is not None:
        return max(1, round(total / per_sample)) if per_sample > 0 else 1
    first = [t for t in base.turns if t.round == 0 and t.kind == "answer"]
    if not first:
        raise ValueError(f"{base.method}'s row keeps no round-0 answers to price a sample by")
    price: float = sum((t.input_tokens or 0) + (t.output_tokens or 0) for t in first)
    price /= len(first)
    return max(1, round(total / price)) if price else 1


def budget_settings(
    budget: Budget,
    settings: Mapping[str, Any],
    base: BudgetBase | Row[Any] | Mapping[str, Any],
    per_sample: float | None = None,
) -> dict[str, Any]:
    """A budget-matched arm's settings on one item: its size and, for ``mav``, its models.

    ``per_sample`` is the measured price of one sample in tokens (see :func:`budget_samples`).
    """
    k = budget_samples(budget, base, per_sample)
    sized = {**settings, "agents": k}
    if k > MAX_AGENTS:  # the budget, not the user, asks for that many samples
        sized["allow_large"] = True
    models = settings.get("models")
    if isinstance(models, list) and len(models) > 1:
        sized["models"] = [models[i % len(models)] for i in range(k)]
    return sized
