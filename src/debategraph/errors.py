"""debategraph's exceptions: one base, and a subclass for each kind of thing to fix.

Every error debategraph raises on purpose derives from :class:`DebategraphError`, so an
application can catch them all in one clause; each says in one line what to change.

* :class:`ConfigurationError` (also a ``ValueError``): bad settings, an unknown method, rule
  or model, a broken plugin, a sweep file that cannot be read. Raised before any model call.
* :class:`PlanError` (also a ``RuntimeError``): a method's hooks asked for something the
  engine cannot run (a bug in the method, not in the settings).
* :class:`ModelError` (also a ``RuntimeError``): a model could not be reached or gave no
  usable reply within its attempts.
* :class:`DataError` (also a ``ValueError``): a dataset file, or stored results, that cannot
  be used as they are.

This module imports nothing from the package, so every layer may raise these.
"""

from __future__ import annotations


class DebategraphError(Exception):
    """Base of every error debategraph raises on purpose."""


class ConfigurationError(DebategraphError, ValueError):
    """Settings that cannot run, caught before any model call; the message says what to fix."""


class PlanError(DebategraphError, RuntimeError):
    """A method's hooks asked for something the engine cannot run (a bug in the method)."""


class ModelError(DebategraphError, RuntimeError):
    """A model could not be reached, or gave no usable reply within its attempts."""


class DataError(DebategraphError, ValueError):
    """A dataset or stored results that cannot be used; the message names the file and line."""


class ModelUnreachableError(ModelError):
    """The model server could not be reached: it is down, or the URL is wrong.

    Its message names the server and the fix; the failure it wraps is its ``__cause__``, so
    the retry policy still retries it as the connection failure it is.
    """


class CallGaveUpError(ModelError):
    """A model call ran out of time for its attempts; never retried.

    Its message names the server, the attempts made, the time spent and the time the server's
    throttling (``Retry-After``) took; the last failure is its ``__cause__``.
    """


class NoConnectionError(CallGaveUpError):
    """No connection to a model server could be made in the attempts such a call gets.

    The server refused the connection, its host name did not resolve, or no route led to it,
    on every attempt (at most ``debategraph.policies.retry.REFUSED_ATTEMPTS``); never retried.
    The message names the server and the fix; the last failure is its ``__cause__``.

    Attributes:
        url: The server's URL (credentials removed), if known.
        reason: What the connection attempt met, e.g. ``[Errno 111] Connection refused``.
    """

    def __init__(self, message: str, *, url: str | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.url = url
        self.reason = reason

    def __reduce__(self) -> tuple[object, ...]:  # pickled across processes (Ray workers)
        return (_no_connection, (str(self), self.url, self.reason))


def _no_connection(message: str, url: str | None, reason: str) -> NoConnectionError:
    return NoConnectionError(message, url=url, reason=reason)


class UnusableReplyError(ModelError):
    """A model reply arrived but cannot be used (no choices, empty content); retried."""


__all__ = [
    "CallGaveUpError",
    "ConfigurationError",
    "DataError",
    "DebategraphError",
    "ModelError",
    "ModelUnreachableError",
    "NoConnectionError",
    "PlanError",
    "UnusableReplyError",
]
