"""The one retry layer of model calls: LangGraph's ``RetryPolicy`` on every call node."""

from __future__ import annotations

from langgraph.types import RetryPolicy

from debategraph.policies.retry import is_transient

MODEL_RETRY = RetryPolicy(
    max_attempts=3,
    initial_interval=1.0,
    backoff_factor=2.0,
    max_interval=30.0,
    retry_on=is_transient,
)
"""Three attempts per call, 1 s then 2 s apart (with jitter); transient failures only."""
