"""CortexDebate (Sun et al., arXiv 2507.03928) on the engine: method ``cortex``.

Round 0: every agent answers alone with an answer, an explanation and a confidence. After
each round, ``observe_round`` recalibrates the confidences, embeds the outputs and folds both
into the McKinsey running means. Before each debate round, ``plan_cortex`` computes the edge
weights, prunes them, and lets every agent read only the previous outputs of the heads it
kept. Agents are stateless; the debate stops at consensus or after ``D`` rounds, and the last
round is put to a majority vote ("no answer" when every answer differs).

``method_state`` (JSON-safe, also in ``DebateResult.to_dict``):

* ``graphs``: one entry per debate round, ``{"round", "agents", "edges"}``; each edge is
  ``{"head", "tail", "weight", "kept"}``, an infinite weight written ``"inf"``;
* ``mdm``: the running state (``round``, ``reliability``, ``similarity``, ``reads``,
  ``selections``) after the last observed round;
* ``credibilities``: ``C`` per agent, from its model label;
* ``confidences``: per round, the recalibrated confidence of every agent;
* ``unparsed_confidences``: how many confidences could not be parsed (each counted as 0.5);
* ``cortex_options``: the options in force.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from debategraph.models.embeddings import resolve_embeddings
from debategraph.models.resolve import agent_credibilities
from debategraph.nodes.method import Method
from debategraph.policies.graphs import edge_list
from debategraph.policies.mdm import (
    NEUTRAL_CONFIDENCE,
    McKinseyState,
    edge_weights,
    initial_state,
    partners,
    prune,
    recalibrate_confidence,
    update_state,
)
from debategraph.prompts import cortex as prompts
from debategraph.state.context import DebateContext
from debategraph.state.debate import DebateState
from debategraph.state.options import CortexOptions, EmbeddingsSpec
from debategraph.state.records import AgentPlan, Turn
from debategraph.state.views import answer_turns, latest_by_agent


@lru_cache(maxsize=16)
def _embeddings_from_spec(spec: str) -> Embeddings:
    return resolve_embeddings(spec)


def embeddings_for(spec: EmbeddingsSpec) -> Embeddings:
    """The embeddings of an options spec; a string spec is resolved once per process."""
    return spec if isinstance(spec, Embeddings) else _embeddings_from_spec(spec)


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


def plan_cortex(state: DebateState, ctx: DebateContext, round_: int) -> dict[str, Any]:
    """Weigh and prune the debate graph; each agent reads its kept heads' latest outputs.

    A cut-off agent (the communication attack) reads only its own previous output.
    """
    options, names = ctx.cortex, ctx.agent_names
    kept_state = state["method_state"]
    weights, keep = round_weights(
        load_state(kept_state["mdm"]), kept_state["credibilities"], options
    )
    latest = {a: t["id"] for a, t in latest_by_agent(state["turns"]).items()}
    plan: dict[str, AgentPlan] = {}
    for tail, heads in zip(names, partners(keep), strict=True):
        own = [latest[tail]] if tail in latest else []
        if tail in ctx.cut_off:
            plan[tail] = AgentPlan(reads=own, prompt="reflect")
            continue
        reads = [latest[names[i]] for i in heads if names[i] in latest]
        if options.include_own_previous:
            reads = own + reads
        plan[tail] = AgentPlan(reads=reads, prompt="debate" if reads else "initial")
    graph = {"round": round_, "agents": names, "edges": edge_list(weights, names, keep)}
    return {"plan": plan, "method_state": {"graphs": [*kept_state.get("graphs", []), graph]}}


def _read_matrix(turns: dict[str, Turn], names: list[str]) -> np.ndarray:
    """``[head, tail]`` is True when tail's turn read head's turn (who actually debated)."""
    index = {a: i for i, a in enumerate(names)}
    read = np.zeros((len(names), len(names)), dtype=bool)
    for tail, turn in turns.items():
        for turn_id in turn["read"]:
            head = turn_id.split(":", 1)[1]
            if head in index:
                read[index[head], index[tail]] = True
    return read


async def observe_round(state: DebateState, ctx: DebateContext) -> dict[str, Any]:
    """Fold the round just answered into the McKinsey running means.

    Confidences are recalibrated (an unparseable one counts as ``NEUTRAL_CONFIDENCE`` and is
    counted); the outputs, without their confidence lines, are embedded for the similarity.
    """
    options, names = ctx.cortex, ctx.agent_names
    d = state["round"]
    kept_state = state.get("method_state", {})
    spoke = {t["agent"]: t for t in answer_turns(state["turns"]) if t["round"] == d}
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
        update["credibilities"] = agent_credibilities(ctx)
        update["cortex_options"] = options.to_dict()
    return {"method_state": update}


CORTEX = Method(
    name="cortex",
    description="CortexDebate: stateless agents read only the peers a McKinsey-trust graph "
    "keeps; stops at consensus; majority vote, no answer if all differ.",
    prompts=prompts.PROMPTS,
    plan=plan_cortex,
    confidence=True,
    default_agents=5,
    default_rounds=5,
    stop_on_consensus=True,
    after_round=observe_round,
    no_answer_if_all_differ=True,
)
"""The ``cortex`` method; configure it with ``DebateContext.cortex`` (``CortexOptions``)."""
