"""MALLM's discussion paradigms: ``mallm-memory``, ``-report``, ``-relay``, ``-collective``.

Round 0: every agent answers alone. In each debate round every agent speaks once, shown its
own latest answer and what the paradigm lets it read (``turns``): the shared memory, the
report or the replies to it, the predecessor's answer in a chain, or everyone's latest
answers. With ``turn_order="sequential"`` (the default, as MALLM runs
them) the round has a phase per speaker (``mallm-report``: the report, then the replies),
so each speaker reads what the earlier speakers of the round said; ``"simultaneous"`` is one
phase in which everyone reads the previous rounds only. ``mallm-collective`` is simultaneous
by definition. Agents are stateless (no chat history). A cut-off agent (the communication
attack) reads only its own latest answer. Majority vote of the final answers.

A plugin written with the public kit alone, as an outside author would write one: the package
imports nothing of debategraph but ``debategraph.methods``, and keeps its pure turn and cost
math (``turns``, standard library only) and its prompts (``prompts``) beside the methods.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from debategraph.methods import (
    Call,
    DebateConfigError,
    DebateView,
    Decision,
    Method,
    MethodOptions,
    Trajectory,
    call,
    decide_by_rule,
    default_stop,
    presets,
)
from debategraph.methods.paradigms import prompts
from debategraph.methods.paradigms.turns import (
    Paradigm,
    TurnOrder,
    peer_reads,
    speaking_phases,
    tied,
)

MAX_SPEAKERS = 64
"""Most agents a sequential round may have: one phase each, and a round's phases are bounded."""


MAX_REVOTES = 10
"""Most extra rounds a tie may add (MALLM's default ``max_turns``)."""


@dataclass(frozen=True, kw_only=True)
class MallmOptions(MethodOptions):
    """Options of every MALLM paradigm (``mallm-collective`` has only these).

    Attributes:
        redraft: Every agent drafts anew in every round, reading nothing (MALLM's
            ``all_agents_generate_draft``); ``False`` discusses as the paradigm says.
        neutral: How many agents, the first of the roster, are neutral: told to mediate
            without a position of their own, and left out of the vote (MALLM's
            ``num_neutral_agents``, its draft-proposing moderators).
        revote_on_tie: Up to this many more rounds while the voters' final answers tie
            (MALLM's ``simple_voting`` votes again after another turn on a tie); 0: none.
        ablation: MALLM's single-model ablation (``use_ablation``): the first agent alone
            answers and then improves its own solution once per call the discussion would
            make (agents x rounds, the initial round included), and its answer decides.
    """

    redraft: bool = False
    neutral: int = 0
    revote_on_tie: int = 0
    ablation: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.neutral < 0:
            raise ValueError(f"neutral must be 0 or more, got {self.neutral}")
        if not 0 <= self.revote_on_tie <= MAX_REVOTES:
            raise ValueError(
                f"revote_on_tie must be between 0 and {MAX_REVOTES}, got {self.revote_on_tie}"
            )


@dataclass(frozen=True, kw_only=True)
class TurnOrderOptions(MallmOptions):
    """Options of ``mallm-report`` and ``mallm-relay``.

    Attributes:
        turn_order: ``sequential`` (speakers take turns and read this round's earlier
            speakers) or ``simultaneous`` (everyone speaks at once, reading earlier rounds).
    """

    turn_order: TurnOrder = "sequential"


@dataclass(frozen=True, kw_only=True)
class MemoryOptions(TurnOrderOptions):
    """Options of ``mallm-memory``.

    Attributes:
        turn_order: ``sequential`` or ``simultaneous`` (see :class:`TurnOrderOptions`).
        window: How many earlier rounds the shared memory shows (``None``: every round;
            MALLM's ``visible_turns_in_memory``); this round's contributions always show.
    """

    window: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.window is not None and self.window < 1:
            raise ValueError(
                f"window must be at least 1 (or none for every round), got {self.window}"
            )


TEMPLATES: dict[Paradigm, str] = {
    "memory": "discuss",
    "relay": "relay",
    "collective": "refine",
}


def paradigm_planner(paradigm: Paradigm) -> Callable[[DebateView[Any]], list[Call] | None]:
    """The planner of one paradigm: round 0 alone, then its phases of speakers.

    Args:
        paradigm: ``memory``, ``report``, ``relay`` or ``collective``.
    """

    def plan(view: DebateView[Any]) -> list[Call] | None:
        order: TurnOrder = getattr(view.options, "turn_order", "simultaneous")
        neutral = set(neutral_agents(view))
        if view.round == 0:
            if order == "sequential" and len(view.agents) > MAX_SPEAKERS:
                raise DebateConfigError(
                    f"{view.method.name}: a sequential round takes one phase per agent, at "
                    f"most {MAX_SPEAKERS}; with {len(view.agents)} agents use "
                    "--option turn_order=simultaneous"
                )
            if len(neutral) >= len(view.agents):
                raise DebateConfigError(
                    f"{view.method.name}: neutral={view.options.neutral} leaves no agent to "
                    f"vote among {len(view.agents)}; give fewer neutral agents or more agents"
                )
        if view.options.ablation:
            return _ablation_call(view)
        if view.round == 0 or view.options.redraft:
            if view.phase > 0:
                return None
            return [
                call(view, a, template="initial", vars={"neutral": True} if a in neutral else {})
                for a in view.agents
            ]
        phases = speaking_phases(paradigm, view.agents, order)
        if view.phase >= len(phases):
            return None
        window = getattr(view.options, "window", None)
        latest = view.latest_ids()
        turns = view.turns
        calls = []
        for agent in phases[view.phase]:
            own = [latest[agent]] if agent in latest else []
            peers = []
            if agent not in view.cut_off:
                peers = peer_reads(paradigm, view.agents, agent, turns, view.round, window=window)
            template = _template(paradigm, view.agents, agent) if peers else "reflect"
            marks = {"neutral": True} if agent in neutral else {}
            calls.append(call(view, agent, reads=own + peers, template=template, vars=marks))
        return calls

    return plan


def _ablation_call(view: DebateView[Any]) -> list[Call] | None:
    """One call of the single-model ablation: one a phase, as many phases as agents."""
    if view.round == 0 and view.phase == 0:
        if view.options.neutral or view.options.redraft or view.options.revote_on_tie:
            raise DebateConfigError(
                f"{view.method.name}: ablation runs one model alone; drop neutral, redraft "
                "and revote_on_tie"
            )
        if len(view.agents) > MAX_SPEAKERS:
            raise DebateConfigError(
                f"{view.method.name}: ablation makes one call a phase, as many a round as "
                f"agents, at most {MAX_SPEAKERS}; got {len(view.agents)} agents"
            )
    if view.phase >= len(view.agents):
        return None
    solo = view.agents[0]
    if view.round == 0 and view.phase == 0:
        return [call(view, solo, template="initial")]
    latest = view.latest_ids()
    return [
        call(
            view,
            solo,
            id=f"r{view.round}:{solo}" if view.phase == 0 else f"r{view.round}:{solo}:{view.phase}",
            reads=[latest[solo]],
            template="improve",
        )
    ]


def neutral_agents(view: DebateView[Any]) -> tuple[str, ...]:
    """The neutral agents: the first ``neutral`` of the roster (MALLM puts them first)."""
    return view.agents[: view.options.neutral]


def voters(view: DebateView[Any]) -> tuple[str, ...]:
    """The agents whose answers are voted on: all but the neutral ones."""
    return view.agents[view.options.neutral :]


def _voters_final_answers(view: DebateView[Any]) -> list[str | None]:
    finals = dict(zip(view.agents, view.final_answers(), strict=True))
    return [finals[a] for a in voters(view)]


def stop(view: DebateView[Any]) -> bool:
    """After the rounds, unless the voters' answers tie and a re-vote round is left.

    Before the last round: the default (consensus where the run asks for it).
    """
    if view.round < view.rounds:
        return default_stop(view)
    extra = view.round - view.rounds
    return extra >= view.options.revote_on_tie or not tied(_voters_final_answers(view))


def decide(view: DebateView[Any]) -> Decision:
    """The decision rule in force over the voters' answers (the neutral agents' left out).

    Under ``ablation`` the voter is the one model that ran.
    """
    if not view.options.neutral and not view.options.ablation:
        return decide_by_rule(view)
    chosen = set(view.agents[:1] if view.options.ablation else voters(view))
    path = view.trajectory()
    keep = [i for i, a in enumerate(view.agents) if a in chosen]
    confidences = [path.confidences[i] for i in keep] if path.confidences else []
    subset = Trajectory(
        agents=[path.agents[i] for i in keep],
        answers=[path.answers[i] for i in keep],
        confidences=confidences,
    )
    latest = view.latest()
    models = [latest[a]["model"] if a in latest else "simulated" for a in subset.agents]
    return decide_by_rule(view, trajectory=subset, models=models)


def round_bound(view: DebateView[Any]) -> int:
    """The rounds, plus the re-vote rounds a tie may add."""
    extra: int = view.options.revote_on_tie
    return view.rounds + extra


def _template(paradigm: Paradigm, agents: tuple[str, ...], agent: str) -> str:
    if paradigm == "report":
        return "report" if agent == agents[0] else "reply"
    return TEMPLATES[paradigm]


CARD = "docs/methods/mallm-paradigms.md"


def _paradigm_method(
    paradigm: Paradigm, description: str, options: type[MethodOptions], **fields: Any
) -> Method[Any]:
    """The ``mallm-{paradigm}`` method: MALLM's prompts and sampling, three agents, two rounds."""
    return Method(
        name=f"mallm-{paradigm}",
        description=description,
        prompts=prompts.PROMPTS,
        presets=presets.paper(presets.MALLM),
        plan=paradigm_planner(paradigm),
        stop=stop,
        decide=decide,
        takes_decision=True,
        round_bound=round_bound,
        options=options,
        default_agents=3,
        default_rounds=2,
        card=CARD,
        **fields,
    )


MEMORY = _paradigm_method(
    "memory",
    "MALLM memory paradigm: agents speak in turn, each reading the shared memory "
    "of every other agent's contributions (this round's earlier speakers too); majority vote.",
    MemoryOptions,
    max_phases=MAX_SPEAKERS,
)
"""The ``mallm-memory`` method."""

REPORT = _paradigm_method(
    "report",
    "MALLM report paradigm: the first agent reports, reading the others' replies; "
    "each other agent replies to the latest report only; majority vote.",
    TurnOrderOptions,
    max_phases=MAX_SPEAKERS,
)
"""The ``mallm-report`` method."""

RELAY = _paradigm_method(
    "relay",
    "MALLM relay paradigm: answers pass along a chain a1 -> a2 -> ... -> a1, each "
    "agent reading only its predecessor's latest answer; majority vote.",
    TurnOrderOptions,
    max_phases=MAX_SPEAKERS,
)
"""The ``mallm-relay`` method."""

COLLECTIVE = _paradigm_method(
    "collective",
    "MALLM collective refinement: every round all agents at once improve their own "
    "answer after reading every other agent's latest answer; majority vote.",
    MallmOptions,
    max_phases=MAX_SPEAKERS,
)
"""The ``mallm-collective`` method (simultaneous only)."""
