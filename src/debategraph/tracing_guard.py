"""LangSmith tracing that cannot work is turned off before the debates, once, with one line.

With ``LANGSMITH_TRACING=true`` and no route to LangSmith (offline, a wrong
``LANGSMITH_ENDPOINT``), LangSmith's client would retry every batch of traces in the
background and, when the debates are done, hold the process at exit while it retries the
rest, printing a connection error with a request dump per batch. A LangSmith that refuses
the key (401, 403) or fails (5xx) gets the same multi-line warning per batch, with the
server's answer. :func:`check_tracing` asks the endpoint once, with a short timeout and the
key tracing would send, before any debate: where nothing answers, the key is refused (401)
or cannot be sent (a character no HTTP header carries), or the server fails, it turns
tracing off for this process and the processes it starts, and says so in one line. Where
tracing stays on, LangSmith's later complaints (a key revoked during the run, a server that
starts failing) are said in one line too (:mod:`debategraph.langsmith_trouble`), in the
driver and, through :func:`quiet_tracing_logs`, in the processes that trace on their own
(Ray workers).

The check reads one tracing project (``GET /sessions``): LangSmith has no documented
request that tests the key for what tracing needs (creating runs) and writes nothing. A key
that may create runs but not read projects (a custom role) gets 403 there although tracing
would work, so a 403 leaves tracing on, says why it may be so, and LangSmith's refusal of
the traces themselves, if it comes, is said once.

Tracing that is off stays off: without a tracing variable set to ``true`` nothing is asked
and nothing of LangSmith is imported.
"""

from __future__ import annotations

import os
import sys
import unicodedata
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

CONSEQUENCE = "runs are not traced"
"""What LangSmith's refusals during a traced run mean for it."""


def tracing_asked() -> bool:
    """Whether a tracing variable is set to ``true`` (nothing of LangSmith imported)."""
    return any(os.environ.get(v, "").strip().lower() == "true" for v in TRACING_VARIABLES)


def check_tracing(warn: Callable[[str], None], timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether LangSmith tracing is on and takes the key; turn it off where it does not.

    The endpoint is asked for one tracing project, with the key and workspace tracing sends.
    A key or workspace id that no HTTP header can carry, a failure to connect, a timeout, a
    refused key (401) or a server error (5xx) turns tracing off; any other answer (even a
    404) leaves it on, and LangSmith's later complaints are then said once, in one line,
    through ``warn`` (:func:`debategraph.langsmith_trouble.quiet_langsmith_logs`). A 403
    leaves it on with a line: the key may lack only the permission to read projects.

    Args:
        warn: Called with each warning line: once when tracing is turned off.
        timeout: Seconds to connect, and seconds for the answer.

    Returns:
        ``True`` when tracing stays on, ``False`` when it was off or is now off.
    """
    if not tracing_asked():
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
    workspace = get_workspace_id(None)
    unsendable = unsendable_setting({"API_KEY": key, "WORKSPACE_ID": workspace})
    if unsendable is not None:
        turn_tracing_off()
        warn(f"{unsendable}; tracing is off for this run")
        return False
    answer = _ask(url, key, workspace, timeout)
    if isinstance(answer, int) and answer != 401 and answer < 500:
        quiet_langsmith_logs(warn, CONSEQUENCE, url, key_set=key is not None)
        if answer == 403:
            warn(_may_lack_read(plain_url(url.rstrip("/") + PROBE_PATH)))
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


def quiet_tracing_logs(warn: Callable[[str], None] | None = None) -> bool:
    """Say LangSmith's complaints in one line here, where tracing is on (no check is made).

    For a process that traces on its own, such as a Ray worker: the driver checked the
    endpoint, and this process's tracing follows its own environment.

    Args:
        warn: Called with each line; by default ``warning: LINE`` on stderr.

    Returns:
        Whether tracing is on here (and the handler installed).
    """
    if not tracing_asked():
        return False
    from langsmith.utils import get_api_key, get_api_url, tracing_is_enabled

    from debategraph.langsmith_trouble import quiet_langsmith_logs

    if not tracing_is_enabled():
        return False
    say = warn if warn is not None else _to_stderr
    url = get_api_url(None)
    quiet_langsmith_logs(say, CONSEQUENCE, url, key_set=get_api_key(None) is not None)
    return True


def flush_traces(timeout: float) -> bool:
    """Send the traces LangSmith's client still holds here, waiting at most about ``timeout`` s.

    LangSmith's client sends traces in batches from a background thread; a process let go
    (a Ray worker at the end of a run) before it sends the last batch loses those traces.

    Args:
        timeout: Seconds to wait for the batches to be sent (LangSmith bounds the wait, not
            the hand-over of what it still buffers).

    Returns:
        Whether tracing is on here (and the traces were flushed); where it is off, nothing of
        LangSmith is imported.
    """
    if not tracing_asked():
        return False
    from langsmith.run_trees import get_cached_client
    from langsmith.utils import tracing_is_enabled

    if not tracing_is_enabled():
        return False
    get_cached_client().flush(timeout=max(0.0, timeout))
    return True


def _to_stderr(line: str) -> None:
    print(f"warning: {line}", file=sys.stderr, flush=True)


def _may_lack_read(url: str) -> str:
    return (
        f"LangSmith refused to list tracing projects at {url} (403): the key may lack only "
        "the permission to read projects, which tracing does not need; or it is a key of "
        "several workspaces (set LANGSMITH_WORKSPACE_ID); tracing stays on, and a refusal "
        "of the traces is said once"
    )


def unsendable_setting(values: dict[str, str | None]) -> str | None:
    """The line that names a LangSmith setting holding a character no HTTP header carries.

    Args:
        values: Settings by name without their prefix (``"API_KEY"``), ``None`` for unset.

    Returns:
        The line (the variable, the character and its place, never the value), or ``None``
        where every value can be sent.
    """
    for name, value in values.items():
        if value is None:
            continue
        for place, char in enumerate(value, 1):
            if _header_safe(char):
                continue
            variable = _variable(name)
            what = f"U+{ord(char):04X} {unicodedata.name(char, 'a control character')}"
            return (
                f"{variable} holds a character an HTTP header cannot carry: {what} at "
                f"character {place} of {len(value)} (pasted with the value?); set "
                f"{variable} again, copied from LangSmith"
            )
    return None


def _header_safe(char: str) -> bool:
    """Whether an HTTP header value can hold ``char`` (latin-1, no control character)."""
    code = ord(char)
    return char == "\t" or 0x20 <= code < 0x7F or 0xA0 <= code <= 0xFF


def _variable(name: str) -> str:
    """The environment variable LangSmith read ``name`` from (LANGSMITH_ before LANGCHAIN_)."""
    for prefix in ("LANGSMITH_", "LANGCHAIN_"):
        if os.environ.get(prefix + name, "").strip():
            return prefix + name
    return "LANGSMITH_" + name


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
