"""Token and communication accounting over turn records (plain mappings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def usage_totals(turns: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Input, output and total tokens, calls, and calls whose usage was estimated."""
    input_tokens = sum(t["input_tokens"] for t in turns)
    output_tokens = sum(t["output_tokens"] for t in turns)
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "calls": len(turns),
        "estimated_calls": sum(bool(t["usage_estimated"]) for t in turns),
    }


def usage_by_kind(turns: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Usage totals per call kind (answer, summary, evaluation)."""
    kinds = dict.fromkeys(t["kind"] for t in turns)
    return {k: usage_totals([t for t in turns if t["kind"] == k]) for k in kinds}


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
