"""The responder layer: what the assistant says, and the token counts of it."""

from __future__ import annotations

import functools
import json
import math
import random
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_TOKEN_RE = re.compile(r"\s*(?:[A-Za-z]{1,8}|\d{1,3}|[^\sA-Za-z\d])")
"""Tokens that tile a text: the pieces of ``estimate_tokens``, each with its leading space."""


def split_tokens(text: str) -> list[str]:
    """Cut ``text`` into tokens whose concatenation is ``text``.

    There are as many tokens as :func:`debategraph.policies.tokens.estimate_tokens` counts
    (trailing whitespace joins the last token; a text of only whitespace is one token).
    """
    tokens = _TOKEN_RE.findall(text)
    if not tokens:
        return [text] if text else []
    tail = len(text) - sum(map(len, tokens))
    if tail:
        tokens[-1] += text[-tail:]
    return tokens


@functools.cache
def _estimator() -> Callable[[str], int]:
    from debategraph.policies.tokens import estimate_tokens as estimate

    return estimate


def estimate_tokens(text: str) -> int:
    """The project's offline token estimate (imported on first use: it loads the package)."""
    return _estimator()(text)


def message_text(content: Any) -> str:
    """The text of an OpenAI message ``content``: a string, a list of parts, or ``None``."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content
        )
    return str(content)


def to_langchain_messages(messages: Sequence[Mapping[str, Any]]) -> list[Any]:
    """Turn OpenAI chat messages into LangChain messages (text content only).

    ``system``/``developer`` become ``SystemMessage``, ``assistant`` ``AIMessage``, ``tool``
    ``ToolMessage``, anything else ``HumanMessage``.
    """
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = []
    for message in messages:
        role, text = message.get("role"), message_text(message.get("content"))
        if role in ("system", "developer"):
            out.append(SystemMessage(content=text))
        elif role == "assistant":
            out.append(AIMessage(content=text))
        elif role == "tool":
            out.append(ToolMessage(content=text, tool_call_id=str(message.get("tool_call_id"))))
        else:
            out.append(HumanMessage(content=text))
    return out


@dataclass(frozen=True)
class ChatRequest:
    """A chat-completions request as responders and fault pickers see it.

    Attributes:
        body: The JSON body.
        headers: The HTTP header fields, names lower-cased.
        index: Its position among the chat requests since the server started or was reset.
        method: HTTP method.
        path: Request path.
    """

    body: dict[str, Any]
    headers: dict[str, str]
    index: int = 0
    method: str = "POST"
    path: str = "/v1/chat/completions"

    @property
    def model(self) -> str:
        """The requested model name."""
        return str(self.body.get("model", ""))

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's messages, OpenAI style."""
        return list(self.body.get("messages") or [])

    @property
    def stream(self) -> bool:
        """Whether an SSE stream was asked for."""
        return bool(self.body.get("stream"))


@dataclass
class Completion:
    """What a responder says; the server fills in whatever is left ``None``.

    Attributes:
        content: The assistant's text.
        prompt_tokens: Input tokens; default: ``estimate_tokens`` over the messages' text.
        completion_tokens: Output tokens; default: ``estimate_tokens(content)``.
        token_logprobs: One logprob per token of :func:`split_tokens` (``content``); default:
            drawn deterministically from the request.
        finish_reason: ``"stop"``, or e.g. ``"length"``.
        cached_tokens: Of the prompt tokens, those served from the prompt cache; default:
            the server's simulated prefix cache (``prompt_cache_block``), else 0.
        reasoning_tokens: Hidden reasoning tokens, part of ``completion_tokens`` (added to
            the default count); default: the server's ``reasoning_tokens``.
        reasoning: Thinking sent in the message field ``reasoning_field`` (a server with a
            reasoning parser); counted in the default ``completion_tokens``.
        reasoning_field: ``reasoning`` (vLLM, OpenRouter) or ``reasoning_content``
            (DeepSeek's API, llama.cpp).
    """

    content: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    token_logprobs: list[float] | None = None
    finish_reason: str = "stop"
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None
    reasoning: str | None = None
    reasoning_field: str = "reasoning"


class Responder:
    """Decides the assistant's reply; subclass it and override :meth:`respond`."""

    async def respond(self, request: ChatRequest) -> Completion | str:
        """The reply to ``request`` (a bare string is the content)."""
        raise NotImplementedError

    def reset(self) -> None:
        """Forget per-run state; :meth:`Server.reset` calls it."""

    def warm_up(self) -> None:
        """Load what the first request would otherwise wait for; called when the server starts."""


class SimulatedResponder(Responder):
    """Answers like a debater through the project's offline ``SimulatedDebater``.

    Model ``sim-<k>`` is ``SimulatedDebater.for_agent(k, agent=f"a{k + 1}", seed=seed)`` — the
    model the engine gives agent ``k`` for the spec ``"simulated"`` — and any other model name
    is ``sim-0``. Its usage and token logprobs are passed on.

    Args:
        seed: The simulated models' seed.
    """

    _MODEL_RE = re.compile(r"sim-(\d+)")

    def __init__(self, seed: int = 0):
        self.seed = seed
        self._models: dict[int, Any] = {}

    def warm_up(self) -> None:
        """Import the simulated model and LangChain's message classes."""
        self.debater(0)
        to_langchain_messages([])

    def debater(self, k: int) -> Any:
        """The simulated debater playing agent ``k``."""
        if k not in self._models:
            from debategraph.models.simulated import SimulatedDebater

            self._models[k] = SimulatedDebater.for_agent(k, agent=f"a{k + 1}", seed=self.seed)
        return self._models[k]

    def profile_of(self, model: str) -> int:
        """The agent index a model name stands for: ``k`` for ``sim-<k>``, else 0."""
        match = self._MODEL_RE.fullmatch(model)
        return int(match.group(1)) if match else 0

    async def respond(self, request: ChatRequest) -> Completion:
        """Ask the simulated debater."""
        debater = self.debater(self.profile_of(request.model))
        reply = await debater.ainvoke(to_langchain_messages(request.messages))
        text = message_text(reply.content)
        usage = reply.usage_metadata or {}
        logprobs = (reply.response_metadata.get("logprobs") or {}).get("content")
        values = [float(entry["logprob"]) for entry in logprobs] if logprobs else None
        return Completion(
            content=text,
            prompt_tokens=usage.get("input_tokens"),
            completion_tokens=usage.get("output_tokens"),
            token_logprobs=values,
        )


class EchoResponder(Responder):
    """Replies with a JSON dump of the request it received: method, path, headers and body.

    Secrets the client sent (the ``Authorization`` header) come back in the reply, to test that
    nothing downstream writes replies where secrets must not go.
    """

    async def respond(self, request: ChatRequest) -> str:
        """The request, as sorted JSON."""
        dump = {
            "method": request.method,
            "path": request.path,
            "headers": request.headers,
            "body": request.body,
        }
        return json.dumps(dump, sort_keys=True)


class ScriptedResponder(Responder):
    """Replies from a script: a list of replies, or a function of the request's JSON body.

    With a list, the k-th answered request gets ``replies[k]`` and the last reply repeats.
    Faulted requests do not use up a reply. A function gets the JSON body and returns the
    content (or a :class:`Completion`); it may be ``async``.

    Args:
        replies: The replies, or the function.
    """

    def __init__(self, replies: Sequence[str] | Callable[[dict[str, Any]], Any]):
        if not callable(replies) and not replies:
            raise ValueError("a scripted responder needs at least one reply")
        self.replies = replies
        self.calls = 0

    def reset(self) -> None:
        """Start the script again."""
        self.calls = 0

    async def respond(self, request: ChatRequest) -> Completion | str:
        """The next scripted reply."""
        k, self.calls = self.calls, self.calls + 1
        if callable(self.replies):
            result = self.replies(request.body)
            return await result if isinstance(result, Awaitable) else result
        return self.replies[min(k, len(self.replies) - 1)]


THINKING_SHAPES = (
    "tags", "close_only", "unclosed", "untagged", "reasoning_content", "reasoning"
)  # fmt: skip
"""How a :class:`ThinkingResponder` sends its thinking: ``<think>`` tags in the content, only
the closing tag (the chat template opened it), an unclosed tag (cut off while thinking:
finish reason ``length``, no answer), no tag at all (the template opened the thought and the
model was cut off in it: finish reason ``length``, no answer), or the ``reasoning_content`` /
``reasoning`` field."""

DEFAULT_THOUGHT = "Let me think. A first guess is 777777, but I should check it again. "
"""The thinking a :class:`ThinkingResponder` repeats: it names a wrong number on purpose."""


class ThinkingResponder(Responder):
    """Answers like a reasoning model: thinking, then the answer of another responder.

    Args:
        shape: One of :data:`THINKING_SHAPES`.
        inner: What gives the answer part, as :func:`make_responder` takes it (default: the
            simulated debater).
        thought_chars: Length of the thinking, :data:`DEFAULT_THOUGHT` repeated and cut.
        seed: Seed of the default simulated responder.
    """

    def __init__(
        self,
        shape: str,
        inner: ResponderSpec | None = None,
        *,
        thought_chars: int = 400,
        seed: int = 0,
    ):
        if shape not in THINKING_SHAPES:
            raise ValueError(f"unknown thinking shape {shape!r}: use {', '.join(THINKING_SHAPES)}")
        self.shape = shape
        self.inner = make_responder(inner or "simulated", seed=seed)
        reps = thought_chars // len(DEFAULT_THOUGHT) + 1
        self.thought = (DEFAULT_THOUGHT * reps)[:thought_chars].strip()

    def reset(self) -> None:
        """Reset the inner responder."""
        self.inner.reset()

    def warm_up(self) -> None:
        """Warm the inner responder."""
        self.inner.warm_up()

    async def respond(self, request: ChatRequest) -> Completion:
        """The inner answer with this responder's thinking, in its shape."""
        reply = await self.inner.respond(request)
        answer = reply if isinstance(reply, str) else reply.content
        thought = self.thought
        if self.shape == "tags":
            return Completion(f"<think>\n{thought}\n</think>\n\n{answer}")
        if self.shape == "close_only":
            return Completion(f"{thought}\n</think>\n\n{answer}")
        if self.shape == "unclosed":
            return Completion(f"<think>\n{thought}", finish_reason="length")
        if self.shape == "untagged":
            return Completion(thought, finish_reason="length")
        return Completion(answer, reasoning=thought, reasoning_field=self.shape)


ResponderSpec = str | Sequence[str] | Callable[[dict[str, Any]], Any] | Responder
"""``"simulated"``, ``"echo"``, a list of replies, a function of the body, or a Responder."""


def make_responder(spec: ResponderSpec, *, seed: int = 0) -> Responder:
    """Build a responder from a spec.

    Args:
        spec: ``"simulated"`` (the default debater), ``"echo"``, ``"thinking-SHAPE"`` (the
            debater as a reasoning model, :class:`ThinkingResponder`), a list of replies or a
            function ``(request_json) -> str`` (scripted), or a :class:`Responder`.
        seed: Seed of the simulated responder.

    Raises:
        ValueError: An unknown name.
    """
    if isinstance(spec, Responder):
        return spec
    if spec == "simulated":
        return SimulatedResponder(seed)
    if spec == "echo":
        return EchoResponder()
    if isinstance(spec, str) and spec.startswith("thinking-"):
        return ThinkingResponder(spec.removeprefix("thinking-"), seed=seed)
    if isinstance(spec, str):
        raise ValueError(
            f"unknown responder {spec!r}: use 'simulated', 'echo', 'thinking-SHAPE' or a script"
        )
    return ScriptedResponder(spec)


_ALTERNATIVES = (" the", " a", ",", ".", " and", " is", " of", " to", "\n", " it", " 1", " 0")


def logprobs_object(
    tokens: Sequence[str], values: Sequence[float], top: int, rng: random.Random
) -> dict[str, Any]:
    """OpenAI's ``choices[0].logprobs``: one entry per token, ``top`` alternatives each.

    The sampled token is among its alternatives; the others share what probability is left.
    """
    content = []
    for token, value in zip(tokens, values, strict=True):
        entry: dict[str, Any] = {
            "token": token,
            "logprob": value,
            "bytes": list(token.encode()),
            "top_logprobs": [],
        }
        if top:
            rest = max(1.0 - math.exp(value), 1e-9)
            others = [a for a in _ALTERNATIVES if a != token][: top - 1]
            shares = [rng.random() + 0.01 for _ in others]
            scale = 0.9 * rest / (sum(shares) or 1.0)
            ranked = [(token, value)] + [
                (a, math.log(s * scale)) for a, s in zip(others, shares, strict=True)
            ]
            ranked.sort(key=lambda pair: -pair[1])
            entry["top_logprobs"] = [
                {"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in ranked
            ]
        content.append(entry)
    return {"content": content, "refusal": None}
