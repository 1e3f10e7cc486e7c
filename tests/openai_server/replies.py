"""The OpenAI wire format of an answer: body checks, completions and stream chunks."""

from __future__ import annotations

import json
import math
import random
import time
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.openai_server.responders import (
    ChatRequest,
    Completion,
    estimate_tokens,
    logprobs_object,
    message_text,
    split_tokens,
)

if TYPE_CHECKING:
    from tests.openai_server.server import Server


class _Inconsistent(Exception):
    """A request body that is JSON but not a chat request; answered with a 400."""

    def __init__(self, message: str, param: str | None):
        super().__init__(message)
        self.param = param


USAGE_DETAILS = ("openai", "llama.cpp", "null", "none")
"""The shapes of ``usage``'s token details the server can send (``usage_details``)."""


def _decode_body(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _chat_body(body: Any) -> dict[str, Any]:
    """Check a chat-completions body the way OpenAI does, for the few fields used here."""
    if not isinstance(body, dict):
        raise _Inconsistent(
            "We could not parse the JSON body of your request. (HINT: This likely means you "
            "aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)",
            None,
        )
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise _Inconsistent("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise _Inconsistent("[] is too short - 'messages'", "messages")
    if not all(isinstance(m, dict) and "role" in m for m in messages):
        raise _Inconsistent("Invalid value for 'messages': each needs a 'role'.", "messages")
    return body


def usage_object(
    prompt: int, completion: int, cached: int, reasoning: int, details: str = "openai"
) -> dict[str, Any]:
    """The ``usage`` of a reply, its token details in the shape ``details`` names.

    Args:
        prompt: Prompt tokens.
        completion: Completion tokens (reasoning included).
        cached: Of the prompt tokens, those served from the prompt cache.
        reasoning: Of the completion tokens, hidden reasoning.
        details: One of :data:`USAGE_DETAILS`.
    """
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if details == "openai":
        usage["prompt_tokens_details"] = {"cached_tokens": cached, "audio_tokens": 0}
        usage["completion_tokens_details"] = {
            "reasoning_tokens": reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        }
    elif details == "llama.cpp":
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    elif details == "null":
        usage["prompt_tokens_details"] = usage["completion_tokens_details"] = None
    return usage


@dataclass
class _Reply:
    """One answer, ready to be rendered as a completion or as stream chunks."""

    request_id: str
    id: str
    created: int
    model: str
    tokens: list[str]
    finish_reason: str
    usage: dict[str, Any]
    logprobs: dict[str, Any] | None
    include_usage: bool
    reasoning: str | None = None
    reasoning_field: str = "reasoning"

    @classmethod
    def build(cls, server: Server, request: ChatRequest, completion: Completion) -> _Reply:
        body = request.body
        content = completion.content
        tokens = split_tokens(content)
        values = completion.token_logprobs
        finish = completion.finish_reason
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        n_out = completion.completion_tokens
        if isinstance(limit, int) and 0 < limit < len(tokens):
            tokens, values, finish, n_out = tokens[:limit], (values or [])[:limit], "length", limit
        if n_out is None:
            n_out = estimate_tokens(content)
            if completion.reasoning:
                n_out += estimate_tokens(completion.reasoning)
        n_in = completion.prompt_tokens
        if n_in is None:
            n_in = sum(estimate_tokens(message_text(m.get("content"))) for m in request.messages)
        n_reasoning = completion.reasoning_tokens
        if n_reasoning is None:
            n_reasoning = server.reasoning_tokens
        if completion.completion_tokens is None:
            n_out += n_reasoning  # hidden reasoning is billed as output
        n_reasoning = min(n_reasoning, n_out)
        n_cached = completion.cached_tokens
        if n_cached is None:
            n_cached = server.cached_prefix(request)
        n_cached = min(n_cached, n_in)
        logprobs = None
        if body.get("logprobs"):
            rng = random.Random(zlib.crc32(json.dumps(body, sort_keys=True).encode()) ^ server.seed)
            if values is None or len(values) != len(tokens):
                values = [-rng.expovariate(4.0) for _ in tokens]
            top = int(body.get("top_logprobs") or 0)
            logprobs = logprobs_object(tokens, values, top, rng)
        usage = usage_object(n_in, n_out, n_cached, n_reasoning, server.usage_details)
        options = body.get("stream_options") or {}
        return cls(
            request_id=f"req_{request.index + 1:024x}",
            id=f"chatcmpl-{server.seed:x}{request.index + 1:020x}",
            created=int(time.time()),
            model=request.model,
            tokens=tokens,
            finish_reason=finish,
            usage=usage,
            logprobs=logprobs,
            include_usage=bool(isinstance(options, dict) and options.get("include_usage")),
            reasoning=completion.reasoning,
            reasoning_field=completion.reasoning_field,
        )

    def _base(self, object_: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": object_,
            "created": self.created,
            "model": self.model,
            "service_tier": "default",
            "system_fingerprint": "fp_debategraph",
        }

    def completion_json(self, *, choices: bool = True) -> dict[str, Any]:
        """The ``chat.completion`` object (``choices=False``: without its choices)."""
        body = self._base("chat.completion")
        if choices:
            message: dict[str, Any] = {
                "role": "assistant",
                "content": "".join(self.tokens),
                "refusal": None,
                "annotations": [],
            }
            if self.reasoning is not None:
                message[self.reasoning_field] = self.reasoning
            body["choices"] = [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": self.logprobs,
                    "finish_reason": self.finish_reason,
                }
            ]
        body["usage"] = self.usage
        return body

    def stream_events(self, *, choices: bool = True) -> list[dict[str, Any]]:
        """The ``chat.completion.chunk`` objects: role, content pieces, finish, usage.

        Up to 1024 content chunks; longer replies put several tokens in a chunk.
        """
        base = self._base("chat.completion.chunk")
        if self.include_usage:
            base["usage"] = None

        def chunk(delta: dict[str, Any], logprobs: Any = None, finish: str | None = None):
            choice = {"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
            return {**base, "choices": [choice]}

        if not choices:
            return [base]
        events = [chunk({"role": "assistant", "content": "", "refusal": None})]
        if self.reasoning:
            thought = split_tokens(self.reasoning)
            size = max(1, math.ceil(len(thought) / 256))
            for start in range(0, len(thought), size):
                piece = "".join(thought[start : start + size])
                events.append(chunk({"content": None, self.reasoning_field: piece}))
        step = max(1, math.ceil(len(self.tokens) / 1024))
        entries = self.logprobs["content"] if self.logprobs else None
        for start in range(0, len(self.tokens), step):
            piece = "".join(self.tokens[start : start + step])
            lp = None if entries is None else {"content": entries[start : start + step]}
            if lp is not None:
                lp["refusal"] = None
            events.append(chunk({"content": piece}, lp))
        events.append(chunk({}, None, self.finish_reason))
        if self.include_usage:
            events.append({**base, "choices": [], "usage": self.usage})
        return events
