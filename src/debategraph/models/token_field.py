"""The request field that carries ``max_tokens`` to a ``ChatOpenAI`` object's server.

``langchain-openai`` sends ``max_tokens`` as ``max_completion_tokens``, the field OpenAI's
own API now takes. Other servers of the same wire format (llama.cpp, vLLM, Ollama, SGLang)
honour ``max_tokens``, and llama.cpp ignores ``max_completion_tokens``: a run against it
would generate without bound. Models we make for ``base_url`` already send ``max_tokens``
(:class:`~debategraph.models.compatible.CompatibleChatOpenAI`); a ``ChatOpenAI`` object a
user made for such a server gets the limit in the request body as ``max_tokens`` too, on a
copy of the object, so the user's own object is never changed.
"""

from __future__ import annotations

import sys
from typing import Any
from urllib.parse import urlsplit

OPENAI_HOST_SUFFIX = "openai.com"
"""Hosts that are OpenAI's own API (``api.openai.com``), which takes the current field."""


def sends_classic_field(model: Any) -> bool:
    """Whether ``model`` is a ``ChatOpenAI`` that should send ``max_tokens`` as such.

    That is a ``ChatOpenAI`` (not our compatible subclass, which does so already) on the Chat
    Completions API whose server is not OpenAI's.
    """
    openai_module = sys.modules.get("langchain_openai")
    if openai_module is None or not isinstance(model, openai_module.ChatOpenAI):
        return False  # no ChatOpenAI exists in a process that never imported the package
    from debategraph.models.compatible import CompatibleChatOpenAI

    if isinstance(model, CompatibleChatOpenAI) or getattr(model, "use_responses_api", None):
        return False
    url = getattr(model, "openai_api_base", None) or getattr(
        getattr(model, "root_client", None), "base_url", None
    )
    host = (urlsplit(str(url)).hostname or "") if url else OPENAI_HOST_SUFFIX
    return not (host == OPENAI_HOST_SUFFIX or host.endswith("." + OPENAI_HOST_SUFFIX))


def with_token_limit(model: Any, kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``model`` and a call's ``kwargs`` with the token limit in the field its server honours.

    For a ``ChatOpenAI`` on a server other than OpenAI's, the limit (the call's
    ``max_tokens``, else the object's own) goes into ``extra_body`` as ``max_tokens``, and a
    copy of the object without its own limit is returned, so no ``max_completion_tokens``
    is sent beside it. Anything else is returned as given.

    Args:
        model: The speaker's chat model.
        kwargs: The call's model arguments (generation settings, bound arguments).

    Returns:
        The model and the arguments to bind to it.
    """
    own = getattr(model, "max_tokens", None)
    if ("max_tokens" not in kwargs and own is None) or not sends_classic_field(model):
        return model, kwargs
    kwargs = dict(kwargs)
    limit = kwargs.pop("max_tokens", None)
    if own is not None:
        limit = own if limit is None else limit
        model = model.model_copy(update={"max_tokens": None})
    if limit is not None:
        body = {**(model.extra_body or {}), **(kwargs.get("extra_body") or {})}
        kwargs["extra_body"] = {**body, "max_tokens": limit}
    return model, kwargs
