"""Chat models served by OpenAI-compatible servers (vLLM, llama.cpp, Ollama, SGLang).

Those servers speak OpenAI's Chat Completions format but honour the classic request fields:
``max_tokens`` rather than the ``max_completion_tokens`` that ``langchain-openai`` now sends
(llama.cpp ignores the latter, so a run against it would generate without bound), and
sampling fields OpenAI's own API does not take, such as ``top_k``, in the request body.
"""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.language_models import LanguageModelInput
from langchain_openai import ChatOpenAI


class CompatibleChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` for an OpenAI-compatible server at ``base_url``.

    The request body carries ``max_tokens`` (not ``max_completion_tokens``), and a ``top_k``
    bound to a call goes into the body as the server expects.
    """

    sends_top_k: ClassVar[bool] = True

    def _get_request_payload(
        self,
        input_: LanguageModelInput,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        top_k = kwargs.pop("top_k", None)
        payload: dict[str, Any] = super()._get_request_payload(input_, stop=stop, **kwargs)
        if "max_completion_tokens" in payload:
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        if top_k is not None:  # the client takes only OpenAI's fields; the rest is extra_body
            payload["extra_body"] = {**(payload.get("extra_body") or {}), "top_k": top_k}
        return payload
