"""Turning model specs into chat models, one per agent, before any call is made."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from langchain_core.language_models import BaseChatModel

from debategraph.models.simulated import SimulatedDebater
from debategraph.policies.mdm import DEFAULT_MODEL_SIZE, credibility, lookup_model_size
from debategraph.state.context import DebateContext, ModelSpec

SIMULATED = ("simulated", "sim")


class ModelConfigError(ValueError):
    """A model spec that cannot be turned into a chat model; the message says what to fix."""


def _parse_simulated(spec: str) -> dict[str, Any]:
    """``simulated:skill=0.9,conformity=0.2`` -> overrides for ``SimulatedDebater``."""
    _, _, tail = spec.partition(":")
    overrides: dict[str, Any] = {}
    for pair in filter(None, tail.split(",")):
        key, _, value = pair.partition("=")
        if key not in SimulatedDebater.model_fields:
            raise ModelConfigError(
                f"unknown simulated-model setting {key!r} in {spec!r}; valid settings: "
                + ", ".join(sorted(SimulatedDebater.model_fields))
            )
        if value.lower() in ("none", ""):
            overrides[key] = None
        else:
            overrides[key] = value if key in ("agent", "replay") else float(value)
    return overrides


@lru_cache(maxsize=512)
def _from_string(
    spec: str, index: int, agent: str, seed: int, base_url: str | None
) -> BaseChatModel:
    if spec.split(":")[0] in SIMULATED:
        return SimulatedDebater.for_agent(index, agent=agent, seed=seed, **_parse_simulated(spec))
    if base_url:
        from langchain_openai import ChatOpenAI

        key = os.environ.get("OPENAI_API_KEY", "not-needed")
        return ChatOpenAI(model=spec, base_url=base_url, api_key=key)  # type: ignore[arg-type]
    from langchain.chat_models import init_chat_model

    try:
        return init_chat_model(spec)
    except ImportError as exc:
        raise ModelConfigError(f"model {spec!r}: {exc}") from None
    except ValueError:
        raise ModelConfigError(
            f"unknown model provider in {spec!r}: write it as 'provider:model' "
            "(e.g. 'openai:gpt-4o-mini'), or pass --base-url for an OpenAI-compatible server"
        ) from None
    except Exception as exc:  # provider SDKs raise their own types for missing credentials
        if "api_key" in str(exc).lower() or "credential" in str(exc).lower():
            provider = spec.split(":")[0].upper()
            raise ModelConfigError(
                f"model {spec!r} needs an API key: set {provider}_API_KEY in the environment"
            ) from None
        raise ModelConfigError(
            f"model {spec!r} could not be created: {type(exc).__name__}"
        ) from None


def resolve_model(
    spec: ModelSpec, *, index: int, agent: str, seed: int = 0, base_url: str | None = None
) -> BaseChatModel:
    """The chat model agent number ``index`` uses.

    Args:
        spec: ``"simulated"`` (optionally ``"simulated:skill=0.9,..."``), an
            ``init_chat_model`` string such as ``"openai:gpt-4o-mini"``, a model name served at
            ``base_url``, or a ``BaseChatModel`` (used as is).
        index: Agent index; picks the simulated profile.
        agent: Agent name; part of the simulated model's random draws.
        seed: Seed of the simulated model.
        base_url: An OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp) for bare names.

    Raises:
        ModelConfigError: Unknown provider, missing provider package or missing API key.
    """
    if isinstance(spec, BaseChatModel):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ModelConfigError(
            f"a model spec must be a non-empty string or a chat model, got {spec!r}"
        )
    return _from_string(spec.strip(), index, agent, seed, base_url)


def agent_model(ctx: DebateContext, index: int, *, single_model: bool = False) -> BaseChatModel:
    """The chat model of agent number ``index`` in ``ctx``.

    A single spec serves every agent; a list gives each agent its own. With ``single_model``
    (self-consistency) every agent is a sample of the one spec: the simulated model then keeps
    one profile and varies only its random draws.
    """
    specs: Sequence[ModelSpec] = ctx.models or ("simulated",)
    spec = specs[0] if len(specs) == 1 else specs[index]
    agent = f"a{index + 1}"
    profile = 0 if single_model else index
    return resolve_model(spec, index=profile, agent=agent, seed=ctx.seed, base_url=ctx.base_url)


def agent_models(ctx: DebateContext, *, single_model: bool = False) -> list[BaseChatModel]:
    """One chat model per agent of ``ctx``, checking the specs first.

    Raises:
        ModelConfigError: Wrong number of specs, or a spec that cannot be resolved.
    """
    specs: Sequence[ModelSpec] = ctx.models or ("simulated",)
    if single_model and len(specs) > 1:
        raise ModelConfigError("this method samples one model: pass a single model spec")
    if len(specs) not in (1, ctx.agents):
        raise ModelConfigError(
            f"got {len(specs)} model specs for {ctx.agents} agents: pass one spec, or one per agent"
        )
    return [agent_model(ctx, i, single_model=single_model) for i in range(ctx.agents)]


def model_label(model: BaseChatModel) -> str:
    """A short, secret-free label of a chat model for transcripts."""
    if isinstance(model, SimulatedDebater):
        return model.model_label
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return f"{model._llm_type}:{name}" if name else model._llm_type


def model_credibility_of(label: str) -> float:
    """Credibility ``C`` of an agent's model, from its label (``model_label``).

    A simulated agent replaying a GSM8K source (``"simulated:175b_finetuning"``) gets the size
    of that source's model; a plain ``"simulated"`` agent gets the default size, so simulated
    agents are equally credible and never warn about an unknown model.
    """
    if label in ("simulated", "sim"):
        return credibility(*DEFAULT_MODEL_SIZE)
    return credibility(*lookup_model_size(label))


def agent_credibilities(ctx: DebateContext) -> list[float]:
    """``C`` of every agent of ``ctx``, in agent order."""
    return [model_credibility_of(model_label(agent_model(ctx, i))) for i in range(ctx.agents)]
