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
    ALTERATIONS,
    Paradigm,
    TurnOrder,
    peer_reads,
    read_vote,
    speaking_phases,
    tally,
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
        vote: After the last round (and each re-vote round) every voter votes, in a call,
            for one of the voters' solutions, shown anonymously (MALLM's ``simple_voting``);
            the solution with the most votes decides.
        alterations: Vote again under each alteration MALLM runs offline, ``public`` (the
            authors named), ``history`` (the discussion shown) and ``confidence`` (each
            solution marked 100 % confident), recorded beside the deciding anonymous vote
            (MALLM's ``voting_protocols_with_alterations``); needs ``vote``.
    """

    redraft: bool = False
    neutral: int = 0
    revote_on_tie: int = 0
    ablation: bool = False
    vote: bool = False
    alterations: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.alterations and not self.vote:
            raise ValueError("alterations re-run the vote: set vote=true with them")
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
                return vote_calls(view) if view.phase == 1 else None
            return [
                call(view, a, template="initial", vars={"neutral": True} if a in neutral else {})
                for a in view.agents
            ]
        phases = speaking_phases(paradigm, view.agents, order)
        if view.phase >= len(phases):
            return vote_calls(view) if view.phase == len(phases) else None
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
        options = view.options
        if options.neutral or options.redraft or options.revote_on_tie or options.vote:
            raise DebateConfigError(
                f"{view.method.name}: ablation runs one model alone; drop neutral, redraft, "
                "revote_on_tie and vote"
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


def vote_calls(view: DebateView[Any]) -> list[Call] | None:
    """The voting phase: every voter not cut off votes under each alteration in force.

    It comes after the last round's speakers and after those of each re-vote round. A
    vote reads the voters' latest answers in voter order (``history``: every other answer
    turn of the debate before them).
    """
    if not view.options.vote or view.round < view.rounds:
        return None
    latest = view.latest_ids()
    solutions = [latest[a] for a in voters(view) if a in latest]
    if not solutions:
        return None
    names = [a for a in voters(view) if a in latest]
    earlier = [t["id"] for t in view.turns if t["kind"] == "answer" and t["id"] not in solutions]
    kinds = ALTERATIONS if view.options.alterations else ALTERATIONS[:1]
    return [
        call(
            view,
            voter,
            kind="evaluation",
            id=f"r{view.round}:vote:{kind}:{voter}",
            reads=(earlier if kind == "history" else []) + solutions,
            template="vote",
            vars={"alteration": kind, "solutions": len(solutions), "names": names},
        )
        for kind in kinds
        for voter in voters(view)
        if voter not in view.cut_off
    ]


def observe(view: DebateView[Any]) -> dict[str, Any] | None:
    """After a voting phase: each alteration's ballots, counts and winner, by round.

    ``method_state["votes"][round][alteration]`` holds ``ballots`` (voter -> solution number,
    1 first, or ``None`` when the reply names none), ``counts``, ``winner`` (``None`` on a
    tie) and ``answers`` (the solutions' answers, in number order).
    """
    prefix = f"r{view.round}:vote:"
    made = [t for t in view.turns if t["id"].startswith(prefix)]
    if not made:
        return None
    answers = {t["id"]: t["answer"] for t in view.turns}
    rounds: dict[str, Any] = dict(view.method_state.get("votes") or {})
    this: dict[str, Any] = {}
    for turn in made:
        marks = turn.get("vars") or {}
        kind = str(marks.get("alteration"))
        count = int(marks.get("solutions", 0))
        entry = this.setdefault(
            kind, {"ballots": {}, "answers": [answers.get(r) for r in turn["reads"][-count:]]}
        )
        entry["ballots"][turn["agent"]] = read_vote(turn["text"], count)
    for entry in this.values():
        counts, winner = tally(entry["ballots"])
        entry["counts"] = {str(k): v for k, v in counts.items()}
        entry["winner"] = winner
    rounds[str(view.round)] = this
    return {"votes": rounds}


def _anonymous_vote(view: DebateView[Any]) -> dict[str, Any] | None:
    votes = (view.method_state.get("votes") or {}).get(str(view.round)) or {}
    found: dict[str, Any] | None = votes.get("anonymous")
    return found


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
    if extra >= view.options.revote_on_tie:
        return True
    if view.options.vote:
        vote = _anonymous_vote(view)
        return vote is None or vote["winner"] is not None or not vote["counts"]
    return not tied(_voters_final_answers(view))


def decide(view: DebateView[Any]) -> Decision:
    """The decision rule in force over the voters' answers (the neutral agents' left out).

    Under ``ablation`` the voter is the one model that ran. With ``vote`` (and no rule
    named for the run) the last anonymous vote's winner decides (rule ``mallm-vote``); a
    vote that ties or has no valid ballot leaves it to the rule over the answers.
    """
    if view.options.vote and view.context.decision is None:
        vote = _anonymous_vote(view)
        if vote is not None and vote["winner"] is not None:
            evidence = {"round": view.round, "votes": view.method_state["votes"][str(view.round)]}
            return Decision(vote["answers"][vote["winner"] - 1], "mallm-vote", evidence)
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
        observe=observe,
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
