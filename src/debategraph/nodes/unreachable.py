"""A failed connection turned into an error that names the server and the fix."""

from __future__ import annotations

from typing import Any

from debategraph.errors import ModelUnreachableError
from debategraph.models.resolve import server_url
from debategraph.policies.failures import reply_cut_off
from debategraph.policies.retry import status_of

__all__ = ["ModelUnreachableError", "unreachable"]


def unreachable(exc: BaseException, model: Any) -> ModelUnreachableError | None:
    """``exc`` as a :class:`ModelUnreachableError` when it is a failed connection, else ``None``.

    A connection that was refused or could not be made has no HTTP status; a timeout is not
    one (the server may be busy).
    """
    names = {cls.__name__ for cls in type(exc).__mro__}
    if status_of(exc) is not None or any("Timeout" in name for name in names):
        return None
    if reply_cut_off(exc):  # the server answered: reachable, its reply broken
        return None
    if not (names & {"APIConnectionError", "ConnectError"} or isinstance(exc, ConnectionError)):
        return None
    where = server_url(model)
    return ModelUnreachableError(
        f"could not reach the model server{f' at {where}' if where else ''} "
        f"({type(exc).__name__}: {' '.join(str(exc).split())}): start it, or fix the URL "
        "(--base-url; base_url in Python and in a Studio context)"
    )
