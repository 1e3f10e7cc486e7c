"""S²-MAD (Zeng et al., NAACL 2025, arXiv 2502.04790) on the engine: method ``s2mad``.

Selective sparse multi-agent debate: GroupDebate's groups and stages with a decision-making
mechanism in front of every debate round. Round 0: every agent answers alone. After every
phase with new answers, the ``observe`` hook compares the agents' latest responses (answer
equivalence, or the cosine of response embeddings) and records the similarity matrix and
whether the agents have reached consensus (then the debate stops). Before each debate round
the plan node (``filter``) applies the mechanism to the responses an agent would read:

* intra-group round (``r % R != 0``): the other members of the agent's group;
* inter-group round (``r % R == 0``): the summaries of the groups (one per group, written by
  the ``summarizer`` in the round's first phase, only for groups someone reads).

An agent takes part only if one of them holds a view different from its own (conditional
participation), and then reads only those (redundant information filtering: one response
per differing view, or one summary per group that holds a differing view). An agent that
sits a round out keeps its latest answer. Calls are stateless: a taking-part agent sees its
own latest answer and what the round gives it. The last answers go to a majority vote.

``method_state`` (JSON-safe, also in ``DebateResult.to_dict``): see
``docs/methods/s2mad.md``: ``groups``, ``schedule``, ``similarity``, ``consensus``,
``decisions`` (one per debate round), ``round_labels`` and ``s2mad_options``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from debategraph.methods import (
    Call,
    DebateView,
    Method,
    Phase,
    Turn,
    call,
    default_stop,
    initial_calls,
    presets,
)
from debategraph.methods.embeddings import EmbeddingsOptions, embeddings_for
from debategraph.methods.grouping import GroupOptions, make_groups
from debategraph.policies.grouping import (
    debate_plan,
    round_kind,
    stage_of,
)
from debategraph.policies.s2mad import (
    Matrix,
    agreement,
    answer_similarity,
    check_threshold,
    cosine_similarity,
    filter_views,
    reached_consensus,
    redundant_group,
)
from debategraph.prompts import s2mad as prompts

Similarity = Literal["answer", "embedding"]


@dataclass(frozen=True, kw_only=True)
class S2MadOptions(GroupOptions, EmbeddingsOptions):
    """S²-MAD's parameters; see ``docs/methods/s2mad.md`` for the paper's and our choices.

    ``groups``, ``num_groups``, ``stage_rounds`` and ``shuffle`` are
    :class:`~debategraph.methods.grouping.GroupOptions`' (GroupDebate's grouping).

    Attributes:
        similarity: How two responses are found to share a viewpoint: ``"answer"`` (the
            parsed answers are equal; for closed-form tasks, the paper's main setting and
            SVR-MAD's) or ``"embedding"`` (the cosine of the response embeddings reaches
            ``threshold``).
        threshold: Cosine similarity at or above which two responses share a viewpoint
            (``embedding`` only), in (0, 1].
        embeddings: The embeddings of ``embedding`` similarity: a spec (``hashing``,
            ``minilm``, ``openai:<model>``) or any LangChain ``Embeddings`` object.
        dedupe: Of several differing responses that share one viewpoint, read only the
            first; ``False`` reads every response that differs from one's own.
        consensus: The share of agents that must share one viewpoint to end the debate
            early (1.0: all of them; SVR-MAD's comparison used 5 of 6); ``None`` never stops
            early.
        consensus_from: The first round after which consensus ends the debate: 1 (SVR-MAD's
            protocol: "may terminate after round one"), or 0 to stop on the initial answers
            already.
    """

    similarity: Similarity = "answer"
    threshold: float = 0.9
    dedupe: bool = True
    consensus: float | None = 1.0
    consensus_from: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        check_threshold(self.threshold)
        if self.consensus is not None and not 0 < self.consensus <= 1:
            raise ValueError(
                f"consensus must be a share of agents in (0, 1] (or none), got {self.consensus}"
            )
        if self.consensus_from not in (0, 1):
            raise ValueError(
                "consensus_from must be 1 (stop after round one at the earliest) or 0 (also "
                f"on the initial answers), got {self.consensus_from}"
            )

    @property
    def uses_embeddings(self) -> bool:
        """Only ``embedding`` similarity embeds responses."""
        return self.similarity == "embedding"

    @property
    def cutoff(self) -> float:
        """The similarity at or above which two responses share a viewpoint."""
        return self.threshold if self.similarity == "embedding" else 1.0


View = DebateView[S2MadOptions]


def _label(round_: int, stage_rounds: int) -> str:
    text = {
        "initial": "initial answers",
        "intra": "intra-group round, differing views only",
        "inter": "summaries of groups with differing views, then inter-group round",
    }[round_kind(round_, stage_rounds)]
    return f"stage {stage_of(round_, stage_rounds)} · {text}"


def _labels(view: View) -> dict[str, str]:
    return {
        **view.method_state.get("round_labels", {}),
        str(view.round): _label(view.round, view.options.stage_rounds),
    }


def _start(view: View) -> Phase:
    options = view.options
    groups = make_groups(view)
    state = {
        "groups": groups,
        "schedule": debate_plan(len(view.agents), view.rounds + 1, options.stage_rounds, groups),
        "s2mad_options": options.to_dict(),
        "round_labels": _labels(view),
        "decisions": [],
    }
    return Phase(initial_calls(view), state)


def summary_id(round_: int, group: int) -> str:
    """``r2:summary:g1``: the summary of group 1 that round 2 reads."""
    return f"r{round_}:summary:g{group}"


def _group_of(groups: Sequence[Sequence[str]], agent: str) -> int:
    return next(j for j, g in enumerate(groups, 1) if agent in g)


def decide_round(view: View) -> dict[str, Any]:
    """The decision-making mechanism for the round being planned.

    Returns:
        The round's decision record: ``round``, ``kind``, ``participants`` and ``skipped``
        (agent names), ``reads`` (per participant: the peer turn ids or summary ids it reads),
        ``filtered`` (per participant: the ones it would have read but does not),
        ``summaries`` (the groups whose summary is written) and ``views`` (reads kept and
        reads a GroupDebate round would make, for the token saving).
    """
    state = view.method_state
    options = view.options
    groups: list[list[str]] = state["groups"]
    sim: Matrix = state["similarity"]["matrix"]
    cutoff = options.cutoff
    index = {a: i for i, a in enumerate(view.agents)}
    latest = view.latest_ids()
    kind = round_kind(view.round, options.stage_rounds)
    participants, skipped = [], []
    reads: dict[str, list[str]] = {}
    filtered: dict[str, list[str]] = {}
    wanted: set[int] = set()
    full = 0
    for agent in view.agents:
        i = index[agent]
        own = _group_of(groups, agent)
        if kind == "intra":
            peers = [index[b] for b in groups[own - 1] if b != agent and b in latest]
            kept = filter_views(i, peers, sim, cutoff, dedupe=options.dedupe)
            ids = [latest[view.agents[j]] for j in kept]
            every = [latest[view.agents[j]] for j in peers]
        else:
            order = [own] + [g for g in range(1, len(groups) + 1) if g != own]
            members = {g: [index[b] for b in groups[g - 1]] for g in order}
            kept = [g for g in order if not redundant_group(i, members[g], sim, cutoff)]
            ids = [summary_id(view.round, g) for g in kept]
            every = [summary_id(view.round, g) for g in order]
            if agent not in view.cut_off:
                wanted.update(kept)
        full += len(every)
        if not kept:
            skipped.append(agent)
            continue
        participants.append(agent)
        reads[agent] = [] if agent in view.cut_off else ids
        filtered[agent] = [x for x in every if x not in ids]
    return {
        "round": view.round,
        "kind": kind,
        "participants": participants,
        "skipped": skipped,
        "reads": reads,
        "filtered": filtered,
        "summaries": sorted(wanted),
        "views": {"read": sum(len(r) for r in reads.values()), "of": full},
    }


def _answer_calls(view: View, decision: dict[str, Any]) -> list[Call]:
    latest = view.latest_ids()
    groups = view.method_state["groups"]
    template = "intra" if decision["kind"] == "intra" else "inter"
    calls = []
    for agent in decision["participants"]:
        shown = decision["reads"][agent]
        calls.append(
            call(
                view,
                agent,
                reads=[latest[agent], *shown],
                template=template if shown else "reflect",
                vars={"group": _group_of(groups, agent)},
            )
        )
    return calls


def _summary_calls(view: View, wanted: Sequence[int]) -> list[Call]:
    latest = view.latest_ids()
    groups = view.method_state["groups"]
    return [
        call(
            view,
            "summarizer",
            kind="summary",
            id=summary_id(view.round, g),
            reads=[latest[a] for a in groups[g - 1] if a in latest],
            template="summary",
            vars={"group": g},
        )
        for g in wanted
    ]


def plan_s2mad(view: View) -> Phase | list[Call] | None:
    """Round 0: every agent answers. Later: the mechanism, then summaries and/or answers.

    An inter-group round whose summaries someone reads has two phases (the summaries, then
    the answers); every other round has one. A round in which nobody takes part makes no
    call: its decision is recorded and the round ends.
    """
    if view.round == 0:
        return _start(view) if view.phase == 0 else None
    if view.phase == 0:
        decision = decide_round(view)
        state = {
            "decisions": [*view.method_state.get("decisions", []), decision],
            "round_labels": _labels(view),
        }
        if decision["summaries"]:
            return Phase(_summary_calls(view, decision["summaries"]), state)
        return Phase(_answer_calls(view, decision), state)
    decision = view.method_state["decisions"][-1]
    if view.phase == 1 and decision["summaries"]:
        return _answer_calls(view, decision)
    return None


async def observe_s2mad(view: View) -> dict[str, Any] | None:
    """Compare the agents' latest responses once new answers are in; check for consensus."""
    latest = view.latest()
    ids = [latest[a]["id"] if a in latest else None for a in view.agents]
    known = view.method_state.get("similarity")
    if known is not None and known["turns"] == ids:
        return None  # a phase of summaries: nobody's latest response changed
    options = view.options
    turns: list[Turn | None] = [latest.get(a) for a in view.agents]
    if options.similarity == "answer":
        sim = answer_similarity([t["answer"] if t else None for t in turns])
    else:
        texts = [t["text"] if t else "" for t in turns]
        vectors = await embeddings_for(options.embeddings).aembed_documents(texts)
        sim = cosine_similarity(vectors)
    largest = agreement(sim, options.cutoff)
    reached = options.consensus is not None and reached_consensus(
        sim, options.cutoff, options.consensus
    )
    return {
        "similarity": {
            "round": view.round,
            "mode": options.similarity,
            "threshold": options.cutoff,
            "turns": ids,
            "matrix": [[round(x, 6) for x in row] for row in sim],
        },
        "consensus": {"round": view.round, "largest": largest, "reached": reached},
    }


def stop_s2mad(view: View) -> bool:
    """Stop after the rounds in force, or once the latest responses reach consensus.

    Consensus counts from round ``consensus_from`` on (by default after round one, as in
    SVR-MAD's protocol, so a near-consensus start still debates once).
    """
    consensus = view.method_state.get("consensus") or {}
    early = view.round >= view.options.consensus_from and bool(consensus.get("reached"))
    return default_stop(view) or early


S2MAD = Method(
    name="s2mad",
    presets=presets.paper(presets.SVR_MAD_BASELINE),
    description="S²-MAD: GroupDebate's groups and stages, but an agent debates only when a "
    "peer's view differs from its own and reads only the differing views; stops at "
    "consensus; majority vote.",
    prompts=prompts.PROMPTS,
    system=prompts.SYSTEM_PROMPTS,
    plan=plan_s2mad,
    observe=observe_s2mad,
    stop=stop_s2mad,
    options=S2MadOptions,
    roles=("summarizer",),
    default_agents=6,
    default_rounds=2,
    max_phases=2,
    plan_node="filter",
    card="docs/methods/s2mad.md",
)
"""The ``s2mad`` method; configure it with ``S2MadOptions`` (``--option KEY=VALUE``)."""
