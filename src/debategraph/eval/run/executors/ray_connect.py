"""Connecting one evaluation to Ray: without Ray's start-up chatter, and with its token.

* A local cluster started for a run: Ray's usage reports are off (unless the user chose),
  and Ray's notice that it turned token authentication on (its default for a new cluster)
  is left out, so that a run prints its progress and its table and nothing else.
* Joining a cluster (``--address``): ``ray start --head`` turns token authentication on,
  and ``ray.init`` presents this machine's token only to a cluster it finds itself
  (``address="auto"``). Where ``RAY_AUTH_MODE`` is not set and this machine has a token
  (``RAY_AUTH_TOKEN``, the file ``RAY_AUTH_TOKEN_PATH`` names, or ``~/.ray/auth_token``), the
  driver presents it to the cluster named as well; ``RAY_AUTH_MODE=disabled`` keeps it
  back. A refusal ends in one line that says what to fix (Ray's own C++ client prints its
  retries first: its log level cannot be set from here without a line of its own).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
from collections.abc import Iterator
from types import ModuleType

from debategraph.policies.retry import exception_chain

AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"
"""The logger of Ray's notices about token authentication."""

ENABLED_NOTICE = "Token authentication is enabled"
"""How Ray's notice that it turned token authentication on begins (left out)."""


class _DropEnabledNotice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(ENABLED_NOTICE)


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    """``name=value`` in this process's environment meanwhile, unless the user set it."""
    if name in os.environ:
        yield
        return
    os.environ[name] = value
    try:
        yield
    finally:
        os.environ.pop(name, None)


@contextlib.contextmanager
def _quiet_auth() -> Iterator[None]:
    notices = logging.getLogger(AUTH_LOGGER)
    drop = _DropEnabledNotice()
    notices.addFilter(drop)
    try:
        yield
    finally:
        notices.removeFilter(drop)


def start_local(ray: ModuleType, cpus: int, **options: object) -> None:
    """``ray.init`` of a local cluster for this run, without Ray's start-up notices."""
    with _env("RAY_USAGE_STATS_ENABLED", "0"), _quiet_auth():
        ray.init(address="local", num_cpus=cpus, **options)


def join(ray: ModuleType, address: str, **options: object) -> None:
    """``ray.init`` joining the cluster at ``address`` (see the module docs).

    Raises:
        ConnectionError: The cluster cannot be joined; :func:`join_error` words it.
    """
    with _quiet_auth():
        if address != "auto" and "RAY_AUTH_MODE" not in os.environ:
            _present_token_if_any()
        ray.init(address=address, **options)


def _present_token_if_any() -> None:
    try:  # Ray's own step for address="auto"; where a Ray release moves it, Ray's default
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def join_error(address: str, exc: BaseException) -> str:
    """One line saying why the cluster at ``address`` could not be joined, and what to do."""
    chain = list(itertools.islice(exception_chain(exc), 5))
    if any("Authentication" in type(e).__name__ or "InvalidAuthToken" in str(e) for e in chain):
        return (
            f"cannot join the Ray cluster at {address}: it refused this machine's Ray token, "
            "or this machine has none: put the cluster's token (`ray get-auth-token` on its "
            "head prints it) in ~/.ray/auth_token or RAY_AUTH_TOKEN, and leave RAY_AUTH_MODE "
            "unset or 'token'"
        )
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return (
        f"cannot join the Ray cluster at {address}: {reason} (start one with "
        "`ray start --head`, or leave --address out for a local one)"
    )
