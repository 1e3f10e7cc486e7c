"""What the integrations share: settings checked up front, and a debate's compact outcome."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debategraph.api import DebateConfigError, Prepared, prepare, settings_record
from debategraph.models.resolve import Models, model_key, model_label
from debategraph.result import DebateResult

RUN_ONLY = frozenset(
    {"config", "call_limiter", "parser", "normalize", "retry_policy", "max_attempts",
     "retry_backoff", "cache"}
)  # fmt: skip
"""Settings of ``arun`` that are no part of the debate's context (how it runs, not what)."""

PER_QUESTION = frozenset({"question", "task", "choices", "reference", "item_id"})
"""What each question brings; a target or solver built for many questions refuses them."""


def checked(method: str | Any, settings: Mapping[str, Any]) -> Prepared:
    """The debate ``method`` with ``settings``, checked before any question is asked.

    Raises:
        DebateConfigError: A per-question key among the settings, or bad settings.
    """
    per_question = sorted(PER_QUESTION & settings.keys())
    if per_question:
        raise DebateConfigError(
            f"{', '.join(per_question)} come(s) with each question, not with the settings: "
            "drop them here (the question, its task and choices are read from each example)"
        )
    return prepare(method=method, **{k: v for k, v in settings.items() if k not in RUN_ONLY})


def describe(prepared: Prepared) -> dict[str, Any]:
    """The JSON-safe record of a checked debate: method, agents, their models, seed, settings."""
    from debategraph import __version__

    method, ctx = prepared.method, prepared.context
    books = Models(prepared.roster, ctx, single_model=method.single_model)
    speakers = [*prepared.names, *method.roles]
    record = settings_record(method, ctx, [model_key(books.spec_of(s)) for s in speakers])
    return {
        "debategraph_method": method.name,
        "debategraph_version": __version__,
        "agents": prepared.names,
        **record,
        "models": [model_label(books.model(a)) for a in prepared.names],
    }


def outcome(result: DebateResult) -> dict[str, Any]:
    """A debate's answer and what it took, compact and JSON-safe (no turn texts)."""
    return {
        "answer": result.answer,
        "abstained": result.answer is None,
        "task": result.task,
        "decision": result.decision,
        "rounds": result.rounds,
        "usage": result.usage,
        "ncomm": result.ncomm,
    }
