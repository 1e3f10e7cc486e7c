"""The secrets a model object carries, so that what a reply echoes of them can be redacted.

A model passed as an object (``ChatOpenAI(api_key=..., default_headers={"X-Api-Key": ...})``)
holds credentials that are in no environment variable: its key fields, the credential
headers it sends (``default_headers``, ``extra_headers`` in ``model_kwargs`` or bound call
arguments) and the passwords of its URLs (base URL, proxy). Objects are read by their
attributes, so no provider package is imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from debategraph.policies.secrets import header_secrets, url_secrets

_URL_FIELDS = ("openai_api_base", "base_url", "openai_proxy", "azure_endpoint", "api_base")
_HEADER_KEYS = ("extra_headers", "headers", "default_headers")
_MAX_DEPTH = 6


def model_secrets(values: Iterable[Any]) -> list[str]:
    """Every secret held by the model objects in ``values`` (settings, rosters, models).

    Strings (model specs) hold none; mappings and sequences are searched, as are an
    :class:`~debategraph.models.roster.Agent`'s model and a bound runnable's model.

    Args:
        values: Arm settings' values, agents, models.

    Returns:
        The secret values found (possibly repeated).
    """
    found: list[str] = []
    for value in values:
        _collect(value, found, _MAX_DEPTH)
    return found


def _collect(value: Any, found: list[str], depth: int) -> None:
    if depth <= 0 or value is None or isinstance(value, str | bytes | int | float):
        return
    if isinstance(value, Mapping):
        for item in value.values():
            _collect(item, found, depth - 1)
        return
    if isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _collect(item, found, depth - 1)
        return
    found += _object_secrets(value)
    for inner in ("model", "bound"):  # an Agent's model, a RunnableBinding's runnable
        held = getattr(value, inner, None)
        if held is not None and not isinstance(held, str):
            _collect(held, found, depth - 1)


def _object_secrets(obj: Any) -> list[str]:
    found: list[str] = []
    fields = getattr(type(obj), "model_fields", None)
    if isinstance(fields, Mapping):  # a pydantic model: its secret fields
        for name in fields:
            held = getattr(obj, name, None)
            reveal = getattr(held, "get_secret_value", None)
            if callable(reveal):
                secret = reveal()
                if isinstance(secret, str) and secret:
                    found.append(secret)
    for name in _URL_FIELDS:
        url = getattr(obj, name, None)
        if isinstance(url, str) and "@" in url:
            found += url_secrets(url)
    for holder in (obj, getattr(obj, "model_kwargs", None), getattr(obj, "kwargs", None)):
        for key in _HEADER_KEYS:
            headers = _get(holder, key)
            if isinstance(headers, Mapping):
                found += header_secrets(headers)
    return found


def _get(holder: Any, key: str) -> Any:
    if isinstance(holder, Mapping):
        return holder.get(key)
    return getattr(holder, key, None) if holder is not None else None
