"""LangSmith tracing that cannot work is turned off before the debates, once, with one line.

With ``LANGSMITH_TRACING=true`` and no route to LangSmith (offline, a wrong
``LANGSMITH_ENDPOINT``), LangSmith's client would retry every batch of traces in the
background and, when the debates are done, hold the process at exit while it retries the
rest, printing a connection error with a request dump per batch. A LangSmith that refuses
the key (401, 403) or fails (5xx) gets the same multi-line warning per batch, with the
server's answer. :func:`check_tracing` asks the endpoint once, with a short timeout and the
key tracing would send, before any debate: where nothing answers, the key is refused or the
server fails, it turns tracing off for this process and the processes it starts, and says
so in one line. Where tracing stays on, LangSmith's later complaints (a key revoked during
the run, a server that starts failing) are said in one line too
(:mod:`debategraph.langsmith_trouble`).

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

PROBE_PATH = "/sessions"
"""What the check asks for (one tracing project): an endpoint that wants the key."""


def check_tracing(warn: Callable[[str], None], timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether LangSmith tracing is on and takes the key; turn it off where it does not.

    The endpoint is asked for one tracing project, with the key and workspace tracing sends.
    A failure to connect, a timeout, a refused key (401, 403) or a server error (5xx) turns
    tracing off; any other answer (even a 404) leaves it on, and LangSmith's later
    complaints are then said once, in one line, through ``warn``
    (:func:`debategraph.langsmith_trouble.quiet_langsmith_logs`).

    Args:
        warn: Called with each warning line: once when tracing is turned off.
        timeout: Seconds to connect, and seconds for the answer.

    Returns:
        ``True`` when tracing stays on, ``False`` when it was off or is now off.
    """
    if not any(os.environ.get(v, "").strip().lower() == "true" for v in TRACING_VARIABLES):
        return False
    from langsmith.utils import get_api_key, get_api_url, get_workspace_id, tracing_is_enabled

    from debategraph.langsmith_trouble import (
        Trouble,
        plain_url,
        quiet_langsmith_logs,
        trouble_line,
    )

    if not tracing_is_enabled():
        return False
    url = get_api_url(None)
    key = get_api_key(None)
    answer = _ask(url, key, get_workspace_id(None), timeout)
    if isinstance(answer, int) and answer not in (401, 403) and answer < 500:
        quiet_langsmith_logs(warn, "runs are not traced", url, key_set=key is not None)
        return True
    turn_tracing_off()
    if isinstance(answer, int):
        trouble = Trouble(answer, plain_url(url.rstrip("/") + PROBE_PATH))
        warn(trouble_line(trouble, "tracing is off for this run", key_set=key is not None))
        return False
    from debategraph.policies.secrets import Redactor

    shown = Redactor.from_environment(urls=[url])(url)
    warn(
        f"LangSmith tracing is on but {shown} does not answer ({answer}): tracing is off for "
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


def _ask(url: str, key: str | None, workspace: str | None, timeout: float) -> int | str:
    """The HTTP status of LangSmith's answer, or why ``url`` cannot be reached."""
    import requests

    headers = {"Accept": "application/json"}
    if key is not None:
        headers["x-api-key"] = key
    if workspace is not None:
        headers["X-Tenant-Id"] = workspace
    try:
        with requests.get(
            url.rstrip("/") + PROBE_PATH,
            params={"limit": "1"},
            headers=headers,
            timeout=(timeout, timeout),
            allow_redirects=False,
        ) as response:
            return response.status_code
    except requests.Timeout:
        return f"no answer in {timeout:g} s"
    except requests.ConnectionError as exc:
        return "connection refused" if "refused" in str(exc).lower() else "cannot connect"
    except requests.RequestException as exc:
        return type(exc).__name__
