"""Token and communication accounting over turn records (plain mappings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

DETAIL_FIELDS = ("cached_input_tokens", "reasoning_tokens")
"""Parts of a turn's tokens a provider bills apart (prompt-cache reads of the input, hidden
reasoning of the output), recorded only where the provider states them."""


def usage_totals(turns: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Input, output and total tokens, calls, calls whose usage was estimated, cached calls.

    ``cached_calls`` counts the turns replayed from the call cache (``cached``). The
    provider's ``cached_input_tokens`` and ``reasoning_tokens`` are summed over the turns
    that state them, and present only when one does.
    """
    input_tokens = sum(t["input_tokens"] for t in turns)
    output_tokens = sum(t["output_tokens"] for t in turns)
    totals = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "calls": len(turns),
        "estimated_calls": sum(bool(t.get("usage_estimated")) for t in turns),
        "cached_calls": sum(bool(t.get("cached")) for t in turns),
    }
    for field in DETAIL_FIELDS:
        stated = [t[field] for t in turns if t.get(field) is not None]
        if stated:
            totals[field] = sum(stated)
    return totals


def usage_by_source(turns: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Calls, tokens and call latency of the paid calls and of those replayed from the cache.

    Args:
        turns: Turn records.

    Returns:
        ``{"paid": ..., "cached": ...}``, each with ``calls``, ``input_tokens``,
        ``output_tokens``, ``latency_s`` (summed seconds of the calls; a replayed turn keeps
        the paid call's) and the provider's ``cached_input_tokens`` and ``reasoning_tokens``
        where stated; ``cached`` only when a turn was replayed.
    """
    parts = {"paid": [t for t in turns if not t.get("cached")]}
    replayed = [t for t in turns if t.get("cached")]
    if replayed:
        parts["cached"] = replayed
    out: dict[str, dict[str, Any]] = {}
    for source, part in parts.items():
        totals = usage_totals(part)
        entry: dict[str, Any] = {
            k: totals[k]
            for k in ("calls", "input_tokens", "output_tokens", *DETAIL_FIELDS)
            if k in totals
        }
        entry["latency_s"] = round(sum(float(t.get("latency_s") or 0.0) for t in part), 4)
        out[source] = entry
    return out


def usage_by_kind(turns: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Usage totals per call kind (answer, summary, evaluation)."""
    kinds = dict.fromkeys(t["kind"] for t in turns)
    return {k: usage_totals([t for t in turns if t["kind"] == k]) for k in kinds}


def rounds_with_calls(turns: Sequence[Mapping[str, Any]]) -> int:
    """The debate rounds that count: rounds after round 0 in which at least one call was made.

    A round the engine entered but in which nobody spoke (S²-MAD after a unanimous round 0,
    a gate that stops the debate) is not a round of debate; a replayed call counts, as it
    did when it was paid.
    """
    return len({int(t.get("round") or 0) for t in turns} - {0})


def ncomm(turns: Sequence[Mapping[str, Any]]) -> int:
    """Pairwise communications: turns of other speakers delivered to a call, summed over calls.

    A turn a call reads counts once per reading call, whatever the call's kind: an agent
    reading a peer, a summariser reading the turns it summarises, an agent reading a summary,
    an evaluator reading the memory it judges. An agent reading its own earlier turn does not
    count.
    """
    speaker = {t["id"]: t["agent"] for t in turns}
    return sum(1 for t in turns for r in t["reads"] if speaker.get(r) != t["agent"])


def answer_sources(turns: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How the answers of the answer turns were found: ``declared``, ``fallback``, ``none``."""
    counts = {"declared": 0, "fallback": 0, "none": 0}
    for t in turns:
        if t["kind"] == "answer":
            source = t.get("answer_source") or ("none" if t["answer"] is None else "declared")
            counts[source] = counts.get(source, 0) + 1
    return counts


def mean_input_tokens_per_call(turns: Sequence[Mapping[str, Any]]) -> float:
    """Average prompt size of a call (CortexDebate's context-length measure)."""
    return sum(t["input_tokens"] for t in turns) / len(turns) if turns else 0.0
