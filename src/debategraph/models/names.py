"""Which provider a model spec names, whether a bare name is one it knows, and its key.

``init_chat_model`` takes ``provider:model`` or a bare model name whose provider it infers
from a prefix (``gpt-`` means OpenAI, ``claude`` Anthropic). A prefix is all it checks, so a
misspelt OpenAI name (``gpt-4o-mni``) would be sent to OpenAI and fail on the first call, or
ask for a key in a variable named after the model. A bare name inferred as OpenAI's must be
one the installed ``openai`` package lists; an explicit ``openai:NAME`` is taken as written.
"""

from __future__ import annotations

import difflib
import warnings
from functools import lru_cache
from typing import get_args

ADVICE = (
    "write it as 'provider:model' (e.g. 'openai:gpt-4o-mini'), or pass --base-url for an "
    "OpenAI-compatible server"
)
"""What to do about a spec whose provider or model is not known."""

_KEY_VARIABLES = {
    "google_genai": "GOOGLE_API_KEY",
    "huggingface": "HUGGINGFACEHUB_API_TOKEN",
    "mistralai": "MISTRAL_API_KEY",
    "perplexity": "PPLX_API_KEY",
}


def provider_of(spec: str) -> str | None:
    """The provider ``init_chat_model`` would use for ``spec``, or ``None`` if it finds none."""
    try:
        from langchain.chat_models.base import _parse_model
    except ImportError:  # pragma: no cover - a langchain without the helper
        head, sep, _ = spec.partition(":")
        return head.strip().lower() if sep else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its note on inferring google_vertexai
        try:
            return _parse_model(spec, None)[1]
        except ValueError:
            return None


def is_bare(spec: str) -> bool:
    """Whether ``spec`` has no provider prefix that ``init_chat_model`` recognises."""
    try:
        from langchain.chat_models.base import _BUILTIN_PROVIDERS
    except ImportError:  # pragma: no cover - a langchain without the table
        return ":" not in spec
    head, sep, _ = spec.partition(":")
    return not sep or head not in _BUILTIN_PROVIDERS


@lru_cache(maxsize=1)
def openai_model_names() -> frozenset[str]:
    """The chat model names the installed ``openai`` package lists (empty if it lists none)."""
    try:
        from openai.types import ChatModel
    except ImportError:  # pragma: no cover - openai comes with langchain-openai
        return frozenset()
    return frozenset(name for name in get_args(ChatModel) if isinstance(name, str))


def unknown_name(spec: str) -> str | None:
    """Why a bare model name cannot be used, or ``None`` when it can.

    A bare name whose provider cannot be inferred, or that is inferred as OpenAI's but is no
    model the ``openai`` package lists, is refused with the ``provider:model`` advice (and
    the closest known name, when there is one).
    """
    if not is_bare(spec):
        return None
    provider = provider_of(spec)
    if provider is None:
        return f"unknown model provider in {spec!r}: {ADVICE}"
    known = openai_model_names()
    if provider != "openai" or not known or spec in known:
        return None
    close = difflib.get_close_matches(spec, sorted(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown model {spec!r}{hint}: {ADVICE}"


def key_variable(provider: str) -> str:
    """The environment variable that holds ``provider``'s API key (``OPENAI_API_KEY``)."""
    return _KEY_VARIABLES.get(provider, f"{provider.upper()}_API_KEY")
