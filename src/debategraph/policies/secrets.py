"""Keeping credentials out of everything debategraph writes or prints.

Every configured secret value is redacted by exact match, whatever its shape: the values of
environment variables whose names say they hold one (``OPENAI_API_KEY``, ``*_TOKEN``,
``*_SECRET``, ...) and the user name and password of any configured URL. Known key shapes
(``sk-...``, ``Bearer ...``, ``Basic ...``, ``user:pass@`` in URLs, ``api_key=...``) are
redacted as well, for
keys that were never configured here (a server echoing another key).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
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
    r"(?!\[redacted\])[^\s\"',;\\]+"
    r"|(?<=//)[^/\s:@\\]+:[^/\s@\\]+(?=@)"
)
_NOT_SECRETS = frozenset({"not-needed", "local", "none", "null", "dummy"})


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


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names say they hold a secret."""
    env = os.environ if environ is None else environ
    return [value for name, value in env.items() if _SECRET_NAME_RE.search(name) and value]


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
        cls, environ: Mapping[str, str] | None = None, urls: Iterable[str | None] = ()
    ) -> Redactor:
        """A redactor for the secrets of the environment and of ``urls``."""
        values = environment_secrets(environ)
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
