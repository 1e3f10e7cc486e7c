"""The one retry layer of model calls: LangGraph's ``RetryPolicy`` on every call node.

Transient failures only (``policies.retry.is_transient``: connection errors, timeouts,
408/409/429/5xx, unusable replies); 400/401/403/404 are never retried. Waits grow from
``backoff`` seconds, doubling, with jitter, capped at 30 s; a server's ``Retry-After`` is
waited for first (capped at 30 s). Whatever the policy still allows, a call gives up
:data:`~debategraph.nodes.patience.GIVE_UP_S` (240) seconds after its first attempt began,
waits included (see :mod:`debategraph.nodes.patience`): with the defaults (6 attempts of at
most 120 s, 1 s backoff) a hung server is reported after 240 s, not after six timeouts.
"""

from __future__ import annotations

import math
from functools import lru_cache

from langgraph.types import RetryPolicy

from debategraph.policies.retry import is_transient
from debategraph.state.context import DebateConfigError

DEFAULT_ATTEMPTS = 6
"""Attempts per call by default: at a 20% rate of transient failures, a 180-call evaluation
loses a call with probability about 1% (0.2**6 per call)."""

DEFAULT_BACKOFF_S = 1.0
"""The first wait between attempts, in seconds (then 2, 4, 8, 16, capped at 30)."""

MAX_INTERVAL_S = 30.0


@lru_cache(maxsize=64)
def model_retry(
    max_attempts: int = DEFAULT_ATTEMPTS, backoff: float = DEFAULT_BACKOFF_S
) -> RetryPolicy:
    """The retry policy of model calls (one object per setting, so compiled graphs are shared).

    Args:
        max_attempts: Attempts per call, the first included (1: no retry).
        backoff: The first wait between attempts, in seconds.

    Raises:
        DebateConfigError: ``max_attempts`` below 1 or above 20, or a negative or infinite
            ``backoff``.
    """
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int):
        raise DebateConfigError(f"max_attempts must be an integer, got {max_attempts!r}")
    if not 1 <= max_attempts <= 20:
        raise DebateConfigError(f"max_attempts must be 1 to 20, got {max_attempts}")
    if isinstance(backoff, bool) or not isinstance(backoff, int | float):
        raise DebateConfigError(f"retry backoff must be a number of seconds, got {backoff!r}")
    if not (math.isfinite(backoff) and backoff >= 0):
        raise DebateConfigError(f"retry backoff must be 0 or more seconds, got {backoff}")
    return RetryPolicy(
        max_attempts=max_attempts,
        initial_interval=float(backoff),
        backoff_factor=2.0,
        max_interval=MAX_INTERVAL_S,
        jitter=True,
        retry_on=is_transient,
    )


MODEL_RETRY = model_retry()
"""The default policy: six attempts, 1 s, 2 s, 4 s, 8 s, 16 s apart (with jitter)."""
