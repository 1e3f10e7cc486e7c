"""Budget matching: how many answers a voting arm draws to spend what a debate spent.

A budget-matched arm (``sc@du``, ``sc@du~tokens``, ``mav@du``) is sized on every item from the
row its base arm wrote for that item: one sample per model call (``calls``), or as many
samples as the base's tokens buy (``tokens``; GroupDebate's comparisons are at equal tokens),
a sample priced by drawing one on the item first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from debategraph.state.context import MAX_AGENTS

Budget = Literal["calls", "tokens"]
"""What a budget-matched arm matches: model calls, or total tokens."""


TURN_FIELDS = ("round", "kind", "input_tokens", "output_tokens")
"""What pricing reads of a stored turn: its round, kind and tokens (no text)."""


def round0_answers(row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A row's round-0 answer turns: lone answers to the question, which price a sample."""
    turns = row.get("turns") or ()
    return [t for t in turns if t.get("round") == 0 and t.get("kind") == "answer"]


def budget_samples(budget: Budget, base: Mapping[str, Any], per_sample: float | None = None) -> int:
    """How many answers a budget-matched arm draws on an item, from its base arm's row.

    ``calls``: one per model call of the base. ``tokens``: the base's total tokens divided by
    what one sample costs, rounded, at least 1. The runner measures that price
    (``per_sample``: the tokens of one sample drawn on the item, see
    :func:`debategraph.eval.run.executors.local.ItemRunner.debate`), since a method's own round 0
    may cost more than a sample (a system prompt, a request for a confidence) or less;
    without it, the price is the mean tokens (input and output) of the base's own round-0
    answer calls.

    Raises:
        ValueError: ``tokens`` and the base row keeps no round-0 answer turns (and no
            ``per_sample`` is given).
    """
    if budget == "calls":
        return max(1, int(base["calls"]))
    total = (base.get("input_tokens") or 0) + (base.get("output_tokens") or 0)
    if per_sample is not None:
        return max(1, round(total / per_sample)) if per_sample > 0 else 1
    first = round0_answers(base)
    if not first:
        raise ValueError(
            f"{base.get('method')}'s row keeps no round-0 answers to price a sample by"
        )
    price = sum((t.get("input_tokens") or 0) + (t.get("output_tokens") or 0) for t in first)
    price /= len(first)
    return max(1, round(total / price)) if price else 1


def budget_digest(row: Mapping[str, Any]) -> dict[str, Any]:
    """What :func:`budget_samples` reads of a base arm's row, and nothing more.

    The runner keeps this, not the row, for the arms that others are matched to: a few
    numbers per item, which also travel cheaply to a Ray worker.
    """
    first = [{k: t.get(k) for k in TURN_FIELDS} for t in round0_answers(row)]
    kept = ("method", "calls", "input_tokens", "output_tokens")
    return {**{k: row[k] for k in kept if k in row}, "turns": first}


def budget_settings(
    budget: Budget,
    settings: Mapping[str, Any],
    base: Mapping[str, Any],
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
