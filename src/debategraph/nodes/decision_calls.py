"""The calls a decision rule adds to any method: ballot requests, and the judge's call.

When the rule in force reads ballots, the answer calls of a round that may be the last carry
a ``ballot`` variable (the candidates and the ballot's kind); the call node appends the
request to the prompt and reads the ballot from the reply. A round may be the last when it
reaches the round limit, or whenever the debate can stop early (a consensus stop, a method's
own stop rule). When the rule is the judge, one call of kind ``decision`` follows the round
after which the method stops: the judge agent's model reads every agent's latest answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from debategraph.methods.contract import DebateView, Method, default_stop, stops_at_consensus
from debategraph.policies.ballots import DEFAULT_POINTS, BallotKind
from debategraph.policies.rule_needs import NO_NEEDS, RuleNeeds, rule_needs
from debategraph.state.context import DebateContext
from debategraph.state.records import Call, Turn
from debategraph.state.views import latest_by_agent

JUDGE_TEMPLATE = "judge"
"""The template of the judge's call (:data:`debategraph.prompts.decision.PROMPTS`)."""


def needs_in_force(method: Method[Any], ctx: DebateContext) -> RuleNeeds:
    """What the decision rule in force reads besides the answers (nothing if unregistered)."""
    from debategraph.methods.registry import PluginError, get_rule

    name = ctx.decision or method.decision
    try:
        return rule_needs(get_rule(name))
    except PluginError:  # a method's own decision that is no registered rule (svr)
        return NO_NEEDS


def may_stop_early(view: DebateView[Any]) -> bool:
    """The debate can end before its round limit (consensus stop, or the method's own stop)."""
    return stops_at_consensus(view) or view.method.stop is not default_stop


def asks_ballots(view: DebateView[Any]) -> bool:
    """This round's answer calls carry the ballot request (it may be the last debate round)."""
    return view.round >= 1 and (view.round >= view.rounds or may_stop_early(view))


def points_of(ctx: DebateContext) -> int:
    """The cumulative budget in force (the rule's ``points`` option, else the default)."""
    points = ctx.decision_options.get("points", DEFAULT_POINTS)
    return points if isinstance(points, int) and not isinstance(points, bool) else DEFAULT_POINTS


def with_ballots(view: DebateView[Any], calls: Sequence[Call], kind: BallotKind) -> list[Call]:
    """``calls`` with a ballot request on every agent's answer call, where this round asks.

    An agent's candidates are its own latest answer and the answers of the turns it reads,
    each once, in that order; an agent with none is not asked.
    """
    if not asks_ballots(view):
        return list(calls)
    turns = view.turns
    by_id = {t["id"]: t for t in turns}
    own = latest_by_agent([t for t in turns if t["round"] < view.round])
    out = []
    for c in calls:
        if c["kind"] != "answer" or c["speaker"] not in view.agents:
            out.append(c)
            continue
        seen = [own[c["speaker"]]] if c["speaker"] in own else []
        seen += [by_id[i] for i in c["reads"] if i in by_id]
        candidates = list(
            dict.fromkeys(
                t["answer"]
                for t in seen
                if t["kind"] in ("answer", "pairwise") and t["answer"] is not None
            )
        )
        if not candidates:
            out.append(c)
            continue
        ballot: dict[str, Any] = {"kind": kind, "candidates": candidates}
        if kind == "cumulative":
            ballot["points"] = points_of(view.context)
        out.append(Call(**{**c, "vars": {**c["vars"], "ballot": ballot}}))
    return out


def judge_agent(view: DebateView[Any]) -> str:
    """The agent whose model judges: the ``judge_agent`` option, else the first agent."""
    chosen = view.context.decision_options.get("judge_agent")
    return str(chosen) if chosen is not None else view.agents[0]


def judge_call(view: DebateView[Any]) -> Call | None:
    """The judge's call, when the round just ended is the last and none was made yet.

    It reads every agent's latest answer turn, in agent order. None where the method decides
    without the rule on this debate (its ``rule_applies`` says no).
    """
    if any(t["kind"] == "decision" for t in view.turns) or not view.method.stop(view):
        return None
    applies = view.method.rule_applies
    if applies is not None and not applies(view):
        return None
    latest = view.latest_ids()
    return Call(
        id=f"r{view.round}:decision",
        kind="decision",
        speaker=judge_agent(view),
        round=view.round,
        reads=[latest[a] for a in view.agents if a in latest],
        template=JUDGE_TEMPLATE,
        vars={},
        history=False,
    )


def decided_this_round(turns: Sequence[Turn], round_: int) -> bool:
    """The judge's call was made in ``round_`` (it is the round's last phase)."""
    return any(t["kind"] == "decision" and t["round"] == round_ for t in turns)
