"""SVR-MAD (Jiang et al., arXiv 2605.23099) on the engine: method ``svr``.

Round 0: every agent answers alone (with token logprobs, or a stated confidence, for the
prior). Each later round is one SVR iteration: the agent with the highest correctness score
is the *receiver*, and up to ``S`` agents whose initial answers differ from its own each
challenge it in a one-on-one debate. A debate is one ``pairwise`` call of the receiver, id
``r{k}:{receiver}<{challenger}``: it keeps its own first answer as chat history and reads
exactly the challenger's round-0 turn. The ``observe`` hook records whether the receiver
kept its initial answer, updates its score (the survival rate from then on), grows the
communication graph, accepts the receiver's answer once it survived ``C`` challengers, spends
the budget and picks the next iteration's receiver and challengers. The debate stops on
acceptance, a spent budget, with no pair left to debate, or at once when every initial answer
agrees. ``decide`` returns the accepted answer, else the paper's fallback vote.

``method_state`` (JSON-safe, also in ``DebateResult.to_dict``): see ``docs/methods/svr-mad.md``.
"""

from __future__ import annotations

from typing import Any

from debategraph.methods import (
    MAX_ROUNDS,
    Call,
    DebateConfigError,
    DebateView,
    Decision,
    Method,
    Trajectory,
    call,
    decide_by_rule,
    initial_calls,
    logprob_request,
    presets,
)
from debategraph.methods.svr.options import SvrOptions
from debategraph.methods.svr.state import initial_turns, observe_svr, pair_id
from debategraph.policies.survival import (
    NEEDS_LOGPROBS,
    fallback_vote,
    iterations_for,
    post_debate_votes,
)
from debategraph.prompts import svr as prompts

View = DebateView[SvrOptions]

NAMED_RULES = ("majority", "freemad", "credibility", "supermajority", "unanimity")
"""Named decision rules that ``svr`` can end with, over each agent's post-debate vote."""


def check_decision(view: View) -> None:
    """Refuse a decision rule (or its options) that does not fit SVR-MAD, before any call.

    Raises:
        DebateConfigError: ``reconcile`` or another rule svr cannot use, or decision options
            for svr's own rule.
    """
    rule = view.context.decision
    if rule is None:
        if view.context.decision_options:
            raise DebateConfigError(
                "svr's own decision rule (acceptance, else the fallback vote) takes no "
                "decision options; name a rule with --decision to pass options to it"
            )
        return
    if rule == "reconcile":
        raise DebateConfigError(
            "svr cannot end with the 'reconcile' rule: it weighs each agent's final "
            "confidence, but an SVR agent's final stance is a vote over several one-on-one "
            "debates and has no confidence of its own. Use svr's own rule (the default), "
            f"or one of: {', '.join(NAMED_RULES)}"
        )
    if rule not in NAMED_RULES:
        raise DebateConfigError(
            f"svr cannot end with the {rule!r} rule; use svr's own rule (the default), or "
            f"one of: {', '.join(NAMED_RULES)}"
        )


def round_bound(view: View) -> int:
    """Most iterations a run may take, known before any answer.

    The least of: the budget's iterations (``k + m <= n + 1`` by default), the number of
    ordered agent pairs (each iteration debates a new one) and ``rounds``.
    """
    options = view.options
    n = len(view.agents)
    budget = options.budget if options.budget is not None else options.challengers * (n + 1)
    bound = min(iterations_for(budget, options.challengers), view.rounds)
    return bound if options.repeat_pairs else min(bound, n * (n - 1))


def bind_svr(view: View, c: Call) -> dict[str, Any]:
    """Ask the first answers for token logprobs when the prior is computed from them."""
    if c["round"] == 0 and c["kind"] == "answer" and view.options.prior in NEEDS_LOGPROBS:
        return logprob_request()
    return {}


def plan_svr(view: View) -> list[Call] | None:
    """Round 0: everyone answers alone. Round ``k``: the iteration's pairwise debates.

    A cut-off receiver (the communication attack) never gets the challenger's message: its
    debate call reads nothing and re-checks its own answer (template ``reflect``).
    """
    if view.round == 0:
        if view.phase > 0:
            return None
        check_decision(view)
        return initial_calls(view)
    state = view.method_state
    current = state.get("current")
    if state.get("end") or not current or current["round"] != view.round:
        return None
    receiver = current["receiver"]
    done = set(current["folded"])
    pending = [s for s in current["challengers"] if pair_id(view.round, receiver, s) not in done]
    if view.options.schedule == "concurrent":
        chosen = pending if view.phase == 0 else []
    else:
        chosen = pending[:1]
    if not chosen:
        return None
    cut = receiver in view.cut_off
    return [
        call(
            view,
            receiver,
            kind="pairwise",
            id=pair_id(view.round, receiver, s),
            reads=[] if cut else [f"r0:{s}"],
            template="reflect" if cut else "pairwise",
            history=True,
            vars={"challenger": s},
        )
        for s in chosen
    ]


def stop_svr(view: View) -> bool:
    """Stop once the method state names an end (acceptance, budget, nothing left, unanimity)."""
    return bool(view.method_state.get("end")) or view.round >= view.rounds


def agent_votes(view: View) -> list[str | None]:
    """Each agent's post-debate vote (its initial answer if it was never challenged)."""
    state = view.method_state
    return post_debate_votes(state["initial_answers"], state["post_debate"], state["scores"])


def vote_trajectory(view: View) -> Trajectory:
    """What a named decision rule reads: each agent's initial answer, then its vote.

    Without any debate the trajectory is the initial round alone. An agent whose vote differs
    from its initial answer has no confidence for it (``None``).
    """
    state = view.method_state
    first = initial_turns(view)
    initial = state["initial_answers"]
    confidences = [first[a]["confidence"] if a in first else None for a in view.agents]
    if not any(state["debates"]):
        return Trajectory(view.agents, [[y] for y in initial], [[c] for c in confidences])
    votes = agent_votes(view)
    return Trajectory(
        view.agents,
        [[y, v] for y, v in zip(initial, votes, strict=True)],
        [[c, c if v == y else None] for c, y, v in zip(confidences, initial, votes, strict=True)],
    )


def decide_svr(view: View) -> Decision:
    """The accepted answer, else the fallback vote; a named rule over the votes if asked.

    Every decision's evidence says why the debate ended (``end``).
    """
    check_decision(view)
    state = view.method_state
    end = state.get("end")
    if view.context.decision is not None:
        decision = decide_by_rule(view, trajectory=vote_trajectory(view))
        return Decision(decision.answer, decision.rule, {**decision.evidence, "end": end})
    initial = state["initial_answers"]
    if end == "unanimous":
        return Decision(
            initial[0],
            "svr",
            {"outcome": "unanimous", "end": end, "votes": {initial[0]: len(initial)},
             "abstentions": 0},
        )  # fmt: skip
    accepted = state.get("accepted")
    if accepted:
        return Decision(
            accepted["answer"],
            "svr",
            {"outcome": "accepted", "end": end, **accepted, "abstentions": 0},
        )
    decision = fallback_vote(initial, state["post_debate"], state["scores"])
    return Decision(decision.answer, decision.rule, {**decision.evidence, "end": end})


SVR = Method(
    name="svr",
    presets=presets.paper(presets.SVR_MAD),
    description="SVR-MAD: one-on-one challenges of the highest-scored agent grow the "
    "communication graph; accepts an answer that survives C challengers, else a fallback vote.",
    prompts=prompts.PROMPTS,
    plan=plan_svr,
    observe=observe_svr,
    stop=stop_svr,
    decide=decide_svr,
    takes_decision=True,
    options=SvrOptions,
    bind=bind_svr,
    decision="svr",
    answer_rounds=False,
    default_agents=6,
    default_rounds=MAX_ROUNDS,
    max_phases=64,
    round_bound=round_bound,
    plan_node="svr",
    card="docs/methods/svr-mad.md",
)
"""The ``svr`` method; configure it with ``SvrOptions`` (``--option KEY=VALUE``)."""
