"""Run-time configuration of a debate, passed as LangGraph ``context``.

Everything here is plain JSON, so LangGraph Studio can show it as a form and send it back.
Objects (chat models, a shared call limiter, embeddings) are components, not settings: pass
them to ``build_debate_graph`` / ``run`` instead. A context is checked when it is made, so
Python, Studio and the command line reject bad settings with the same message.
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, get_args
from urllib.parse import urlsplit

from pydantic import ConfigDict

from debategraph.errors import ConfigurationError
from debategraph.policies.attack import choose_cut_off
from debategraph.policies.secrets import redact_url, remember_secrets, url_secrets
from debategraph.policies.thinking import thinking_problem
from debategraph.policies.voting import TiePolicy
from debategraph.state.options import MethodOptions
from debategraph.state.setting import SEED_MAX, Bounds, Setting, integer, number, one_of, setting

MAX_AGENTS = 64
"""Most agents a debate may have unless ``allow_large`` is set."""

MAX_ROUNDS = 20
"""Most debate rounds a debate may have unless ``allow_large`` is set."""

MAX_TEMPERATURE = 2.0
"""Highest sampling temperature unless ``allow_large`` is set (OpenAI's own bound)."""


PEER_REASONING = ("none", "full")
"""What peers see of a turn's thinking: ``none`` (its answer part only) or ``full``."""

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
"""The ``reasoning_effort`` values OpenAI's API and vLLM take."""


class DebateConfigError(ConfigurationError):
    """Invalid debate settings, caught before any model is called; the message says what to fix."""


@dataclass(kw_only=True)
class DebateContext:
    """Configuration of one debate run (the ``context_schema`` of every debategraph graph).

    Every field is optional; ``None`` means "the method's default" where that applies.
    """

    __pydantic_config__ = ConfigDict(use_attribute_docstrings=True)

    agents: int | None = setting(
        "debate",
        help="Number of agents (method default).",
        check=integer(1, "at least 1"),
        bounds=Bounds(1, 10_000),
    )
    """Number of agents. Must equal the graph's roster when given; build a graph for another
    roster with ``build_debate_graph(method, agents=N)``."""
    rounds: int | None = setting(
        "debate",
        help="Debate rounds after the initial answers (method default); cot, sc and mav never "
        "debate: run refuses rounds above 0 for them, eval leaves them out of theirs.",
        check=integer(0, "0 or more"),
        bounds=Bounds(0, 10_000),
    )
    """Debate rounds after the first answers (0: none; unset: the method's); cot, sc, mav take 0."""
    models: list[str] | None = setting(
        "debate",
        flag="--model",
        help="'simulated' (default), 'provider:model', or a name served at --base-url; "
        "repeat to give each agent its own.",
        cli_type=list[str] | None,
        parse="models",
        voting=True,
    )
    """Model specs: one for every agent or one per agent. ``simulated`` (offline),
    ``provider:model`` (e.g. ``openai:gpt-4o-mini``), or a model name served at ``base_url``."""
    base_url: str | None = setting(
        "debate", help="OpenAI-compatible endpoint for --model names.", voting=True
    )
    """An OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp) serving the named models."""
    role_models: dict[str, str] = setting("debate", factory=dict)
    """Model specs for a method's roles (``summarizer``, ``evaluator``); the first agent's
    model by default."""
    seed: int = setting(
        "debate",
        default=0,
        help="Seed of every random choice.",
        commands=("run",),
        cli_type=int,
        voting=True,
        check=integer(),
        bounds=Bounds(0, SEED_MAX),
    )
    """Seed of everything random: simulated models, tie-breaks, cut-off agents."""
    tie_policy: TiePolicy = setting(
        "debate",
        default="first",
        help="Majority-vote ties: first, random or confidence.",
        cli_type=str,
        voting=True,
    )
    """How majority-vote ties are broken: ``first``, ``random`` or ``confidence``."""
    decision: str | None = setting(
        "debate", help="Decision rule overriding the method's own (debategraph rules lists them)."
    )
    """A decision rule by name (``majority``, ``freemad``, ``reconcile``, ``credibility``,
    ``supermajority``, ``unanimity``, ``approval``, ``cumulative``, ``ranked``, ``judge``, a
    plugin's, or ``package.module:ATTR``), overriding the method's own."""
    decision_options: dict[str, Any] = setting(
        "debate",
        factory=dict,
        flag="--decision-option",
        help="KEY=VALUE option of the decision rule (e.g. weights=20,25,30,20); repeat.",
        cli_type=list[str] | None,
        parse="pairs",
    )
    """Options of the decision rule, e.g. Free-MAD's ``weights``."""
    method_options: dict[str, Any] | MethodOptions = setting(
        "debate",
        factory=dict,
        key="options",
        flag="--option",
        help="KEY=VALUE option of the method (e.g. prune=top_k for cortex); repeat. "
        "See the method's card in docs/methods.",
        cli_type=list[str] | None,
        parse="method_pairs",
    )
    """The method's options (see its card in ``docs/methods``); unknown keys are errors."""
    anonymize: bool = setting("debate", default=True)
    """Show peers' turns without their names."""
    peer_reasoning: str = setting(
        "debate",
        default="none",
        help="What debating agents see of a peer's thinking (reasoning models): none (its "
        "answer part only) or full (its thinking too, delimited).",
        cli_type=str,
        check=one_of(PEER_REASONING),
    )
    """What debating agents see of a peer turn's thinking: ``none`` (the answer part only;
    the default) or ``full`` (the thinking too, between ``[thinking]`` and ``[/thinking]``).
    Summaries, judges, evaluators, decision calls and an agent's own history read the answer
    part whatever this says."""
    stop_on_consensus: bool | None = setting("debate")
    """Stop once all agents agree; the method's default if unset."""
    cut_off: list[str] = setting(
        "attack",
        factory=list,
        help="Communication attack: this agent reads no peers; repeat.",
        commands=("run",),
        cli_type=list[str] | None,
        parse="list",
    )
    """Agents that receive no peer turns (the communication attack)."""
    attack: bool = setting(
        "attack",
        default=False,
        help="Communication attack on one agent, chosen with --seed.",
        commands=("run",),
    )
    """Cut off one agent, chosen with ``seed``."""
    attack_ratio: float | None = setting(
        "attack",
        help="Communication attack on this proportion of agents.",
        commands=("run",),
        bounds=Bounds(0, 1, whole=False),
    )
    """Cut off this proportion of agents (0 to 1), chosen with ``seed``."""
    adversaries: dict[str, str] = setting(
        "attack",
        factory=dict,
        flag="--adversary",
        help="AGENT=ANSWER: the agent argues for this wrong answer; repeat.",
        commands=("run",),
        cli_type=list[str] | None,
        parse="agent_pairs",
        form=("AGENT=ANSWER", "a3=42"),
    )
    """Adversarial agents, each mapped to the wrong answer it argues for."""
    personas: dict[str, str] = setting(
        "debate",
        factory=dict,
        flag="--persona",
        help="AGENT=TEXT: the agent's role prompt, its system prompt on every call "
        "(e.g. a1='You are a careful accountant.'); repeat.",
        commands=("run",),
        cli_type=list[str] | None,
        parse="agent_pairs",
        form=("AGENT=TEXT", "a1='You are a careful reviewer.'"),
    )
    """A role prompt per agent (``{"a1": "You are a careful accountant."}``), sent as the
    system prompt of each of that agent's calls, before the method's own; any method."""
    settings: str | None = setting(
        "generation",
        help="A sampling preset of the method: 'paper' is the temperature, top-p and top-k "
        "its paper ran with (see its card); --temperature, --top-p and --top-k win.",
    )
    """A sampling preset of the method: ``paper`` is the temperature, top-p and top-k its
    paper ran with (see the method's card). ``temperature``, ``top_p`` and ``top_k`` given
    here win over the preset's."""
    temperature: float | None = setting(
        "generation",
        help="Sampling temperature of every call.",
        sent=True,
        voting=True,
        check=number(),
        bounds=Bounds(0, 100, whole=False),
    )
    """Sampling temperature of every model call; the model's default if unset."""
    top_p: float | None = setting(
        "generation",
        help="Nucleus-sampling top-p of every call.",
        sent=True,
        voting=True,
        check=number(lambda p: 0 < p <= 1, "above 0 and at most 1"),
        bounds=Bounds(0, 1, above=True, whole=False),
    )
    """Nucleus-sampling ``top_p`` of every model call; the model's default if unset."""
    top_k: int | None = setting(
        "generation",
        help="Sample among the K most likely tokens (vLLM, llama.cpp, Ollama; not OpenAI's "
        "API); 0 sends none, even when --settings has one.",
        sent="nonzero",
        voting=True,
        check=integer(0, "0 (none) or more"),
        bounds=Bounds(0, 1_000_000),
    )
    """Sample among the ``top_k`` most likely tokens (vLLM, llama.cpp and Ollama take it,
    OpenAI's API does not); ``0`` sends none, even when the preset has one."""
    max_tokens: int | None = setting(
        "generation",
        help="Most tokens generated per call.",
        sent=True,
        voting=True,
        check=integer(1, "at least 1"),
        bounds=Bounds(1, 10_000_000),
    )
    """Most tokens a model may generate per call; the model's default if unset."""
    stop: list[str] | None = setting(
        "generation",
        help="A stop sequence; repeat.",
        cli_type=list[str] | None,
        parse="list",
        sent=True,
        voting=True,
    )
    """Stop sequences of every model call."""
    frequency_penalty: float | None = setting(
        "generation",
        help="Penalty on tokens by how often they already occur in the reply "
        "(OpenAI's API, vLLM, llama.cpp).",
        sent=True,
        voting=True,
        check=number(lambda p: -2 <= p <= 2, "between -2 and 2"),
        bounds=Bounds(-2, 2, whole=False),
    )
    """Penalise tokens by how often they already occur in the reply (-2 to 2), sent as the
    ``frequency_penalty`` of every call on an OpenAI-wire server; the model's default if
    unset."""
    reasoning_effort: str | None = setting(
        "generation",
        help="How hard a reasoning model thinks: "
        + ", ".join(REASONING_EFFORTS)
        + " (OpenAI's reasoning models, GPT-OSS on vLLM).",
        sent=True,
        voting=True,
        check=one_of(REASONING_EFFORTS),
    )
    """How hard a reasoning model thinks before it answers (``low``, ``medium``, ``high``...),
    sent as the ``reasoning_effort`` of every call (OpenAI's reasoning models, GPT-OSS served
    by vLLM); the model's default if unset."""
    thinking: dict[str, str] = setting(
        "generation",
        factory=dict,
        flag="--thinking",
        help="AGENT=on|off|N: switch an agent's thinking on or off, or bound it to N tokens, "
        "on an OpenAI-compatible server (--base-url; '*' is every agent and role); repeat.",
        cli_type=list[str] | None,
        parse="agent_pairs",
        form=("AGENT=on|off|N", "a2=off"),
    )
    """Thinking per agent (or role; ``"*"`` for every speaker) on an OpenAI-compatible server:
    ``off``/``on`` send ``chat_template_kwargs: {"enable_thinking": ...}``, a whole number ``N``
    a thinking-token budget (see :func:`debategraph.policies.thinking.thinking_body`). Refused
    before any request for a model not served at ``base_url``."""
    timeout: float | None = setting(
        "generation",
        help="Seconds one model call may take, its whole reply included, before it fails "
        "and is retried.",
        voting=True,
        check=number(lambda s: s > 0, "more than 0 seconds"),
        bounds=Bounds(0, 86_400, above=True, whole=False),
    )
    """Seconds a model request may take before it fails (and is retried)."""
    logprobs: bool = setting("generation", default=False, help="Ask every call for token logprobs.")
    """Ask every model call for token logprobs (methods that need them ask on their own)."""
    max_concurrency: int | None = setting("generation", check=integer(1, "at least 1"))
    """Most model calls of this debate in flight at once (unset: as many as a round makes).
    Set 1 for a local server that serves one request at a time (llama.cpp without parallel
    slots truncates concurrent streamed replies)."""
    allow_large: bool = setting(
        "debate", default=False, help="Allow more than 64 agents or 20 rounds."
    )
    """Allow more than 64 agents or 20 rounds, and a temperature above 2."""

    def __new__(cls, *args: Any, **kwargs: Any) -> DebateContext:
        """Refuse a misspelt setting before the dataclass sees it.

        LangGraph makes a run's context from a dict with ``DebateContext(**dict)``: an
        unknown key gets the setting it was likely meant as, not a ``TypeError``.
        """
        unknown_keys(kwargs)
        return super().__new__(cls)

    def __post_init__(self) -> None:
        for name, declared, optional in _declared():
            value = getattr(self, name)
            if declared.check is None or (value is None and optional):
                continue
            problem = declared.check(name, value)
            if problem is not None:
                raise DebateConfigError(problem)
        self._check_size()
        if self.models is not None:
            self.models = _model_specs(self.models)
        if self.base_url is not None:
            _check_base_url(self.base_url)
        if self.tie_policy not in get_args(TiePolicy):
            raise DebateConfigError(
                f"tie policy must be first, random or confidence, got {self.tie_policy!r}"
            )
        if self.decision is not None and (
            not isinstance(self.decision, str) or not self.decision.strip()
        ):
            raise DebateConfigError(
                f"decision must be a rule name or 'package.module:ATTR', got {self.decision!r}"
            )
        self._check_mappings()
        self._check_attack()
        self._check_generation()

    def _check_size(self) -> None:
        """At most 64 agents and 20 rounds unless ``allow_large`` is set."""
        if self.allow_large:
            return
        for name, value, most in (
            ("agents", self.agents, MAX_AGENTS),
            ("rounds", self.rounds, MAX_ROUNDS),
        ):
            if value is not None and value > most:
                raise DebateConfigError(
                    f"{name} must be at most {most}, got {value} "
                    "(set allow_large, or --allow-large, to go beyond)"
                )

    def _check_mappings(self) -> None:
        """The settings given per agent, role or option name are mappings of good values."""
        for name in ("decision_options", "role_models", "adversaries", "personas", "thinking"):
            if not isinstance(getattr(self, name), Mapping):
                raise DebateConfigError(f"{name} must be a mapping, got {getattr(self, name)!r}")
        if not isinstance(self.method_options, Mapping | MethodOptions):
            raise DebateConfigError(
                f"method_options must be a mapping of option names to values, "
                f"got {self.method_options!r}"
            )
        self.role_models = {str(k): _model_specs([v])[0] for k, v in self.role_models.items()}
        for agent, target in self.adversaries.items():
            if not isinstance(target, str) or not target.strip():
                raise DebateConfigError(
                    f"adversary {agent} needs a non-empty answer, got {target!r}"
                )
        for agent, value in self.thinking.items():
            problem = thinking_problem(value)
            if problem is not None:
                raise DebateConfigError(f"thinking of {agent} {problem}")
        for agent, persona in self.personas.items():
            if not isinstance(persona, str) or not persona.strip():
                raise DebateConfigError(
                    f"persona of {agent} must be a non-empty role prompt, got {persona!r}"
                )

    def _check_attack(self) -> None:
        """Cut-off agents by name, or an attack by count or ratio, not both."""
        self.cut_off = _names("cut_off", self.cut_off)
        if self.attack_ratio is None and not self.attack:
            return
        if self.cut_off:
            raise DebateConfigError("give either cut_off agents or attack / attack_ratio, not both")
        ratio = self.attack_ratio
        if ratio is not None and (
            isinstance(ratio, bool)
            or not isinstance(ratio, int | float)
            or not 0 <= ratio <= 1
            or not math.isfinite(ratio)
        ):
            raise DebateConfigError(
                f"attack ratio must be a number in [0, 1], got {self.attack_ratio!r}"
            )

    def _check_generation(self) -> None:
        """Generation settings in the ranges providers accept (checked before any call)."""
        if self.temperature is not None and not (
            0 <= self.temperature <= MAX_TEMPERATURE or (self.allow_large and self.temperature >= 0)
        ):
            raise DebateConfigError(
                f"temperature must be between 0 and {MAX_TEMPERATURE:g}, got {self.temperature} "
                "(set allow_large, or --allow-large, for a server that takes more)"
            )
        if self.settings is not None and (
            not isinstance(self.settings, str) or not self.settings.strip()
        ):
            raise DebateConfigError(
                f"settings must name a sampling preset (e.g. 'paper'), got {self.settings!r}"
            )
        if self.stop is not None:
            if isinstance(self.stop, str) or not isinstance(self.stop, Sequence):
                raise DebateConfigError(f"stop must be a list of strings, got {self.stop!r}")
            if not all(isinstance(s, str) and s for s in self.stop):
                raise DebateConfigError(
                    f"stop sequences must be non-empty strings, got {list(self.stop)!r} (an "
                    "empty one would end every reply before it starts)"
                )
            self.stop = list(self.stop)

    @classmethod
    def of(cls, value: object) -> DebateContext:
        """The debate context in a node's runtime, defaults where there is none.

        A graph run without a context (or inside a parent app whose context is another type)
        uses the defaults; a dict, as LangGraph Studio sends it, is read as field values.

        Raises:
            DebateConfigError: A dict with a key that is no setting (a misspelt one is named
                with the setting it was likely meant as), or a bad value.
        """
        if isinstance(value, cls):
            return value
        if isinstance(value, Mapping):
            return cls(**value)
        return cls()

    def validate(self, agents: Sequence[str], *, single_model: bool = False) -> None:
        """Check the settings that depend on the graph's roster.

        Args:
            agents: The agent names of the graph, in agent order.
            single_model: The method samples one model (self-consistency).

        Raises:
            DebateConfigError: Another number of agents than the graph's, unknown cut-off or
                adversary agents, or a model count that fits neither one nor every agent.
        """
        if self.agents is not None and self.agents != len(agents):
            raise DebateConfigError(
                f"this graph debates with {len(agents)} agents ({', '.join(agents)}), but the "
                f"context asks for {self.agents}: build a graph for {self.agents} agents with "
                f"build_debate_graph(method, agents={self.agents}), or leave agents unset"
            )
        for name, chosen in (
            ("cut-off", self.cut_off),
            ("adversary", list(self.adversaries)),
            ("persona", list(self.personas)),
            ("thinking", [a for a in self.thinking if a != "*"]),
        ):
            unknown = sorted(set(chosen) - set(agents))
            if unknown:
                raise DebateConfigError(f"{name} agents {unknown} are not among {list(agents)}")
        if self.models is not None:
            if single_model and len(self.models) > 1:
                raise DebateConfigError("this method samples one model: pass a single model spec")
            if len(self.models) not in (1, len(agents)):
                raise DebateConfigError(
                    f"got {len(self.models)} model specs for {len(agents)} agents: pass one "
                    "spec, or one per agent"
                )

    def cut_off_agents(self, agents: Sequence[str]) -> list[str]:
        """The agents the communication attack cuts off, in agent order (seeded choice)."""
        if self.attack or self.attack_ratio is not None:
            return choose_cut_off(list(agents), self.attack_ratio, self.seed)
        return [a for a in agents if a in set(self.cut_off)]

    def thinking_for(self, speaker: str) -> str | None:
        """The speaker's ``thinking`` value (its own, else ``"*"``'s), or ``None``."""
        value = self.thinking.get(speaker, self.thinking.get("*"))
        return None if value is None else str(value)

    def generation(self) -> dict[str, Any]:
        """The generation settings that are set, as model call keyword arguments.

        They are the settings declared ``sent`` (see :mod:`debategraph.state.setting`); one
        sent ``"nonzero"`` is left out at 0.
        """
        settings = {}
        for name, declared, _ in _declared():
            value = getattr(self, name) if declared.sent else None
            if value is not None and (value or declared.sent is True):
                settings[name] = value
        return settings


@functools.cache
def _declared() -> tuple[tuple[str, Setting, bool], ...]:
    """Each field's declaration, and whether the field may be ``None`` unchecked."""
    return tuple((f.name, f.metadata["setting"], f.default is None) for f in fields(DebateContext))


def unknown_keys(given: Mapping[str, Any]) -> None:
    """Refuse keys that are no :class:`DebateContext` setting, naming the likely one meant.

    Raises:
        DebateConfigError: The unknown keys, close matches, and every valid key.
    """
    fields = DebateContext.__dataclass_fields__
    hints = key_hints(given, fields)
    if hints:
        raise DebateConfigError(
            f"unknown context key(s) {', '.join(hints)}; valid keys: {', '.join(sorted(fields))}"
        )


def key_hints(given: Iterable[object], valid: Collection[str]) -> list[str]:
    """Each key of ``given`` that ``valid`` lacks, quoted, with the valid key likely meant.

    Args:
        given: The keys given.
        valid: The keys that exist.

    Returns:
        ``'questions' (did you mean 'question'?)`` or ``'xyz'`` per unknown key, in order.
    """
    hints = []
    for key in given:
        if key not in valid:
            close = difflib.get_close_matches(str(key), list(valid), n=1)
            hints.append(f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key))
    return hints


def _names(field_name: str, value: object) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise DebateConfigError(f"{field_name} must be a list of strings, got {value!r}")
    names = list(value)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise DebateConfigError(f"{field_name} must be a list of strings, got {value!r}")
    return names


def _model_specs(value: object) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise DebateConfigError(
            f"models must be a non-empty list of model spec strings, got {value!r}"
        )
    specs = []
    for spec in value:
        if not isinstance(spec, str):
            raise DebateConfigError(
                f"a context holds model spec strings, got {type(spec).__name__}: pass model "
                "objects to build_debate_graph(agents=[Agent(name, model)]) or run(model=...)"
            )
        text = spec.strip()
        if not text or text.endswith(":") or text.startswith(":"):
            raise DebateConfigError(
                f"bad model spec {spec!r}: write 'simulated', 'provider:model' "
                "(e.g. 'openai:gpt-4o-mini') or a model name served at base_url"
            )
        specs.append(text)
    return specs


def _check_base_url(url: object) -> None:
    if not isinstance(url, str):
        raise DebateConfigError(f"base_url must be a string, got {url!r}")
    shown = redact_url(url)
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise DebateConfigError(
            f"base_url {shown!r} has a bad port: a port is a number from 1 to 65535"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DebateConfigError(
            f"base_url must be an http(s) URL such as http://127.0.0.1:8080/v1, got {shown!r}"
        )
    if port == 0:
        raise DebateConfigError(f"base_url {shown!r} has port 0: use the server's port")
    remember_secrets(url_secrets(url))
