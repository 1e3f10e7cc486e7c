"""Keeping credentials out of everything debategraph writes or prints.

Every configured secret value is redacted by exact match, whatever its shape: the values of
environment variables whose names say they hold one (``OPENAI_API_KEY``, ``*_TOKEN``,
``*_SECRET``, ...), the password of a URL in any environment variable (``HTTPS_PROXY`` with
``user:password@``, with or without a scheme), the values of credential headers set in the
environment (``*_HEADERS`` such as ``OTEL_EXPORTER_OTLP_HEADERS``) or on a model
(``default_headers``; see :func:`header_secrets`), and the user name and password of any
configured URL. Known key shapes
(``sk-...``, ``Bearer ...``, ``Basic ...``, ``user:pass@`` in URLs, ``api_key=...``) are
redacted as well, for
keys that were never configured here (a server echoing another key).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

REDACTED = "[redacted]"
"""What a secret is replaced with."""

MIN_SECRET_LENGTH = 6
"""Shorter configured values are not treated as secrets (they would redact ordinary words)."""

_SECRET_NAME_RE = re.compile(
    r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|ACCESS_?KEY)", re.IGNORECASE
)
_SHAPES_RE = re.compile(
    r"sk-[A-Za-z0-9_\-]{6,}"
    r"|(?i:bearer)\s+(?!\[redacted\])[^\s\"',;\\]+"
    r"|(?i:basic)\s+[A-Za-z0-9+/]{8,}={0,2}"
    r"|(?i:api[_-]?key|token|secret|password|authorization)(?P<sep>\"?\s*[=:]\s*\"?)"
    r"(?!\[redacted\])(?:(?i:basic|bearer|digest|token)\s+)?[^\s\"',;\\]+"
    r"|(?<=//)[^/\s:@\\]+:[^/\s@\\]+(?=@)"
)
_CONFIGURED: set[str] = set()
_CONFIGURED_LOCK = threading.Lock()
_NOT_SECRETS = frozenset({"not-needed", "local", "none", "null", "dummy"})
_PROXY_NAME_RE = re.compile(r"PROXY$", re.IGNORECASE)
_HEADERS_NAME_RE = re.compile(r"HEADERS?$", re.IGNORECASE)
_HEADER_NAME_RE = re.compile(
    r"AUTH|KEY|TOKEN|SECRET|PASS|COOKIE|CREDENTIAL|SESSION|SIGNATURE", re.IGNORECASE
)


def redact_url(url: str) -> str:
    """``url`` without the user name and password it may carry."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return _SHAPES_RE.sub(REDACTED, url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return parts._replace(netloc=host).geturl()


def url_secrets(url: str) -> list[str]:
    """The user name and password a URL carries (raw and percent-decoded)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = []
    for value in (parts.username, parts.password):
        if value:
            found += [value, unquote(value)]
    return found


def header_secrets(headers: Mapping[Any, Any]) -> list[str]:
    """The values of the credential headers among ``headers`` (``Authorization``, ``X-Api-Key``).

    A header is taken for a credential when its name says so (auth, key, token, secret,
    password, cookie, session, signature); an ``Authorization: Bearer T`` value gives
    ``T`` as well as the whole value.
    """
    found: list[str] = []
    for name, value in headers.items():
        if not isinstance(value, str) or not _HEADER_NAME_RE.search(str(name)):
            continue
        found.append(value.strip())
        scheme, _, token = value.strip().partition(" ")
        if token.strip() and scheme.isalpha():
            found.append(token.strip())
    return found


def parse_headers(text: str) -> dict[str, str]:
    """Headers written in a setting: a JSON object, ``Name: value`` lines, or ``k=v,k2=v2``."""
    text = text.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, Mapping):
            return {str(k): str(v) for k, v in data.items()}
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1 or (lines and ":" in lines[0] and "=" not in lines[0].partition(":")[0]):
        pairs = [line.partition(":") for line in lines]
    else:
        pairs = [pair.partition("=") for pair in text.split(",")]
    return {unquote(k.strip()): unquote(v.strip()) for k, sep, v in pairs if sep and k.strip()}


def remember_secrets(values: Iterable[str]) -> None:
    """Add secrets configured in this process (a base URL's password, a model object's key).

    Every later :meth:`Redactor.from_environment` redacts them too, so that what is written
    far from where a secret was configured (the call cache, a worker's rows) keeps none.
    """
    with _CONFIGURED_LOCK:
        _CONFIGURED.update(v for v in values if isinstance(v, str) and v)


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Secret values of the environment.

    The values of variables whose names say they hold a secret, the password of a URL in
    any variable (a proxy's ``user:password@host`` without a scheme too), and the values of
    the credential headers of ``*_HEADERS`` variables.
    """
    env = os.environ if environ is None else environ
    found: list[str] = []
    for name, value in env.items():
        if not value:
            continue
        if _SECRET_NAME_RE.search(name):
            found.append(value)
        if "@" in value:
            url = value if "://" in value or not _PROXY_NAME_RE.search(name) else f"//{value}"
            found += _url_passwords(url)
        if _HEADERS_NAME_RE.search(name):
            found += header_secrets(parse_headers(value))
    return found


def _url_passwords(text: str) -> list[str]:
    """The passwords of the URLs in ``text`` (raw and percent-decoded)."""
    found = []
    for url in text.split(","):
        try:
            password = urlsplit(url.strip()).password
        except ValueError:
            continue
        if password:
            found += [password, unquote(password)]
    return found


class Redactor:
    """Replaces every known secret value, and every key-shaped string, with ``[redacted]``.

    Args:
        values: Secret values to redact by exact match (shorter than ``MIN_SECRET_LENGTH``
            and placeholder values such as ``not-needed`` are ignored).
    """

    def __init__(self, values: Iterable[str] = ()) -> None:
        wanted = {
            v
            for v in values
            if isinstance(v, str) and len(v) >= MIN_SECRET_LENGTH and v.lower() not in _NOT_SECRETS
        }
        # Also the JSON-escaped form, so a secret inside serialised JSON is found as well.
        wanted |= {json.dumps(v)[1:-1] for v in list(wanted)}
        ordered = sorted(wanted, key=len, reverse=True)
        # Case-insensitive: a lower-cased key (e.g. in a normalised answer) is still a leak.
        self._exact = (
            re.compile("|".join(map(re.escape, ordered)), re.IGNORECASE) if ordered else None
        )

    @classmethod
    def from_environment(
        cls,
        environ: Mapping[str, str] | None = None,
        urls: Iterable[str | None] = (),
        values: Iterable[str] = (),
    ) -> Redactor:
        """A redactor for the secrets of the environment, of ``urls`` and ``values``.

        Secrets configured in this process (see :func:`remember_secrets`) are redacted too.
        """
        with _CONFIGURED_LOCK:
            configured = list(_CONFIGURED)
        values = [*environment_secrets(environ), *configured, *values]
        for url in urls:
            if url:
                values += url_secrets(url)
        return cls(values)

    def holds_secret(self, text: str) -> bool:
        """Whether ``text`` contains a configured secret value (key shapes aside)."""
        return self._exact is not None and self._exact.search(text) is not None

    def __call__(self, text: str) -> str:
        """``text`` with every secret replaced."""
        if self._exact is not None:
            text = self._exact.sub(REDACTED, text)
        return _SHAPES_RE.sub(_shape, text)

    def value(self, obj: object) -> object:
        """A JSON-like value with every string in it redacted (dict keys included)."""
        if isinstance(obj, str):
            return self(obj)
        if isinstance(obj, Mapping):
            return {self(str(k)): self.value(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return [self.value(v) for v in obj]
        return obj


def _shape(match: re.Match[str]) -> str:
    sep = match.group("sep")
    if sep is None:
        return REDACTED
    keyword = match.group(0)[: match.start("sep") - match.start()]
    return f"{keyword}{sep}{REDACTED}"


def redact(text: str, *, urls: Iterable[str | None] = ()) -> str:
    """``text`` with the secrets of the current environment (and of ``urls``) redacted."""
    return Redactor.from_environment(urls=urls)(text)
