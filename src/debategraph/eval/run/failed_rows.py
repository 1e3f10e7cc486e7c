"""What the failed rows of an evaluation call for: running again, or fixing the settings.

A row whose debate failed with a settings or method error (a :class:`ConfigurationError` or a
:class:`PlanError`) fails the same way on every run, so the advice to run the command again
is given only for the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from debategraph.errors import ConfigurationError, PlanError
from debategraph.eval.log.row import Row, opt


def _class_names(base: type[BaseException]) -> set[str]:
    names = {base.__name__}
    for sub in base.__subclasses__():
        names |= _class_names(sub)
    return names


def lasting_failures(rows: Iterable[Row[Any] | Mapping[str, Any]]) -> int:
    """How many failed rows failed with an error that running again would meet again."""
    lasting = _class_names(ConfigurationError) | _class_names(PlanError)
    count = 0
    for row in rows:
        error = opt(row.error) if isinstance(row, Row) else _error_of(row)
        if error is not None and error.partition(":")[0].strip() in lasting:
            count += 1
    return count


class _Failure(msgspec.Struct):
    """What :func:`lasting_failures` reads of a row's JSON object."""

    error: Any = None


def _error_of(row: Mapping[str, Any]) -> str | None:
    error = msgspec.convert(row, _Failure, str_keys=True).error
    return error if isinstance(error, str) else None


def failure_advice(failed: int, lasting: int) -> str:
    """The one line ``eval`` ends with when ``failed`` rows failed, ``lasting`` of them for good."""
    if lasting == 0:
        return (
            f"{failed} item(s) failed (see their 'error' field); run the same command again "
            "to retry them"
        )
    if lasting == failed:
        return (
            f"{failed} item(s) failed with a settings or method error (see their 'error' "
            "field): fix it, since running the same command again would fail the same way"
        )
    return (
        f"{failed} item(s) failed (see their 'error' field); {lasting} with a settings or "
        "method error, which running again would meet again: fix it, then run the same "
        f"command again to retry all {failed}"
    )
