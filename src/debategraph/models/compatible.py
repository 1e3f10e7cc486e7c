"""Chat models served by OpenAI-compatible servers (vLLM, llama.cpp, Ollama, SGLang).

Those servers speak OpenAI's Chat Completions format but honour the classic request fields:
``max_tokens`` rather than the ``max_completion_tokens`` that ``langchain-openai`` now sends
(llama.cpp ignores the latter, so a run against it would generate without bound), and
sampling fields OpenAI's own API does not take, such as ``top_k``, in the request body.

Reasoning models served there send their thinking in a message field, ``reasoning_content``
(DeepSeek's API, llama.cpp) or ``reasoning`` (vLLM's reasoning parsers, OpenRouter), which
``ChatOpenAI`` drops: this class keeps it in the message's ``additional_kwargs`` (streamed
deltas too), and sends an earlier assistant turn's thinking back in the field it came in.
"""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI

from debategraph.policies.thinking import THINKING_FIELDS, thinking_body


def _thinking_of(message: Any) -> dict[str, str]:
    """The thinking fields of a wire message or delta (a dict), as given."""
    if not isinstance(message, dict):
        return {}
    return {k: message[k] for k in THINKING_FIELDS if isinstance(message.get(k), str)}


def _with_thinking(extra_body: dict[str, Any], thinking: str | int) -> dict[str, Any]:
    """``extra_body`` with a ``thinking`` value's fields; template kwargs merged key by key.

    The model's own ``chat_template_kwargs`` (other template switches) stay; only the keys the
    thinking value sets are replaced.
    """
    fields = thinking_body(thinking)
    merged = {**extra_body, **fields}
    own = extra_body.get("chat_template_kwargs")
    template = fields.get("chat_template_kwargs")
    if isinstance(own, dict) and isinstance(template, dict):
        merged["chat_template_kwargs"] = {**own, **template}
    return merged


class CompatibleChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` for an OpenAI-compatible server at ``base_url``.

    The request body carries ``max_tokens`` (not ``max_completion_tokens``), and a ``top_k``
    bound to a call goes into the body as the server expects, and so does a ``thinking``
    setting (``chat_template_kwargs``, a thinking-token budget). A reply's ``reasoning_content``
    or ``reasoning`` field lands in ``additional_kwargs`` under its own name; an assistant
    message of the history that carries one there sends it back in that field (DeepSeek's
    thinking mode refuses a conversation without it; vLLM reads ``reasoning``).
    """

    sends_top_k: ClassVar[bool] = True
    sends_thinking: ClassVar[bool] = True

    def _get_request_payload(
        self,
        input_: LanguageModelInput,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        top_k = kwargs.pop("top_k", None)
        thinking = kwargs.pop("thinking", None)
        payload: dict[str, Any] = super()._get_request_payload(input_, stop=stop, **kwargs)
        self._send_thinking_back(input_, payload)
        if "max_completion_tokens" in payload:
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        if top_k is not None:  # the client takes only OpenAI's fields; the rest is extra_body
            payload["extra_body"] = {**(payload.get("extra_body") or {}), "top_k": top_k}
        if thinking is not None:
            payload["extra_body"] = _with_thinking(payload.get("extra_body") or {}, thinking)
        return payload

    def _send_thinking_back(self, input_: LanguageModelInput, payload: dict[str, Any]) -> None:
        wire = payload.get("messages")
        if not isinstance(wire, list):
            return
        messages = self._convert_input(input_).to_messages()
        if len(messages) != len(wire):
            return
        for message, sent in zip(messages, wire, strict=True):
            if isinstance(message, AIMessage) and sent.get("role") == "assistant":
                sent.update(_thinking_of(message.additional_kwargs))

    def _create_chat_result(
        self, response: Any, generation_info: dict[str, Any] | None = None
    ) -> ChatResult:
        result = super()._create_chat_result(response, generation_info)
        body = (
            response
            if isinstance(response, dict)
            else response.model_dump(
                exclude={"choices": {"__all__": {"message": {"parsed"}}}}, warnings=False
            )
        )
        for choice, generation in zip(body.get("choices") or [], result.generations, strict=False):
            fields = _thinking_of(choice.get("message"))
            generation.message.additional_kwargs.update(fields)
        return result

    def _convert_chunk_to_generation_chunk(
        self,
        chunk: dict[str, Any],
        default_chunk_class: type,
        base_generation_info: dict[str, Any] | None,
    ) -> ChatGenerationChunk | None:
        generation = super()._convert_chunk_to_generation_chunk(
            chunk, default_chunk_class, base_generation_info
        )
        choices = chunk.get("choices") or []
        if generation is not None and choices:
            fields = _thinking_of(choices[0].get("delta"))
            generation.message.additional_kwargs.update(fields)
        return generation
