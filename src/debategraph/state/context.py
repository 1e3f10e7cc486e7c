"""Run-time configuration of a debate, passed as LangGraph ``context``."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from debategraph.policies.voting import TiePolicy
from debategraph.state.options import CortexOptions

ModelSpec = str | BaseChatModel
"""``"simulated"``, an ``init_chat_model`` string (``"openai:gpt-4o-mini"``), or a model."""


@dataclass(kw_only=True)
class DebateContext:
    """Configuration of one debate run (``context_schema`` of every debategraph graph).

    Attributes:
        agents: Number of agents (samples, for self-consistency).
        rounds: Debate rounds after the initial answers (0: no debate).
        models: One spec for every agent, or one per agent (a heterogeneous debate).
        base_url: An OpenAI-compatible endpoint serving the named models (vLLM, Ollama, ...).
        seed: Seed of everything random: simulated models, tie-breaks, cut-off agents.
        tie_policy: How majority-vote ties are broken: ``first``, ``random`` or ``confidence``.
        decision: A decision rule by name, overriding the method's own.
        anonymize: Show peers' answers without their names (reduces identity bias).
        stop_on_consensus: Stop once all agents agree; ``None`` keeps the method's default.
        cut_off: Agents that receive no peer answers (the communication attack).
        adversaries: Adversarial agents, each mapped to the wrong answer it argues for.
        call_limiter: Bounds in-flight model calls across every debate that shares it (an
            evaluation runs many debates at once); ``None`` leaves it to ``max_concurrency``.
        options: Method-specific options (see each method's card in ``docs/methods``).
        cortex: Options of the ``cortex`` method (CortexDebate).
    """

    agents: int = 3
    rounds: int = 2
    models: Sequence[ModelSpec] = ("simulated",)
    base_url: str | None = None
    seed: int = 0
    tie_policy: TiePolicy = "first"
    decision: str | None = None
    anonymize: bool = True
    stop_on_consensus: bool | None = None
    cut_off: Sequence[str] = ()
    adversaries: dict[str, str] = field(default_factory=dict)
    call_limiter: asyncio.Semaphore | None = None
    options: dict[str, Any] = field(default_factory=dict)
    cortex: CortexOptions = field(default_factory=CortexOptions)

    def __post_init__(self) -> None:
        # LangGraph Studio sends the context as JSON, so nested options arrive as a dict.
        self.cortex = CortexOptions.coerce(self.cortex)

    @property
    def agent_names(self) -> list[str]:
        """Agent names ``a1`` .. ``aN`` in agent order."""
        return agent_names(self.agents)


def agent_names(n: int) -> list[str]:
    """Names of ``n`` agents: ``a1`` .. ``an``."""
    return [f"a{i}" for i in range(1, n + 1)]
