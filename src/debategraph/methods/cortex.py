"""CortexDebate (Sun et al., arXiv 2507.03928) on the engine: method ``cortex``.

Round 0: every agent answers alone with an answer, an explanation and a confidence. After
each round, the ``observe`` hook recalibrates the confidences, embeds the outputs and folds
both into the McKinsey running means. Before each debate round, the ``plan`` hook computes the
edge weights, prunes them, and lets every agent read only the previous outputs of the heads it
kept. Agents are stateless; the debate stops at consensus (checked from the first debate round
on, as Algorithm 1 does) or after ``D`` rounds, and the last round is put to a majority vote
("no answer" when every answer differs).

``method_state`` (JSON-safe, also in ``DebateResult.to_dict``):

* ``graphs``: one entry per debate round, ``{"round", "agents", "edges"}``; each edge is
  ``{"head", "tail", "weight", "kept"}``, an infinite weight written ``"inf"``;
* ``mdm``: the running state (``round``, ``reliability``, ``similarity``, ``reads``,
  ``selections``) after the last observed round;
* ``credibilities``: ``C`` per agent, from its model label;
* ``default_sizes``: model labels not in ``MODEL_SIZES``, whose credibility uses the default
  size (the transcript says so);
* ``confidences``: per round, the recalibrated confidence of every agent;
* ``unparsed_confidences``: how many confidences could not be parsed (each counted as 0.5);
* ``cortex_options``: the options in force.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from debategraph.methods import (
    Call,
    DebateView,
    Method,
    Phase,
    Turn,
    answer_turns,
    call,
    decide_by_rule,
    initial_calls,
    presets,
)
from debategraph.methods.embeddings import EmbeddingsOptions, embeddings_for
from debategraph.policies.mdm_scalar import (
    NEUTRAL_CONFIDENCE,
    PAPER_THRESHOLDS,
    Participation,
    PruneRule,
    Smoothing,
    Thresholds,
    label_credibility,
    recalibrate_confidence,
    size_is_known,
    validate_thresholds,
)
from debategraph.policies.types import Decision
from debategraph.prompts import cortex as prompts

if TYPE_CHECKING:
    import numpy as np

    from debategraph.policies.mdm import McKinseyState

# numpy (and the MDM matrix math) is imported by the hooks that use it, when a cortex debate
# runs: the method object and its options are built at import and must stay cheap.


@dataclass(frozen=True, kw_only=True)
class CortexOptions(EmbeddingsOptions):
    """Every choice CortexDebate leaves open, with the paper's setting or ours as default.

    See ``docs/methods/cortexdebate.md`` for what each option means and which paper table it
    reproduces.

    Attributes:
        thresholds: Recalibration thresholds ``(t0, t1, t2)``, strictly decreasing; ``None``
            turns recalibration off (Table 11, "w/o recalibration").
        smoothing: ``"add_one"`` divides by ``S + 1``; ``"literal"`` by ``S`` as printed.
        participation: What ``P`` counts: ``"read"`` (heads read) or ``"selected"`` (tails
            that read the agent).
        prune: ``"mean"`` (the paper's), ``"median"``, ``"top_k"``, ``"bottom_k_excluded"``
            or ``"all"`` (fully connected).
        k: ``k`` of ``top_k`` and ``bottom_k_excluded``.
        use_credibility: Include credibility ``C`` in the edge weight.
        use_reliability: Include reliability ``R``.
        use_intimacy: Include intimacy ``I``.
        use_self_orientation: Include self-orientation ``S``.
        embeddings: The embeddings for the similarity term (see
            :class:`~debategraph.methods.embeddings.EmbeddingsOptions`).
        fallback_vote: When every final answer differs, vote with the tie policy instead of
            returning "no answer" (the paper's rule).
        include_own_previous: Show a regenerating agent its own previous output too.
    """

    thresholds: Thresholds | None = PAPER_THRESHOLDS
    smoothing: Smoothing = "add_one"
    participation: Participation = "read"
    prune: PruneRule = "mean"
    k: int = 3
    use_credibility: bool = True
    use_reliability: bool = True
    use_intimacy: bool = True
    use_self_orientation: bool = True
    fallback_vote: bool = False
    include_own_previous: bool = False

    def __post_init__(self) -> None:
        if self.thresholds is not None:
            if isinstance(self.thresholds, str | bytes) or not isinstance(
                self.thresholds, Sequence
            ):
                raise ValueError(
                    f"thresholds must be three numbers or None, got {self.thresholds!r}"
                )
            object.__setattr__(self, "thresholds", validate_thresholds(self.thresholds))
        super().__post_init__()
        if self.k < 1:
            raise ValueError(f"k must be an integer of at least 1, got {self.k!r}")


def dump_state(state: McKinseyState) -> dict[str, Any]:
    """A JSON-safe copy of the running McKinsey state."""
    return {
        "round": state.round,
        "reliability": state.reliability.tolist(),
        "similarity": state.similarity.tolist(),
        "reads": state.reads.tolist(),
        "selections": state.selections.tolist(),
    }


def load_state(data: dict[str, Any]) -> McKinseyState:
    """The running McKinsey state back from ``dump_state``."""
    import numpy as np

    from debategraph.policies.mdm import McKinseyState

    return McKinseyState(
        round=int(data["round"]),
        reliability=np.asarray(data["reliability"], dtype=np.float64),
        similarity=np.asarray(data["similarity"], dtype=np.float64),
        reads=np.asarray(data["reads"], dtype=np.int64),
        selections=np.asarray(data["selections"], dtype=np.int64),
    )


def round_weights(
    state: McKinseyState, credibilities: list[float], options: CortexOptions
) -> tuple[np.ndarray, np.ndarray]:
    """The weight matrix of the coming debate round and the edges kept, ``[head, tail]``."""
    from debategraph.policies.mdm import edge_weights, prune

    weights = edge_weights(
        state,
        credibilities,
        smoothing=options.smoothing,
        participation=options.participation,
        use_credibility=options.use_credibility,
        use_reliability=options.use_reliability,
        use_intimacy=options.use_intimacy,
        use_self_orientation=options.use_self_orientation,
    )
    return weights, prune(weights, options.prune, options.k)


def plan_cortex(view: DebateView[CortexOptions]) -> Phase | list[Call]:
    """Weigh and prune the debate graph; each agent reads its kept heads' latest outputs.

    A cut-off agent (the communication attack) reads only its own previous output.
    """
    if view.round == 0:
        return initial_calls(view)
    from debategraph.policies.graphs import edge_list
    from debategraph.policies.mdm import partners

    options = view.options
    names = list(view.agents)
    kept_state = view.method_state
    weights, keep = round_weights(
        load_state(kept_state["mdm"]), kept_state["credibilities"], options
    )
    latest = view.latest_ids()
    calls = []
    for tail, heads in zip(names, partners(keep), strict=True):
        own = [latest[tail]] if tail in latest else []
        if tail in view.cut_off:
            calls.append(call(view, tail, reads=own, template="reflect"))
            continue
        reads = [latest[names[i]] for i in heads if names[i] in latest]
        if options.include_own_previous:
            reads = own + reads
        calls.append(call(view, tail, reads=reads, template="debate" if reads else "initial"))
    graph = {"round": view.round, "agents": names, "edges": edge_list(weights, names, keep)}
    return Phase(calls, {"graphs": [*kept_state.get("graphs", []), graph]})


def _read_matrix(turns: dict[str, Turn], names: list[str]) -> np.ndarray:
    """``[head, tail]`` is True when tail's turn read head's turn (who actually debated)."""
    import numpy as np

    index = {a: i for i, a in enumerate(names)}
    read = np.zeros((len(names), len(names)), dtype=bool)
    for tail, turn in turns.items():
        for turn_id in turn["reads"]:
            head = turn_id.split(":", 1)[1]
            if head in index and head != tail:
                read[index[head], index[tail]] = True
    return read


async def observe_cortex(view: DebateView[CortexOptions]) -> dict[str, Any]:
    """Fold the round just answered into the McKinsey running means.

    Confidences are recalibrated (an unparseable one counts as ``NEUTRAL_CONFIDENCE`` and is
    counted); the outputs, without their confidence lines, are embedded for the similarity.
    """
    from debategraph.policies.mdm import initial_state, update_state

    options = view.options
    names = list(view.agents)
    d = view.round
    kept_state = view.method_state
    spoke = {t["agent"]: t for t in answer_turns(view.turns) if t["round"] == d}
    raw = [spoke[a]["confidence"] if a in spoke else None for a in names]
    recalibrated = [
        recalibrate_confidence(NEUTRAL_CONFIDENCE if h is None else h, options.thresholds)
        for h in raw
    ]
    texts = [prompts.strip_confidence(spoke[a]["text"]) if a in spoke else "" for a in names]
    vectors = await embeddings_for(options.embeddings).aembed_documents(texts)
    if d == 0:
        before, adjacency = initial_state(len(names)), None
    else:
        before, adjacency = load_state(kept_state["mdm"]), _read_matrix(spoke, names)
    after = update_state(before, recalibrated, vectors=vectors, adjacency=adjacency)
    update: dict[str, Any] = {
        "mdm": dump_state(after),
        "confidences": [*kept_state.get("confidences", []), recalibrated],
        "unparsed_confidences": kept_state.get("unparsed_confidences", 0)
        + sum(h is None for h in raw),
    }
    if d == 0:
        labels = [spoke[a]["model"] if a in spoke else "simulated" for a in names]
        update["credibilities"] = [label_credibility(label) for label in labels]
        update["default_sizes"] = sorted({x for x in labels if not size_is_known(x)})
        update["cortex_options"] = options.to_dict()
    return update


def decide_cortex(view: DebateView[CortexOptions]) -> Decision:
    """Majority vote of the last round; "no answer" when every answer differs.

    ``fallback_vote`` lifts the all-differ rule (ties then go to the tie policy).
    """
    return decide_by_rule(view, no_answer_if_all_differ=not view.options.fallback_vote)


CORTEX = Method(
    name="cortex",
    presets=presets.paper(presets.CORTEX),
    description="CortexDebate: stateless agents read only the peers a McKinsey-trust graph "
    "keeps; stops at consensus; majority vote, no answer if all differ.",
    prompts=prompts.PROMPTS,
    plan=plan_cortex,
    observe=observe_cortex,
    decide=decide_cortex,
    takes_decision=True,
    options=CortexOptions,
    confidence=True,
    default_agents=5,
    default_rounds=5,
    stop_on_consensus=True,
    min_rounds=1,
    no_answer_if_all_differ=True,
    plan_node="mdm",
    card="docs/methods/cortexdebate.md",
)
"""The ``cortex`` method; configure it with ``method_options`` (``CortexOptions`` fields)."""
