"""LangSmith tracing that cannot reach its endpoint is turned off before the debates, once.

With ``LANGSMITH_TRACING=true`` and no route to LangSmith (offline, a wrong
``LANGSMITH_ENDPOINT``), LangSmith's client would retry every batch of traces in the
background and, when the debates are done, hold the process at exit while it retries the
rest, printing a connection error with a request dump per batch. :func:`check_tracing`
asks the endpoint once, with a short timeout, before any debate: where nothing answers, it
turns tracing off for this process and the processes it starts, and says so in one line.

Tracing that is off stays off: without a tracing variable set to ``true`` nothing is asked
and nothing of LangSmith is imported.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, cast

TRACING_VARIABLES = (
    "LANGSMITH_TRACING_V2",
    "LANGSMITH_TRACING",
    "LANGCHAIN_TRACING_V2",
    "LANGCHAIN_TRACING",
)
"""The environment variables that turn LangSmith tracing on."""

PROBE_TIMEOUT_S = 3.0
"""How long the endpoint has to answer (connect, then reply)."""


def check_tracing(warn: Callable[[str], None], timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether LangSmith tracing is on and its endpoint answers; turn it off where it does not.

    Any HTTP answer (even an error status) counts as reachable: the key and the project are
    LangSmith's to judge. Only a failure to connect or a timeout turns tracing off.

    Args:
        warn: Called once with the warning line when tracing is turned off.
        timeout: Seconds to connect, and seconds for the answer.

    Returns:
        ``True`` when tracing stays on, ``False`` when it was off or is now off.
    """
    if not any(os.environ.get(v, "").strip().lower() == "true" for v in TRACING_VARIABLES):
        return False
    from langsmith.utils import get_api_url, tracing_is_enabled

    if not tracing_is_enabled():
        return False
    url = get_api_url(None)
    problem = _unreachable(url, timeout)
    if problem is None:
        return True
    turn_tracing_off()
    from debategraph.policies.secrets import Redactor

    shown = Redactor.from_environment(urls=[url])(url)
    warn(
        f"LangSmith tracing is on but {shown} does not answer ({problem}): tracing is off for "
        "this run (unset LANGSMITH_TRACING, or set LANGSMITH_ENDPOINT to a LangSmith that "
        "answers)"
    )
    return False


def turn_tracing_off() -> None:
    """Turn LangSmith tracing off here and in every process started from now on."""
    import langsmith
    from langsmith.utils import get_env_var

    for name in TRACING_VARIABLES:
        if name in os.environ:
            os.environ[name] = "false"
    cast(Any, get_env_var).cache_clear()  # LangSmith caches what it read of the environment
    langsmith.configure(enabled=False)


def _unreachable(url: str, timeout: float) -> str | None:
    """Why ``url`` cannot be reached, or ``None`` when it answers."""
    import requests

    try:
        requests.get(f"{url}/info", timeout=(timeout, timeout)).close()
    except requests.Timeout:
        return f"no answer in {timeout:g} s"
    except requests.ConnectionError as exc:
        return "connection refused" if "refused" in str(exc).lower() else "cannot connect"
    except requests.RequestException as exc:
        return type(exc).__name__
    return None
