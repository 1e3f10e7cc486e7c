"""Where a reply enters: its thinking read apart from its answer part, whatever the server sent.

The thinking of a reasoning model reaches a LangChain message in one of these ways:

* a message field kept in ``additional_kwargs``: ``reasoning_content`` (DeepSeek's API,
  llama.cpp's ``--reasoning-format deepseek``, older vLLM) or ``reasoning`` (vLLM with a
  ``--reasoning-parser``, OpenRouter); :class:`~debategraph.models.compatible.CompatibleChatOpenAI`
  keeps both from the wire (streamed deltas included), which ``ChatOpenAI`` drops;
* content blocks: LangChain's standard ``reasoning`` blocks and Anthropic-style ``thinking``
  blocks (a chat model object of such a provider);
* ``<think>`` tags in the text (a server without a reasoning parser), split by
  :func:`~debategraph.policies.thinking.split_thinking`.

All of them end up in one :class:`Reading`: the thinking, the answer part, whether the reply
ended inside its thinking, and the field the thinking came in (so it can be sent back there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage

from debategraph.policies.thinking import THINKING_FIELDS, joined_thinking, split_thinking


@dataclass(frozen=True)
class Reading:
    """A reply read apart.

    Attributes:
        thinking: All its thinking ("" when none came).
        answer: Its answer part (the text peers, judges and parsers read).
        cut_off: It ended inside its thinking: thinking came, no answer part did.
        field: The message field its thinking came in, when it came in one.
    """

    thinking: str
    answer: str
    cut_off: bool
    field: str | None = None


def _block_thinking(block: Any) -> str:
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "thinking":
        return str(block.get("thinking") or "")
    if kind == "reasoning":
        if isinstance(block.get("reasoning"), str):
            return str(block["reasoning"])
        summary = block.get("summary") or []
        return "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
    return ""


def field_thinking(reply: AIMessage) -> tuple[str, str | None]:
    """The thinking a reply carries in a message field, and that field's name."""
    for name in THINKING_FIELDS:
        value = reply.additional_kwargs.get(name)
        if isinstance(value, str) and value.strip():
            return value, name
    return "", None


CUT_BY_LENGTH = (
    ("finish_reason", "length"),  # OpenAI and compatible servers
    ("finish_reason", "MAX_TOKENS"),  # Google
    ("stop_reason", "max_tokens"),  # Anthropic
    ("finish_reason", "max_tokens"),  # Inspect's stop reasons (integrations.inspect)
    ("finish_reason", "model_length"),
)
"""The response metadata that says a reply was cut off at its token limit, per provider."""


def cut_by_length(reply: AIMessage) -> bool:
    """Whether the server says ``reply`` stopped at its token limit, not where it chose to."""
    metadata = reply.response_metadata
    return any(metadata.get(key) == value for key, value in CUT_BY_LENGTH)


def read_reply(reply: AIMessage) -> Reading:
    """``reply`` split into its thinking and its answer part (every shape; module docs).

    A reply cut off at its token limit that never closed a thought (no ``</think>``, no
    thinking field or block) is unfinished: a chat template that opened ``<think>`` in the
    prompt leaves the model's thought untagged, and a model that does not think was stopped
    mid-answer. Either way its text is kept as thinking and it has no answer part.
    """
    in_field, name = field_thinking(reply)
    blocks = reply.content if isinstance(reply.content, list) else []
    in_blocks = joined_thinking(*(_block_thinking(b) for b in blocks))
    split = split_thinking(reply.text)
    thinking = joined_thinking(in_field, in_blocks, split.thinking)
    answer = split.answer
    if not thinking and answer.strip() and cut_by_length(reply):
        return Reading(answer.strip(), "", True, name)
    cut_off = bool(thinking) and (split.cut_off or not answer.strip())
    if cut_off:
        answer = ""
    return Reading(thinking, answer, cut_off, name)


def thinking_message(text: str, reasoning: str, field: str | None) -> AIMessage:
    """An earlier assistant turn as history: its answer part, with its thinking in ``field``.

    The thinking goes back only in the field the server sent it in (a server that requires
    it, like DeepSeek's thinking mode, reads it there; see ``CompatibleChatOpenAI``), never as
    content; with no field, the message is the answer part alone.
    """
    if reasoning and field in THINKING_FIELDS:
        return AIMessage(text, additional_kwargs={field: reasoning})
    return AIMessage(text)
