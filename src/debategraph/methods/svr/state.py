"""SVR-MAD's bookkeeping: the method state its ``observe`` hook keeps after every phase.

After the first answers: the priors, the scores, the budget ``B_max = S * (k + m)`` and the
first iteration's receiver and challengers (or the reason there is nothing to debate). After
each phase of pairwise debates: retain/change outcomes folded in challenger order, the
receiver's survival rate, acceptance, the communication graph so far, the budget left and the
next selection. Every value is JSON-safe; ``docs/methods/svr-mad.md`` lists the keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debategraph.methods import LOGPROBS_HELP, DebateConfigError, DebateView, Turn
from debategraph.methods.svr.options import SvrOptions
from debategraph.policies.survival import (
    MissingLogprobs,
    accepts,
    answer_clusters,
    communication_budget,
    correctness_score,
    post_debate_votes,
    prior_signal,
    select,
    survival_rate,
)
from debategraph.policies.voting import unanimous

View = DebateView[SvrOptions]


def pair_id(round_: int, receiver: str, challenger: str) -> str:
    """The id of the debate in which ``challenger`` challenges ``receiver`` in ``round_``."""
    return f"r{round_}:{receiver}<{challenger}"


def initial_turns(view: View) -> dict[str, Turn]:
    """Each agent's first answer turn."""
    return {t["agent"]: t for t in view.turns if t["round"] == 0 and t["kind"] == "answer"}


def _priors(view: View, first: dict[str, Turn]) -> tuple[list[float], int]:
    """Every agent's prior, and how many stated confidences could not be read."""
    kind = view.options.prior
    priors, unparsed = [], 0
    for agent in view.agents:
        turn = first[agent]
        if kind == "confidence" and turn["confidence"] is None:
            unparsed += 1
        try:
            priors.append(prior_signal(kind, turn.get("logprobs"), turn["confidence"]))
        except MissingLogprobs:
            raise DebateConfigError(
                f"svr: the {kind} prior needs token logprobs, but the model of {agent} "
                f"({turn['model']}) returned none with its first answer, though svr asked for "
                f"them: {LOGPROBS_HELP}; or use the confidence prior: --option "
                "prior=confidence (options={'prior': 'confidence'} in Python)"
            ) from None
    return priors, unparsed


def _next(
    view: View, state: dict[str, Any], round_: int
) -> tuple[dict[str, Any] | None, str | None]:
    """The next iteration's selection, or the reason the debate ends."""
    options = view.options
    if state["budget"]["left"] <= 0:
        return None, "budget"
    if round_ > view.rounds:
        return None, "rounds"
    index = {a: i for i, a in enumerate(view.agents)}
    chosen = select(
        state["scores"],
        state["initial_answers"],
        [(index[s], index[r]) for s, r in state["debated"]],
        options.challengers,
        repeat_pairs=options.repeat_pairs,
    )
    if chosen is None:
        return None, "exhausted"
    names = view.agents
    return {
        "round": round_,
        "receiver": names[chosen.receiver],
        "challengers": [names[i] for i in chosen.challengers],
        "exhausted": [names[i] for i in chosen.exhausted],
        "score": state["scores"][chosen.receiver],
        "folded": [],
        "edges": [],
    }, None


def _start(view: View) -> dict[str, Any]:
    """Method state after the first answers: priors, scores, budget, first selection."""
    options = view.options
    first = initial_turns(view)
    answers = [first[a]["answer"] for a in view.agents]
    priors, unparsed = _priors(view, first)
    k, m = answer_clusters(answers)
    budget = (
        options.budget
        if options.budget is not None
        else communication_budget(options.challengers, answers)
    )
    n = len(view.agents)
    state: dict[str, Any] = {
        "svr_options": options.to_dict(),
        "initial_answers": answers,
        "priors": priors,
        "scores": list(priors),
        "debates": [0] * n,
        "retained": [0] * n,
        "changed": [0] * n,
        "post_debate": [[] for _ in range(n)],
        "debated": [],
        "budget": {"max": budget, "left": budget, "k": k, "m": m},
        "iterations": [],
        "graphs": [],
        "accepted": None,
        "current": None,
        "end": None,
    }
    if options.prior == "confidence":
        state["unparsed_confidences"] = unparsed
    if unanimous(answers):
        state["end"] = "unanimous"
    else:
        state["current"], state["end"] = _next(view, state, 1)
    return state


@dataclass
class _Tally:
    """A working copy of the per-agent counts and scores, read from and written to state."""

    priors: list[float]
    debates: list[int]
    retained: list[int]
    changed: list[int]
    scores: list[float]
    post_debate: list[list[str | None]]

    @classmethod
    def load(cls, state: dict[str, Any]) -> _Tally:
        return cls(
            priors=list(state["priors"]),
            debates=list(state["debates"]),
            retained=list(state["retained"]),
            changed=list(state["changed"]),
            scores=list(state["scores"]),
            post_debate=[list(p) for p in state["post_debate"]],
        )

    def dump(self) -> dict[str, Any]:
        return {
            "debates": self.debates,
            "retained": self.retained,
            "changed": self.changed,
            "scores": self.scores,
            "post_debate": self.post_debate,
        }

    def record(self, r: int, answer: str | None, kept: bool) -> None:
        """One debate of receiver ``r``: count it and refresh its score."""
        self.debates[r] += 1
        self.retained[r] += kept
        self.changed[r] += not kept
        self.post_debate[r].append(answer)
        self.scores[r] = correctness_score(
            self.priors[r], self.debates[r], self.retained[r], self.changed[r]
        )

    def accepts(self, r: int, options: SvrOptions) -> bool:
        """Whether receiver ``r`` now meets the acceptance rule."""
        return accepts(
            self.debates[r],
            self.retained[r],
            self.changed[r],
            accept_after=options.accept_after,
            threshold=options.accept_threshold,
        )

    def acceptance(self, r: int, agent: str, answer: str | None, round_: int) -> dict[str, Any]:
        """The record of receiver ``r``'s accepted answer."""
        d, kept, changed = self.debates[r], self.retained[r], self.changed[r]
        return {
            "agent": agent,
            "answer": answer,
            "round": round_,
            "debates": d,
            "retained": kept,
            "changed": changed,
            "survival_rate": survival_rate(d, kept, changed),
        }


def _edge(turn: Turn, challenger: str, kept: bool, scored: bool) -> dict[str, Any]:
    """One debate as an edge ``challenger -> receiver`` of the communication graph."""
    outcome = "retained" if kept else "changed"
    return {
        "head": challenger,
        "tail": turn["agent"],
        "weight": 1.0 if kept else -1.0,
        "kept": bool(turn["reads"]),
        "round": turn["round"],
        "outcome": outcome,
        "answer": turn["answer"],
        "scored": scored,
        "turn": turn["id"],
        "label": f"{turn['round']}: {outcome}",
    }


def _fold(view: View) -> dict[str, Any]:
    """Fold the debates just answered into the scores; close the iteration when complete.

    Debates are folded in challenger order. Once the receiver is accepted, later debates
    of the iteration (already under way when debates run concurrently) are recorded in the
    graph but not scored.
    """
    options = view.options
    old = view.method_state
    current = old["current"]
    receiver, k = current["receiver"], view.round
    r = view.agents.index(receiver)
    own = old["initial_answers"][r]
    tally = _Tally.load(old)
    debated, folded, edges = list(old["debated"]), list(current["folded"]), list(current["edges"])
    accepted = old["accepted"]
    by_id = {t["id"]: t for t in view.turns if t["round"] == k}
    for s in current["challengers"]:
        turn = by_id.get(pair_id(k, receiver, s))
        if turn is None or turn["id"] in folded:
            continue
        kept = turn["answer"] is not None and turn["answer"] == own
        scored = accepted is None
        if scored:
            tally.record(r, turn["answer"], kept)
            if options.accept_check == "debate" and tally.accepts(r, options):
                accepted = tally.acceptance(r, receiver, own, k)
        debated.append([s, receiver])
        folded.append(turn["id"])
        edges.append(_edge(turn, s, kept, scored))
    state: dict[str, Any] = {
        **tally.dump(),
        "debated": debated,
        "accepted": accepted,
        "current": {**current, "folded": folded, "edges": edges},
        "stances": _stances(view, old["initial_answers"], tally),
    }
    if accepted is None and len(folded) < len(current["challengers"]):
        return state  # a sequential iteration with debates still to come
    if accepted is None and options.accept_check == "iteration" and tally.accepts(r, options):
        accepted = state["accepted"] = tally.acceptance(r, receiver, own, k)
    budget = dict(old["budget"])
    if accepted is None:
        budget["left"] -= options.challengers
    earlier = old["graphs"][-1]["edges"] if old["graphs"] else []
    graph = {
        "round": k,
        "agents": list(view.agents),
        "receiver": receiver,
        "title": f"SVR iteration {k}: {receiver} challenged (graph so far)",
    }
    state["budget"] = budget
    state["graphs"] = [*old["graphs"], {**graph, "edges": earlier + edges}]
    state["iterations"] = [
        *old["iterations"],
        {
            "round": k,
            "receiver": receiver,
            "challengers": current["challengers"],
            "exhausted": current["exhausted"],
            "score_before": current["score"],
            "score_after": tally.scores[r],
            "budget_left": budget["left"],
            "accepted": accepted is not None,
        },
    ]
    if accepted is not None:
        state["current"], state["end"] = None, "accepted"
    else:
        state["current"], state["end"] = _next(view, {**old, **state}, k + 1)
    return state


def _stances(view: View, initial: list[str | None], tally: _Tally) -> dict[str, Any]:
    """Each agent's vote after the debates so far, and its confidence (kept if unchanged).

    SVR-MAD's agents take their stances in pairwise debates, not answer turns: a result
    reads these as the round after round 0 (``DebateResult.round_answers``), so a report
    counts an agent that changed its answer as a flip.
    """
    first = initial_turns(view)
    votes = post_debate_votes(initial, tally.post_debate, tally.scores)
    confidences = [
        first[a]["confidence"] if a in first and v == y else None
        for a, y, v in zip(view.agents, initial, votes, strict=True)
    ]
    return {"answers": [votes], "confidences": [confidences]}


def observe_svr(view: View) -> dict[str, Any]:
    """After the first answers, set up the scores; after each phase, fold its debates."""
    return _start(view) if view.round == 0 else _fold(view)
