"""What a debate method is made of: a small bundle of hooks over the debate state.

A round is one or more *phases*. Before each phase the method's ``plan`` hook returns the
phase's :class:`~debategraph.state.records.Call` records (or nothing, which ends the round);
the graph sends each call to its speaker's node; after the phase the ``observe`` hook may fold
the new turns into method state. The engine asks the planner at most ``max_phases`` times a
round and tells it where it is (``view.phase``, ``view.made``), so a one-phase planner needs
no guard of its own. After each round the ``stop`` hook decides whether another round
follows, and at the end the ``decide`` hook picks the answer. Every hook receives a
:class:`DebateView`, typed by the method's options class.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, cast

from typing_extensions import TypeVar

from debategraph.methods.rules import get_rule, list_rules
from debategraph.policies.answers import AnswerParser
from debategraph.policies.ballots import DEFAULT_POINTS
from debategraph.policies.decisions import apply_rule, rule_options
from debategraph.policies.rule_needs import RuleNeeds, rule_needs
from debategraph.policies.sampling import SamplingPreset
from debategraph.policies.types import Decision, Trajectory
from debategraph.policies.voting import derive_seed, unanimous
from debategraph.prompts.common import PromptInput
from debategraph.state.context import DebateConfigError, DebateContext
from debategraph.state.decision_inputs import ballots_of, implied_ballot, judged_of
from debategraph.state.options import MethodOptions, NoOptions
from debategraph.state.records import Call, CallKind, Turn
from debategraph.state.views import latest_by_agent, trajectory

OptionsT = TypeVar("OptionsT", bound=MethodOptions, default=MethodOptions)
"""The options class of a method (and of the view its hooks receive)."""

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
class DebateView(Generic[OptionsT]):
    """What a method's hooks see.

    Attributes:
        method: The method.
        state: The debate state (read-only by convention).
        context: The run's settings.
        options: The method's typed options for this run.
        agents: The agents, in agent order.
        round: The current round (0 is the initial round).
        phase: The phase of the round being planned or just observed (0 first).
    """

    method: Method[OptionsT]
    state: Mapping[str, Any]
    context: DebateContext
    options: OptionsT
    agents: tuple[str, ...]
    round: int
    phase: int = 0

    @property
    def turns(self) -> list[Turn]:
        """Every turn so far, in order."""
        return list(self.state.get("turns") or [])

    @cached_property
    def made(self) -> tuple[str, ...]:
        """Ids of the calls already made this round (every phase before this one), in order."""
        return tuple(t["id"] for t in self.state.get("turns") or () if t["round"] == self.round)

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


Planner = Callable[[DebateView[OptionsT]], "Phase | Sequence[Call] | None"]
"""``plan(view)``: the next phase's calls (a :class:`Phase` or a list), or ``None``."""
Observer = Callable[
    [DebateView[OptionsT]], "Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None"
]
"""``observe(view)``: keys to merge into the method state after a phase (sync or async)."""
StopRule = Callable[[DebateView[OptionsT]], bool]
"""``stop(view)``: whether the debate ends after the current round."""
Decider = Callable[[DebateView[OptionsT]], Decision]
"""``decide(view)``: the final decision."""
Binder = Callable[[DebateView[OptionsT], Call], Mapping[str, Any]]
"""``bind(view, call)``: extra model-call keyword arguments for one call."""


def default_stop(view: DebateView[Any]) -> bool:
    """Stop after the method's rounds, or at consensus where the method (or context) says so.

    Consensus is checked only from round ``method.min_rounds`` on (CortexDebate debates at
    least once before it may stop at consensus).
    """
    if view.round >= view.rounds:
        return True
    return (
        stops_at_consensus(view)
        and view.round >= view.method.min_rounds
        and unanimous(view.final_answers())
    )


def stops_at_consensus(view: DebateView[Any]) -> bool:
    """Whether the debate stops at consensus: the context says so, else the method."""
    consensus = view.context.stop_on_consensus
    return view.method.stop_on_consensus if consensus is None else consensus


def decide_by_rule(
    view: DebateView[Any], *, trajectory: Trajectory | None = None, **overrides: Any
) -> Decision:
    """Apply the decision rule in force (the context's, else the method's) to the trajectory.

    The rule is looked up in the registry (a registered name or a ``module:ATTR`` string).
    Rule options come from ``context.decision_options``; the engine adds, to a rule that takes
    them, the tie policy, the method's all-differ rule and ``models``: each agent's model label
    (from its latest turn). Random tie-breaks are seeded per item: ``derive_seed(context.seed,
    item_id or question)``, so a dataset's ties do not all fall the same way. ``overrides``
    replace engine-supplied options. ``trajectory`` replaces the answer turns' trajectory (a
    method whose agents' stances are not answer turns, such as SVR-MAD's pairwise debates).

    Raises:
        DebateConfigError: An unknown rule, or options the rule does not take.
    """
    ctx = view.context
    name = ctx.decision or view.method.decision
    rule = get_rule(name)
    latest = view.latest()
    engine: dict[str, Any] = {
        "tie_policy": ctx.tie_policy,
        "no_answer_if_all_differ": view.method.no_answer_if_all_differ,
        "models": [latest[a]["model"] if a in latest else "simulated" for a in view.agents],
        **overrides,
    }
    accepted = rule_options(rule)
    options = {k: v for k, v in engine.items() if k in accepted}
    options.update(ctx.decision_options)
    threshold = options.pop("group_by_meaning", None)
    embeddings = options.pop("embeddings", "hashing")
    path = view.trajectory() if trajectory is None else trajectory
    groups: dict[str, str] = {}
    if threshold is not None:
        path, groups = group_trajectory(path, threshold, embeddings)
    needs = rule_needs(rule)
    inputs: dict[str, int] = {}
    if needs.ballot is not None:
        points = options.get("points", DEFAULT_POINTS)
        options["ballots"], inputs = ballots_of(latest, view.agents, needs.ballot, points)
    if needs.judge:
        options["judged"] = judged_of(view.turns)
    key = view.state.get("item_id") or view.state.get("question") or ""
    try:
        decision = apply_rule(
            rule, path, rule_name=name, seed=derive_seed(ctx.seed, str(key)), **options
        )
    except (TypeError, ValueError) as exc:
        raise DebateConfigError(f"decision rule {name!r}: {exc}") from None
    if groups:
        merged = {a: r for a, r in groups.items() if a != r}
        decision = Decision(decision.answer, decision.rule, {**decision.evidence, "merged": merged})
    if inputs:
        decision = Decision(decision.answer, decision.rule, {**decision.evidence, **inputs})
    return decision


GROUPING_OPTIONS = ("group_by_meaning", "embeddings")
"""Decision options that every rule takes: they merge answers that mean the same first."""


def role_decision(view: DebateView[Any], role: str, **evidence: Any) -> Decision:
    """The last answer of ``role`` (an aggregator, a chairman) as the decision.

    Args:
        view: The debate so far.
        role: The role whose last answer turn decides; also the decision's rule name.
        **evidence: More evidence, after ``evidence[role]``: the deciding call's id, or
            ``None`` when the role never answered (then the answer is ``None`` too).

    Returns:
        The decision.
    """
    answers = [t for t in view.turns if t["agent"] == role and t["kind"] == "answer"]
    last = answers[-1] if answers else None
    found = {role: None if last is None else last["id"], **evidence}
    return Decision(None if last is None else last["answer"], role, found)


def check_rule_settings(method: Method[Any], agents: Sequence[str], ctx: DebateContext) -> None:
    """Check the decision rule in force and its options before any call.

    The rule is tried on a trajectory in which every agent gives the same answer, with the
    options :func:`decide_by_rule` would pass, so unknown options and bad values fail here.
    A method whose own decision is not a registered rule (``svr``) checks its options itself.

    Raises:
        DebateConfigError: An unknown rule, an option it does not take, or a bad value.
    """
    name = ctx.decision or method.decision
    if ctx.decision is not None and not method.honours_decision:
        raise DebateConfigError(
            f"{method.name} picks its answer with its own decide hook and takes no decision "
            f"rule, so decision {ctx.decision!r} would be ignored: leave the decision unset "
            "(--decision, decision=, a sweep arm's decision)"
        )
    if ctx.decision is None and name not in list_rules():
        return
    rule = get_rule(name)
    needs = rule_needs(rule)
    check_rule_inputs(name, needs, method, agents, ctx)
    options = dict(ctx.decision_options)
    threshold = options.pop("group_by_meaning", None)
    embeddings = options.pop("embeddings", None)
    if threshold is not None and (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not 0 < threshold <= 1
    ):
        raise DebateConfigError(f"group_by_meaning must be a number in (0, 1], got {threshold!r}")
    if embeddings is not None:
        from debategraph.models.embeddings import parse_embeddings_spec

        try:
            parse_embeddings_spec(embeddings)
        except ValueError as exc:
            raise DebateConfigError(f"decision option embeddings: {exc}") from None
    accepted = rule_options(rule)
    unknown = sorted(set(options) - accepted)
    if unknown:
        takes = sorted(accepted - {"seed"}) + list(GROUPING_OPTIONS)
        raise DebateConfigError(
            f"decision rule {name!r} does not take {', '.join(map(repr, unknown))}; it takes: "
            f"{', '.join(takes)}"
        )
    engine = {
        "tie_policy": ctx.tie_policy,
        "no_answer_if_all_differ": False,
        "models": ["simulated"] * len(agents),
    }
    given = {k: v for k, v in engine.items() if k in accepted} | options
    same = Trajectory(list(agents), [["a"]] * len(agents), [[0.5]] * len(agents))
    if needs.ballot is not None:
        points = given.get("points", DEFAULT_POINTS)
        given["ballots"] = [implied_ballot("a", needs.ballot, points)] * len(agents)
    if needs.judge:
        given["judged"] = {"answer": "a", "agent": agents[0] if agents else None, "id": "check"}
    try:
        apply_rule(rule, same, rule_name=name, seed=ctx.seed, **given)
    except (TypeError, ValueError) as exc:
        raise DebateConfigError(f"decision rule {name!r}: {exc}") from None


def check_rule_inputs(
    name: str,
    needs: RuleNeeds,
    method: Method[Any],
    agents: Sequence[str],
    ctx: DebateContext,
) -> None:
    """Refuse, before any call, a rule whose ballots or judge call the method cannot give.

    Ballots are given in a debate round's answer calls, so a method that does not debate
    (``debates=False``: ``cot``, ``sc``, ``moa``, ``council``, ...), a run of no debate rounds,
    and a method whose rounds end in no answer turns (``svr``'s pairwise debates) cannot give
    them. The judge reads the last round's answer turns: a method without answer rounds
    cannot give it either. The judge's ``judge_agent`` must be one of the agents.

    Raises:
        DebateConfigError: One line that says what to change.
    """
    if needs.answers_only:
        return
    what = needs.describe()
    if not method.answer_rounds:
        raise DebateConfigError(
            f"decision rule {name!r} reads {what}, and {method.name}'s rounds end in no answer "
            "round to give them: choose a rule that reads only the answers (majority, "
            "supermajority, unanimity, ...)"
        )
    if needs.ballot is not None and (not method.debates or method.rounds_for(ctx) < 1):
        why = _no_ballot_round(method, ctx)
        raise DebateConfigError(
            f"decision rule {name!r} reads {what}, which agents give in a debate round, and "
            f"{method.name} has none ({why}): use a debating method with rounds >= 1, or the "
            "judge or a rule that reads only the answers"
        )
    chosen = ctx.decision_options.get("judge_agent")
    if needs.judge and chosen is not None and chosen not in agents:
        raise DebateConfigError(
            f"judge_agent {chosen!r} is not an agent of this debate ({', '.join(agents)}): the "
            "judge's call uses that agent's model"
        )


def _no_ballot_round(method: Method[Any], ctx: DebateContext) -> str:
    """Why ``method`` has no debate round whose answer calls could carry the agents' ballots.

    Said from what the method declares, so that it holds for every method it is said of: the
    agents of ``moa`` and ``council`` do read each other, but their last round is a role's.
    """
    if method.rounds_for(ctx) < 1:
        return "it runs 0 rounds"
    if method.roles:
        whose = " or ".join(f"its {role}'s" for role in method.roles)
        return f"its agents give no answer in its last round, which ends in {whose} call"
    return "it does not debate: debates=False"


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
class Method(Generic[OptionsT]):
    """A debate method: prompts and the hooks that plan, observe, stop and decide.

    Register it with :func:`debategraph.methods.register_method` (or an entry point in the
    ``debategraph.methods`` group) to use it by name everywhere a built-in is used.

    Attributes:
        name: Registry name (``du``, ``cortex``, ...).
        description: One line for ``--help`` and docs.
        prompts: Prompt templates by name (``initial``, ``debate``, ...); a call names one.
        plan: Returns the next phase's calls of the current round, or ``None`` to end it.
            Round 0 goes through it too. It is asked at most ``max_phases`` times a round.
        observe: Runs after every phase (sync or async); returns keys to merge into the
            method state.
        stop: Whether the debate ends after the current round (default: the round limit, and
            consensus where the method or context asks for it).
        decide: Picks the answer (default: the decision rule by name over the trajectory).
        takes_decision: Whether ``decide`` honours the run's decision rule (``decision=``,
            ``--decision``, a sweep arm's ``decision``). Default: yes for the default hook, no
            for a method's own, so a rule given to it is refused before any call rather than
            ignored; set ``True`` when your ``decide`` calls :func:`decide_by_rule` once a
            rule is given.
        rule_applies: Whether ``decide`` reads the decision rule on this debate (default:
            always). Where it returns ``False`` the rule's own calls (the judge's) are not
            made: sid-et's skipped debates, whose first answer stands.
        agent_counts: The numbers of agents the method accepts (``range(2, 9)``, ``(4, 6)``),
            checked before any call; ``None`` (default): any number.
        options: The class of the method's typed options.
        default_options: Option values that replace the class defaults (see ``configure``).
        bind: Extra model-call keyword arguments for a call (e.g. ``logprobs=True``).
        roles: Role nodes the method's calls use besides the agents (``summarizer``, ...).
        system: Optional system prompt: one text for every call, or one per template name
            (templates not named get none; GroupDebate frames its debaters but not its
            summariser).
        decision: Default decision rule name.
        confidence: Ask agents for a confidence line.
        default_agents: Agents when the caller gives none.
        default_rounds: Debate rounds when the caller gives none.
        stop_on_consensus: Stop early once every agent agrees.
        min_rounds: First round at which the consensus stop may fire.
        single_model: Every agent is a sample of one model (self-consistency).
        debates: The method's rounds are debate rounds, the agents answering again after
            reading each other (``False`` for cot, sc, mav, and for methods whose rounds are
            something else: moa's and self-moa's aggregation, council's rankings,
            self-refine's own revisions): rounds given to several methods at once (an
            evaluation's ``--rounds``) skip it, rounds above 0 given to it alone are refused
            unless it has rounds of its own (``default_rounds`` above 0), and ballot rules
            are refused.
        no_answer_if_all_differ: The vote returns "no answer" when all answers differ.
        answer_rounds: Its rounds end in every agent's answer turn (``False`` for
            ``svr``, whose debates are pairwise): decision rules that read ballots or the
            last round's answers (``approval``, ``judge``, ...) need it.
        max_phases: Most phases a round may have; the planner is not asked again after.
        round_bound: Most debate rounds the method may run, given the view at round 0
            (default: the rounds in force); it sets the recursion limit.
        parser: How the method's answers are read, ``(response, task, num_choices) ->
            Extraction`` (default: the task's built-in parser); a graph's ``parser`` wins.
        plan_node: The name of the round's plan node, what it computes (``mdm`` for
            CortexDebate, ``svr``, ``mask``, ``groups``); Studio draws it under this name.
        card: Where the method's card lives (a path or URL), shown by ``debategraph methods``.
        presets: Named sampling presets (``paper``: the settings its paper ran with), chosen
            with the context's ``settings``.
    """

    name: str
    description: str
    prompts: Mapping[str, PromptFn]
    plan: Planner[OptionsT]
    observe: Observer[OptionsT] | None = None
    stop: StopRule[OptionsT] = default_stop
    decide: Decider[OptionsT] = decide_by_rule
    takes_decision: bool | None = None
    rule_applies: StopRule[OptionsT] | None = None
    agent_counts: Collection[int] | None = None
    options: type[OptionsT] = field(default=cast(Any, NoOptions))
    default_options: OptionsT | None = None
    bind: Binder[OptionsT] | None = None
    roles: tuple[str, ...] = ()
    system: str | Mapping[str, str] | None = None
    decision: str = "majority"
    confidence: bool = False
    default_agents: int = 3
    default_rounds: int = 2
    stop_on_consensus: bool = False
    min_rounds: int = 0
    single_model: bool = False
    debates: bool = True
    no_answer_if_all_differ: bool = False
    answer_rounds: bool = True
    max_phases: int = 1
    round_bound: Callable[[DebateView[OptionsT]], int] | None = None
    parser: AnswerParser | None = None
    plan_node: str = "plan"
    card: str | None = None
    presets: Mapping[str, SamplingPreset] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problems = []
        if not isinstance(self.name, str) or not self.name.strip() or ":" in self.name:
            problems.append(f"name must be a non-empty string without ':', got {self.name!r}")
        if not callable(self.plan):
            problems.append("plan must be a function of the view")
        if not isinstance(self.options, type) or not issubclass(self.options, MethodOptions):
            problems.append(f"options must be a MethodOptions subclass, got {self.options!r}")
        if isinstance(self.max_phases, bool) or not isinstance(self.max_phases, int):
            problems.append(f"max_phases must be an integer, got {self.max_phases!r}")
        elif self.max_phases < 1:
            problems.append(f"max_phases must be at least 1, got {self.max_phases}")
        if not self.plan_node or not isinstance(self.plan_node, str):
            problems.append(f"plan_node must be a node name, got {self.plan_node!r}")
        elif self.plan_node in (*self.roles, "observe"):
            problems.append(f"plan_node {self.plan_node!r} clashes with a role or 'observe'")
        if self.agent_counts is not None and (
            not isinstance(self.agent_counts, Collection)
            or not self.agent_counts
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in self.agent_counts)
        ):
            problems.append(
                f"agent_counts must be a non-empty range or collection of integers, "
                f"got {self.agent_counts!r}"
            )
        elif self.agent_counts is not None and self.default_agents not in self.agent_counts:
            problems.append(
                f"default_agents ({self.default_agents}) is not one of agent_counts "
                f"{self.agent_counts!r}"
            )
        if self.takes_decision is not None and not isinstance(self.takes_decision, bool):
            problems.append(f"takes_decision must be True or False, got {self.takes_decision!r}")
        if isinstance(self.system, Mapping):
            unknown = sorted(set(self.system) - set(self.prompts))
            if unknown:
                problems.append(f"system names templates {unknown} that prompts lacks")
        elif self.system is not None and not isinstance(self.system, str):
            problems.append(f"system must be a text or a mapping, got {self.system!r}")
        if problems:
            raise TypeError(f"Method {self.name!r}: " + "; ".join(problems))

    @property
    def honours_decision(self) -> bool:
        """Whether a decision rule given to a run of this method is applied (``takes_decision``)."""
        if self.takes_decision is not None:
            return self.takes_decision
        return self.decide is decide_by_rule

    def check_agents(self, count: int) -> None:
        """Refuse a number of agents the method does not accept (``agent_counts``).

        Raises:
            DebateConfigError: The count, and the counts it takes.
        """
        counts = self.agent_counts
        if counts is None or count in counts:
            return
        if isinstance(counts, range) and counts.step == 1:
            takes = f"{counts.start} to {counts.stop - 1}"
        else:
            listed = [str(n) for n in sorted(counts)]
            takes = " or ".join([", ".join(listed[:-1]), listed[-1]] if len(listed) > 1 else listed)
        raise DebateConfigError(
            f"{self.name} takes {takes} agents, got {count}: change --agents (agents=)"
        )

    def system_for(self, template: str) -> str | None:
        """The system prompt of a call made with ``template``, if any."""
        if self.system is None or isinstance(self.system, str):
            return self.system
        return self.system.get(template)

    def preset(self, name: str) -> SamplingPreset:
        """The sampling preset ``name``.

        Raises:
            DebateConfigError: The method has no such preset; the message lists its presets.
        """
        try:
            return self.presets[name]
        except KeyError:
            has = f"its presets: {', '.join(self.presets)}" if self.presets else "it has none"
            raise DebateConfigError(
                f"{self.name} has no sampling preset {name!r} ({has}); set temperature, "
                "top_p or top_k instead"
            ) from None

    def generation_for(self, context: DebateContext, model: str) -> dict[str, Any]:
        """The generation settings of a call on ``model`` (its spec or label).

        The context's own settings win over its preset's (``settings="paper"``), key by key;
        ``top_k=0`` sends no top-k even when the preset has one.
        """
        settings = context.generation()
        if context.settings is not None:
            settings = {**self.preset(context.settings).for_model(model).kwargs(), **settings}
        if context.top_k == 0:
            settings.pop("top_k", None)
        return settings

    def rounds_for(self, context: DebateContext) -> int:
        """Debate rounds in force: the context's, else the method's default."""
        return self.default_rounds if context.rounds is None else context.rounds

    def options_for(self, context: DebateContext) -> OptionsT:
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
            return cast(OptionsT, memo[2])
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
    def _class_defaults(self) -> OptionsT:
        """The options class's defaults (options are frozen: one instance serves every call)."""
        return self.options()

    def configure(self, **options: Any) -> Method[OptionsT]:
        """This method with other default option values (objects allowed, e.g. embeddings).

        Raises:
            DebateConfigError: Unknown keys or bad values.
        """
        base = self.default_options or self.options()
        try:
            self.options.coerce(dict(options))
            return dataclasses.replace(self, default_options=dataclasses.replace(base, **options))
        except (TypeError, ValueError) as exc:
            raise DebateConfigError(f"{self.name} options: {exc}") from None

    def max_rounds(self, view: DebateView[OptionsT]) -> int:
        """Most debate rounds this run may take (for the recursion limit)."""
        return self.round_bound(view) if self.round_bound is not None else view.rounds


def logprob_request(top: int = 0) -> dict[str, Any]:
    """The model-call arguments that ask for token logprobs, the one way every method asks.

    ``top_logprobs`` is always sent (0 unless alternatives are wanted): llama.cpp's server
    returns no logprobs without it, and OpenAI and vLLM accept 0.

    Args:
        top: How many alternatives per token (0: the sampled token's only).
    """
    return {"logprobs": True, "top_logprobs": top}


LOGPROBS_HELP = (
    "serve a model that returns token logprobs (OpenAI, vLLM and llama.cpp's server do when "
    "asked; --logprobs, or logprobs=True, asks every call)"
)
"""What to say when a method that needs token logprobs got none."""


def call(
    view: DebateView[Any],
    speaker: str,
    *,
    kind: CallKind = "answer",
    reads: Sequence[str] = (),
    template: str | None = None,
    history: bool = False,
    id: str | None = None,
    vars: Mapping[str, Any] | None = None,
    prompt: str | None = None,
) -> Call:
    """A call of the current round.

    Args:
        view: The planner's view.
        speaker: An agent or a role of the method; the call goes to the node of that name.
        kind: ``answer``, ``summary``, ``evaluation`` or ``pairwise``.
        reads: Ids of the turns shown to the speaker, in order.
        template: The name of the method's prompt template to render.
        history: Show the speaker its own earlier answer turns as chat history (an
            ``evaluation`` call, a judge's, also its own earlier evaluation turns).
        id: The call's id, unique in the debate (default ``r{round}:{speaker}``).
        vars: Extra prompt variables (JSON-safe).
        prompt: Deprecated name of ``template``.

    Returns:
        The call record.
    """
    if prompt is not None:
        warnings.warn(
            "call(prompt=...) is now call(template=...) (the template's name; a turn's "
            "'prompt' is the rendered text); prompt= is removed in 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        template = template or prompt
    if template is None:
        raise TypeError("call() needs template=, the name of one of the method's prompts")
    return Call(
        id=id or f"r{view.round}:{speaker}",
        kind=kind,
        speaker=speaker,
        round=view.round,
        reads=list(reads),
        template=template,
        vars=dict(vars or {}),
        history=history,
    )


def initial_calls(view: DebateView[Any]) -> list[Call]:
    """Every agent answers alone with the ``initial`` prompt."""
    return [call(view, agent, template="initial") for agent in view.agents]


def debate_calls(
    view: DebateView[Any], reads: Mapping[str, Sequence[str]], *, history: bool
) -> list[Call]:
    """An answer call per agent: ``debate`` with what it reads, ``reflect`` with nothing.

    Cut-off agents (the communication attack) read nothing and reflect on their own answer.
    """
    calls = []
    for agent in view.agents:
        shown = [] if agent in view.cut_off else list(reads.get(agent, ()))
        calls.append(
            call(
                view,
                agent,
                reads=shown,
                template="debate" if shown else "reflect",
                history=history,
            )
        )
    return calls


Topology = Callable[[Sequence[str], Mapping[str, str]], Mapping[str, Sequence[str]]]
"""``(agents, latest answer ids) -> turn ids each agent reads``."""


def debate_planner(reads: Topology, *, history: bool) -> Planner[Any]:
    """A one-phase planner: everyone answers alone in round 0, then reads ``reads(...)``.

    Args:
        reads: ``(agents, latest answer ids) -> turn ids each agent reads`` (a topology such
            as :func:`~debategraph.policies.topology.full_reads`).
        history: Agents see their own earlier answers as chat history.
    """

    def plan(view: DebateView[Any]) -> list[Call]:
        if view.round == 0:
            return initial_calls(view)
        return debate_calls(view, reads(view.agents, view.latest_ids()), history=history)

    return plan
