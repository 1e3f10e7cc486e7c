"""Turning model specs into chat models, one per speaker, before any call is made.

String specs are resolved once and cached. Provider models are cached per event loop: an
async HTTP client belongs to the loop that opened its connections, so a model made under one
``asyncio.run`` must not serve the next (the "Event loop is closed" failure). OpenAI-style
models get an HTTP client of their own for the same reason, and no retries of their own: the
call node's retry policy is the one retry layer.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from pydantic import SecretStr

from debategraph.errors import ConfigurationError
from debategraph.models.http import async_http_client
from debategraph.models.loops import for_this_loop
from debategraph.models.roster import Agent
from debategraph.models.simulated import SimulatedDebater
from debategraph.policies.model_names import SIMULATED
from debategraph.state.context import DebateContext

ModelSpec = str | BaseChatModel
"""``"simulated"``, an ``init_chat_model`` string (``"openai:gpt-4o-mini"``), or a model."""

_PER_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]] = (
    weakref.WeakKeyDictionary()
)
_NO_LOOP: dict[tuple[Any, ...], Any] = {}
_CHECKED: dict[tuple[Any, ...], Any] = {}


class ModelConfigError(ConfigurationError):
    """A model spec that cannot be turned into a chat model; the message says what to fix."""


def is_simulated(spec: object) -> bool:
    """Whether ``spec`` names the offline simulated debater."""
    return isinstance(spec, str) and spec.split(":")[0].strip() in SIMULATED


def _parse_simulated(spec: str) -> dict[str, Any]:
    """``simulated:skill=0.9,conformity=0.2`` -> overrides for ``SimulatedDebater``."""
    _, _, tail = spec.partition(":")
    overrides: dict[str, Any] = {}
    for pair in filter(None, tail.split(",")):
        key, sep, value = pair.partition("=")
        key = key.strip()
        if key not in SimulatedDebater.model_fields:
            raise ModelConfigError(
                f"unknown simulated-model setting {key!r} in {spec!r}; valid settings: "
                + ", ".join(sorted(SimulatedDebater.model_fields))
            )
        if not sep:
            raise ModelConfigError(f"simulated-model settings take KEY=VALUE, got {pair!r}")
        value = value.strip()
        if value.lower() in ("none", ""):
            overrides[key] = None
        elif key in ("agent", "replay"):
            overrides[key] = value
        elif key == "logprobs":
            overrides[key] = value.lower() in ("true", "yes", "on", "1")
        else:
            try:
                overrides[key] = float(value)
            except ValueError:
                raise ModelConfigError(
                    f"simulated-model setting {key} must be a number, got {value!r}"
                ) from None
    return overrides


@lru_cache(maxsize=1024)
def _simulated(spec: str, index: int, agent: str, seed: int) -> SimulatedDebater:
    return SimulatedDebater.for_agent(index, agent=agent, seed=seed, **_parse_simulated(spec))


def _provider(
    spec: str, base_url: str | None, timeout: float | None, *, checking: bool = False
) -> BaseChatModel:
    """A provider chat model for ``spec``; made in (and cached for) the running loop.

    ``checking``: made for the pre-run check, which only needs it to build. Inside a running
    loop the check fills that loop's own cache, which its calls then read. Outside one the
    model is set aside unused, and the first caller that asks for the same model adopts it (no
    connection has been opened yet) rather than building a second HTTP client and TLS context.
    """
    key = (spec, base_url, timeout)
    try:
        loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if checking and loop is None:
        model = _CHECKED.get(key)
        if model is None:
            model = _CHECKED[key] = _new_provider(spec, base_url, timeout)
        return model
    cache = _NO_LOOP if loop is None else _PER_LOOP.setdefault(loop, {})
    model = cache.get(key)
    if model is None:
        unused = _CHECKED.pop(key, None)
        model = cache[key] = unused or _new_provider(spec, base_url, timeout)
    return model


def _new_provider(spec: str, base_url: str | None, timeout: float | None) -> BaseChatModel:
    if base_url:
        from debategraph.models.compatible import CompatibleChatOpenAI

        key = os.environ.get("OPENAI_API_KEY", "not-needed")
        return CompatibleChatOpenAI(
            model=spec, base_url=base_url, api_key=SecretStr(key), **_openai_settings(timeout)
        )
    from langchain.chat_models import init_chat_model

    from debategraph.models.names import key_variable, provider_of, unknown_name

    refused = unknown_name(spec)
    if refused is not None:
        raise ModelConfigError(refused)
    provider = provider_of(spec) or spec.split(":")[0].strip().lower()
    extra = _openai_settings(timeout) if provider in ("openai", "azure_openai") else {}
    try:
        model: BaseChatModel = init_chat_model(spec, **extra)
        return model
    except ImportError as exc:
        raise ModelConfigError(f"model {spec!r}: {exc}") from None
    except ValueError:
        raise ModelConfigError(
            f"unknown model provider in {spec!r}: write it as 'provider:model' "
            "(e.g. 'openai:gpt-4o-mini'), or pass --base-url for an OpenAI-compatible server"
        ) from None
    except Exception as exc:  # provider SDKs raise their own types for missing credentials
        if "api_key" in str(exc).lower() or "credential" in str(exc).lower():
            raise ModelConfigError(
                f"model {spec!r} needs an API key: set {key_variable(provider)} in the environment"
            ) from None
        raise ModelConfigError(
            f"model {spec!r} could not be created: {type(exc).__name__}"
        ) from None


DEFAULT_TIMEOUT_S = 120.0
"""Request timeout of provider models when the context sets none."""


def _openai_settings(timeout: float | None) -> dict[str, Any]:
    # No socket options: langchain-openai would otherwise put its own transport on the sync
    # client, which bypasses the environment's proxy settings and says so on stderr.
    return {
        "max_retries": 0,
        "http_async_client": async_http_client(),
        "http_socket_options": (),
        "timeout": DEFAULT_TIMEOUT_S if timeout is None else timeout,
        "stream_usage": True,
    }


def resolve_model(
    spec: Any,
    *,
    index: int = 0,
    agent: str = "a1",
    seed: int = 0,
    base_url: str | None = None,
    timeout: float | None = None,
) -> Any:
    """The chat model (or agent runnable) behind ``spec``.

    Args:
        spec: ``"simulated"`` (optionally ``"simulated:skill=0.9,..."``), an
            ``init_chat_model`` string such as ``"openai:gpt-4o-mini"``, a model name served at
            ``base_url``, or a chat model / ``Runnable`` (used as is; an OpenAI-style model
            object gets a copy per event loop, see :mod:`debategraph.models.loops`).
        index: Profile of the simulated model (agent index).
        agent: Agent name; part of the simulated model's random draws.
        seed: Seed of the simulated model.
        base_url: An OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp) for bare names.
        timeout: Request timeout of provider models, in seconds.

    Raises:
        ModelConfigError: Unknown provider, missing provider package or missing API key.
    """
    if isinstance(spec, Runnable):
        return for_this_loop(spec)
    if not isinstance(spec, str) or not spec.strip():
        raise ModelConfigError(
            f"a model spec must be a non-empty string, a chat model or a Runnable, got {spec!r}"
        )
    spec = spec.strip()
    if is_simulated(spec):
        return _simulated(spec, index, agent, seed)
    return _provider(spec, base_url, timeout)


class Models:
    """The model of every speaker of one debate: its agents and the method's roles.

    An agent bound to a model in the roster uses it; otherwise the context's model specs
    apply (one for all, or one per agent), and ``simulated`` when there are none. A role
    (``summarizer``, ``evaluator``) uses ``context.role_models[role]``, else the first agent's
    model (the same backbone, as the papers do).

    Args:
        roster: The graph's agents.
        context: The run's settings (the defaults if ``None``); a graph's nodes build one
            ``Models`` and pass each call's context to :meth:`model` and :meth:`spec_of`.
        single_model: Every agent is a sample of one model (self-consistency): the simulated
            model keeps one profile and varies only its random draws.
    """

    def __init__(
        self,
        roster: Sequence[Agent],
        context: DebateContext | None = None,
        *,
        single_model: bool = False,
    ) -> None:
        self.roster = {a.name: (i, a) for i, a in enumerate(roster)}
        self.first = roster[0].name
        self.context = context if context is not None else DebateContext()
        self.single_model = single_model

    def spec_of(self, speaker: str, context: DebateContext | None = None) -> Any:
        """The spec or object that ``speaker`` runs on (before resolution)."""
        ctx = self.context if context is None else context
        if speaker not in self.roster:
            if speaker in ctx.role_models:
                return ctx.role_models[speaker]
            speaker = self.first
        index, agent = self.roster[speaker]
        if agent.model is not None:
            return agent.model
        specs: Sequence[str] = ctx.models or ("simulated",)
        return specs[0] if len(specs) == 1 else specs[index]

    def model(self, speaker: str, context: DebateContext | None = None) -> Any:
        """The resolved model of ``speaker`` (an agent or a role) under ``context``."""
        ctx = self.context if context is None else context
        index = self.roster[speaker][0] if speaker in self.roster else 0
        return resolve_model(
            self.spec_of(speaker, ctx),
            index=0 if self.single_model else index,
            agent=speaker,
            seed=ctx.seed,
            base_url=ctx.base_url,
            timeout=ctx.timeout,
        )

    def check(self, speakers: Sequence[str]) -> None:
        """Resolve every speaker's model once, so bad specs fail before any call.

        Raises:
            ModelConfigError: A spec that cannot be resolved.
        """
        ctx = self.context
        for speaker in speakers:
            spec = self.spec_of(speaker, ctx)
            if isinstance(spec, str) and spec.strip() and not is_simulated(spec):
                _provider(spec.strip(), ctx.base_url, ctx.timeout, checking=True)
            else:
                self.model(speaker)


def model_key(spec: object) -> str:
    """A speaker's model as call identities and sampling presets name it.

    Its spec string, or the label of a model object.
    """
    return spec if isinstance(spec, str) else model_label(spec)


def takes_top_k(model: Any) -> bool:
    """Whether a call on ``model`` can send ``top_k``.

    A chat model class with a ``top_k`` field (Anthropic, Google, Ollama, ...) takes it, and so
    does one that declares ``sends_top_k = True`` (``CompatibleChatOpenAI`` puts it in the
    request body for vLLM and llama.cpp). OpenAI's own API has no top-k, and an agent runnable
    takes no call settings.
    """
    if not isinstance(model, BaseChatModel):
        return False
    return bool(getattr(type(model), "sends_top_k", False)) or "top_k" in type(model).model_fields


def server_url(model: Any) -> str | None:
    """The URL of the server a chat model talks to, credentials removed, when it has one."""
    from debategraph.policies.secrets import redact_url

    url = getattr(model, "openai_api_base", None) or getattr(
        getattr(model, "root_async_client", None), "base_url", None
    )
    return redact_url(str(url)) if url else None


def model_label(model: Any) -> str:
    """A short, secret-free label of a chat model (or agent runnable) for transcripts."""
    if isinstance(model, SimulatedDebater):
        return model.model_label
    if isinstance(model, BaseChatModel):
        name = getattr(model, "model_name", None) or getattr(model, "model", None)
        return f"{model._llm_type}:{name}" if name else model._llm_type
    return str(getattr(model, "name", None) or type(model).__name__)
