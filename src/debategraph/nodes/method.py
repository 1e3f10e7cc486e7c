"""What a debate method is made of: a small bundle of hooks over the debate state.

A round is one or more *phases*. Before each phase the method's ``plan`` hook returns the
phase's :class:`~debategraph.state.records.Call` records (or nothing, which ends the round);
the graph sends each call to its speaker's node; after the phase the ``observe`` hook may fold
the new turns into method state. After each round the ``stop`` hook decides whether another
round follows, and at the end the ``decide`` hook picks the answer. Every hook receives a
:class:`DebateView`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from debategraph.policies.answers import AnswerParser
from debategraph.policies.decisions import decide as apply_rule
from debategraph.policies.decisions import rule_options
from debategraph.policies.types import Decision, Trajectory
from debategraph.policies.voting import derive_seed, unanimous
from debategraph.prompts.common import PromptInput
from debategraph.state.context import DebateConfigError, DebateContext
from debategraph.state.options import MethodOptions, NoOptions
from debategraph.state.records import Call, CallKind, Turn
from debategraph.state.views import latest_by_agent, trajectory

PromptFn = Callable[[PromptInput], str]
"""A prompt template: everything a call may show in, the user message out."""


@dataclass(frozen=True)
class Phase:
    """The calls of one phase, and method state to record with them.

    Attributes:
        calls: The calls, each with an id unique in the debate.
        method_state: Keys to merge into the method state (e.g. the round's debate graph).
    """

    calls: Sequence[Call]
    method_state: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DebateView:
    """What a method's hooks see.

    Attributes:
        method: The method.
        state: The debate state (read-only by convention).
        context: The run's settings.
        options: The method's typed options for this run.
        agents: The agents, in agent order.
        round: The current round (0 is the initial round).
        phase: The current phase of the round (0 first).
    """

    method: Method
    state: Mapping[str, Any]
    context: DebateContext
    options: MethodOptions
    agents: tuple[str, ...]
    round: int
    phase: int = 0

    @property
    def turns(self) -> list[Turn]:
        """Every turn so far, in order."""
        return list(self.state.get("turns") or [])

    @property
    def method_state(self) -> dict[str, Any]:
        """What the method kept across rounds."""
        return dict(self.state.get("method_state") or {})

    @property
    def cut_off(self) -> frozenset[str]:
        """Agents that read no peer turns (the communication attack)."""
        return frozenset(self.state.get("cut_off") or ())

    @property
    def rounds(self) -> int:
        """Debate rounds after the initial round: the context's, else the method's default."""
        return self.method.rounds_for(self.context)

    def latest(self) -> dict[str, Turn]:
        """Each agent's most recent answer turn."""
        return latest_by_agent(self.turns)

    def latest_ids(self) -> dict[str, str]:
        """Each agent's most recent answer turn id."""
        return {a: t["id"] for a, t in self.latest().items()}

    def final_answers(self) -> list[str | None]:
        """Each agent's latest answer, in agent order (``None``: abstained or silent)."""
        latest = self.latest()
        return [latest[a]["answer"] if a in latest else None for a in self.agents]

    def trajectory(self) -> Trajectory:
        """Every agent's answer and confidence in every round."""
        return trajectory(self.turns, self.agents)


Planner = Callable[[DebateView], "Phase | Sequence[Call] | None"]
Observer = Callable[[DebateView], "Mapping[str, Any] | Awaitable[Mapping[str, Any]] | None"]
StopRule = Callable[[DebateView], bool]
Decider = Callable[[DebateView], Decision]
Binder = Callable[[DebateView, Call], Mapping[str, Any]]


def default_stop(view: DebateView) -> bool:
    """Stop after the method's rounds, or at consensus where the method (or context) says so.

    Consensus is checked only from round ``method.min_rounds`` on (CortexDebate debates at
    least once before it may stop at consensus).
    """
    if view.round >= view.rounds:
        return True
    consensus = view.context.stop_on_consensus
    if consensus is None:
        consensus = view.method.stop_on_consensus
    return consensus and view.round >= view.method.min_rounds and unanimous(view.final_answers())


def decide_by_rule(
    view: DebateView, *, trajectory: Trajectory | None = None, **overrides: Any
) -> Decision:
    """Apply the decision rule in force (the context's, else the method's) to the trajectory.

    Rule options come from ``context.decision_options``; the engine adds the tie policy, the
    method's all-differ rule and, for ``credibility``, each agent's credibility from the model
    label of its turns. Random tie-breaks are seeded per item: ``derive_seed(context.seed,
    item_id or question)``, so a dataset's ties do not all fall the same way. ``overrides``
    replace engine-supplied options. ``trajectory`` replaces the answer turns' trajectory (a
    method whose agents' stances are not answer turns, such as SVR-MAD's pairwise debates).
    """
    ctx = view.context
    rule = ctx.decision or view.method.decision
    accepted = rule_options(rule)
    engine: dict[str, Any] = {
        "tie_policy": ctx.tie_policy,
        "no_answer_if_all_differ": view.method.no_answer_if_all_differ,
        **overrides,
    }
    options = {k: v for k, v in engine.items() if k in accepted}
    options.update(ctx.decision_options)
    threshold = options.pop("group_by_meaning", None)
    embeddings = options.pop("embeddings", "hashing")
    path = view.trajectory() if trajectory is None else trajectory
    groups: dict[str, str] = {}
    if threshold is not None:
        path, groups = group_trajectory(path, threshold, embeddings)
    if rule == "credibility" and "weights" not in options:
        from debategraph.policies.mdm_scalar import label_credibility

        latest = view.latest()
        options["weights"] = [
            label_credibility(latest[a]["model"] if a in latest else "simulated")
            for a in view.agents
        ]
    key = view.state.get("item_id") or view.state.get("question") or ""
    try:
        decision = apply_rule(rule, path, seed=derive_seed(ctx.seed, str(key)), **options)
    except (TypeError, ValueError) as exc:
        raise DebateConfigError(f"decision rule {rule!r}: {exc}") from None
    if groups:
        merged = {a: r for a, r in groups.items() if a != r}
        decision = Decision(decision.answer, decision.rule, {**decision.evidence, "merged": merged})
    return decision


def group_trajectory(
    path: Trajectory, threshold: object, embeddings: object
) -> tuple[Trajectory, dict[str, str]]:
    """The trajectory with answers that mean the same replaced by one representative.

    Answers are embedded (``embeddings``: a spec such as ``hashing`` or ``minilm``) and
    grouped by cosine similarity at or above ``threshold`` with a faiss range search
    (``debategraph.policies.similarity``). Decision option ``group_by_meaning=0.9`` turns it
    on, for free-text (``text``) tasks above all.

    Raises:
        DebateConfigError: A bad threshold or embeddings spec.
    """
    from debategraph.models.embeddings import embeddings_for
    from debategraph.policies.similarity import meaning_groups

    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise DebateConfigError(f"group_by_meaning must be a number in (0, 1], got {threshold!r}")
    distinct = list(dict.fromkeys(a for row in path.answers for a in row if a is not None))
    if not distinct:
        return path, {}
    try:
        vectors = embeddings_for(str(embeddings)).embed_documents(distinct)
        groups = meaning_groups(distinct, vectors, float(threshold))
    except ValueError as exc:
        raise DebateConfigError(f"group_by_meaning: {exc}") from None
    answers = [[None if a is None else groups[a] for a in row] for row in path.answers]
    return Trajectory(path.agents, answers, path.confidences), groups


@dataclass(frozen=True, kw_only=True)
class Method:
    """A debate method: prompts and the hooks that plan, observe, stop and decide.

    Attributes:
        name: Registry name (``du``, ``cortex``, ...).
        description: One line for ``--help`` and docs.
        prompts: Prompt templates by name (``initial``, ``debate``, ...).
        plan: Returns the next phase's calls of the current round, or ``None`` to end it.
            Round 0 goes through it too.
        observe: Runs after every phase (sync or async); returns keys to merge into the
            method state.
        stop: Whether the debate ends after the current round (default: the round limit, and
            consensus where the method or context asks for it).
        decide: Picks the answer (default: the decision rule by name over the trajectory).
        options: The class of the method's typed options.
        default_options: Option values that replace the class defaults (see ``configure``).
        bind: Extra model-call keyword arguments for a call (e.g. ``logprobs=True``).
        roles: Role nodes the method's calls use besides the agents (``summarizer``, ...).
        system: Optional system prompt of every call.
        decision: Default decision rule name.
        confidence: Ask agents for a confidence line.
        default_agents: Agents when the caller gives none.
        default_rounds: Debate rounds when the caller gives none.
        stop_on_consensus: Stop early once every agent agrees.
        min_rounds: First round at which the consensus stop may fire.
        single_model: Every agent is a sample of one model (self-consistency).
        no_answer_if_all_differ: The vote returns "no answer" when all answers differ.
        max_phases: Most phases a round may have (bounds the graph's steps).
        round_bound: Most debate rounds the method may run, given the view at round 0
            (default: the rounds in force); it sets the recursion limit.
        parser: How the method's answers are read, ``(response, task, num_choices) ->
            Extraction`` (default: the task's built-in parser); a graph's ``parser`` wins.
    """

    name: str
    description: str
    prompts: Mapping[str, PromptFn]
    plan: Planner
    observe: Observer | None = None
    stop: StopRule = default_stop
    decide: Decider = decide_by_rule
    options: type[MethodOptions] = NoOptions
    default_options: MethodOptions | None = None
    bind: Binder | None = None
    roles: tuple[str, ...] = ()
    system: str | None = None
    decision: str = "majority"
    confidence: bool = False
    default_agents: int = 3
    default_rounds: int = 2
    stop_on_consensus: bool = False
    min_rounds: int = 0
    single_model: bool = False
    no_answer_if_all_differ: bool = False
    max_phases: int = 1
    round_bound: Callable[[DebateView], int] | None = None
    parser: AnswerParser | None = None

    def rounds_for(self, context: DebateContext) -> int:
        """Debate rounds in force: the context's, else the method's default."""
        return self.default_rounds if context.rounds is None else context.rounds

    def options_for(self, context: DebateContext) -> MethodOptions:
        """The method's typed options for a run: defaults, then the context's values.

        Raises:
            DebateConfigError: Unknown keys or bad values; the message names the method.
        """
        given = context.method_options
        if not given and not isinstance(given, MethodOptions):
            return self.default_options or self._class_defaults
        # Every node of every call asks: the last answer is kept while the context's options
        # are the same object with the same values (options objects are frozen).
        memo = self.__dict__.get("_options_memo")
        if memo is not None and memo[0] is given and memo[1] == given:
            return memo[2]
        base = self.default_options or self._class_defaults
        try:
            if isinstance(given, MethodOptions):
                options = self.options.coerce(given)
            else:
                self.options.coerce(given)  # unknown keys and bad values, named
                options = dataclasses.replace(base, **dict(given))
        except (TypeError, ValueError) as exc:
            raise DebateConfigError(f"{self.name} options: {exc}") from None
        snapshot = given if isinstance(given, MethodOptions) else dict(given)
        object.__setattr__(self, "_options_memo", (given, snapshot, options))
        return options

    @cached_property
    def _class_defaults(self) -> MethodOptions:
        """The options class's defaults (options are frozen: one instance serves every call)."""
        return self.options()

    def configure(self, **options: Any) -> Method:
        """This method with other default option values (objects allowed, e.g. embeddings).

        Raises:
            DebateConfigError: Unknown keys or bad values.
        """
        base = self.default_options or self.options()
        try:
            self.options.coerce({k: v for k, v in options.items()})
            return dataclasses.replace(self, default_options=dataclasses.replace(base, **options))
        except (TypeError, ValueError) as exc:
            raise DebateConfigError(f"{self.name} options: {exc}") from None

    def max_rounds(self, view: DebateView) -> int:
        """Most debate rounds this run may take (for the recursion limit)."""
        return self.round_bound(view) if self.round_bound is not None else view.rounds


def call(
    view: DebateView,
    speaker: str,
    *,
    kind: CallKind = "answer",
    reads: Sequence[str] = (),
    prompt: str,
    history: bool = False,
    id: str | None = None,
    vars: Mapping[str, Any] | None = None,
) -> Call:
    """A call of the current round; its id defaults to ``r{round}:{speaker}``."""
    return Call(
        id=id or f"r{view.round}:{speaker}",
        kind=kind,
        speaker=speaker,
        round=view.round,
        reads=list(reads),
        prompt=prompt,
        vars=dict(vars or {}),
        history=history,
    )


def initial_calls(view: DebateView) -> list[Call]:
    """Every agent answers alone with the ``initial`` prompt."""
    return [call(view, agent, prompt="initial") for agent in view.agents]


def debate_calls(
    view: DebateView, reads: Mapping[str, Sequence[str]], *, history: bool
) -> list[Call]:
    """An answer call per agent: ``debate`` with what it reads, ``reflect`` with nothing.

    Cut-off agents (the communication attack) read nothing and reflect on their own answer.
    """
    calls = []
    for agent in view.agents:
        shown = [] if agent in view.cut_off else list(reads.get(agent, ()))
        calls.append(
            call(view, agent, reads=shown, prompt="debate" if shown else "reflect", history=history)
        )
    return calls


def debate_planner(
    reads: Callable[[Sequence[str], Mapping[str, str]], Mapping[str, Sequence[str]]],
    *,
    history: bool,
) -> Planner:
    """A one-phase planner: everyone answers alone in round 0, then reads ``reads(...)``.

    Args:
        reads: ``(agents, latest answer ids) -> turn ids each agent reads`` (a topology).
        history: Agents see their own earlier answers as chat history.
    """

    def plan(view: DebateView) -> list[Call] | None:
        if view.phase > 0:
            return None
        if view.round == 0:
            return initial_calls(view)
        return debate_calls(view, reads(view.agents, view.latest_ids()), history=history)

    return plan
