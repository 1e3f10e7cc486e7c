"""The plan node and its conditional edge: which calls the next phase makes, and where they go.

The plan node asks the method's planner for the next phase of the current round (a new round
starts when the last one ended; a round ends when the planner returns nothing or after
``max_phases`` phases) and keeps the calls in state. Its conditional edge turns each call into
a ``Send`` to the node named by the call's speaker, with everything the call needs: the turns
it reads, the speaker's own history and the model-call arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from langgraph.graph import END
from langgraph.types import Send

from debategraph.errors import PlanError
from debategraph.methods.contract import Method, Phase, logprob_request
from debategraph.models.resolve import Models, model_key
from debategraph.models.roster import Agent
from debategraph.nodes.call import CallTask
from debategraph.nodes.call_fields import checked_call
from debategraph.nodes.decision_calls import (
    decided_this_round,
    judge_call,
    needs_in_force,
    with_ballots,
)
from debategraph.nodes.runnable import DualNode
from debategraph.nodes.view import current_context, view_of
from debategraph.policies.secrets import redact_url
from debategraph.policies.types import TaskKind
from debategraph.prompts.decision import PROMPTS as DECISION_PROMPTS
from debategraph.state.context import DebateContext
from debategraph.state.records import Call, CallKind, Turn

__all__ = ["PlanError", "check_calls", "make_dispatch", "make_plan_node"]


def _as_phase(result: object) -> Phase | None:
    if result is None:
        return None
    if isinstance(result, Phase):
        return result
    if isinstance(result, Sequence) and not isinstance(result, str | bytes):
        return Phase(calls=list(result))
    raise PlanError(f"a planner returns a Phase, a list of calls or None, got {result!r}")


def check_calls(
    method: Method[Any],
    calls: Sequence[Call],
    speakers: set[str],
    round_: int,
    made: Mapping[str, tuple[int, str]] | None = None,
) -> None:
    """Check a phase's calls before any is sent.

    Args:
        method: The method that planned them.
        calls: The phase's calls.
        speakers: The agent and role node names.
        round_: The round being planned.
        made: Every call already made in the debate: its id, with its round and kind.

    Raises:
        PlanError: A repeated or already-made id, an unknown speaker, kind or template, or a
            call of another round (each call's fields are checked before, by
            :func:`~debategraph.nodes.call_fields.checked_call`).
    """
    ids: set[str] = set()
    for c in calls:
        if c["id"] in ids:
            raise PlanError(f"{method.name}: two calls of one phase have the id {c['id']!r}")
        ids.add(c["id"])
        if made and c["id"] in made:
            when, kind = made[c["id"]]
            raise PlanError(
                f"{method.name}: the planner issued call {c['id']!r} again, but that {kind} "
                f"call was already made in round {when}. The planner is asked before every "
                "phase of a round (at most max_phases times): return None once the round's "
                "calls are made (view.phase is the phase index, view.made the ids made this "
                "round), and give every call an id of its own"
            )
        if c["speaker"] not in speakers:
            raise PlanError(
                f"{method.name}: call {c['id']!r} has speaker {c['speaker']!r}, which is neither "
                f"an agent nor a role of the method ({', '.join(sorted(speakers))})"
            )
        if c["kind"] not in get_args(CallKind):
            raise PlanError(f"{method.name}: call {c['id']!r} has unknown kind {c['kind']!r}")
        templates = DECISION_PROMPTS if c["kind"] == "decision" else method.prompts
        if c["template"] not in templates:
            raise PlanError(
                f"{method.name}: call {c['id']!r} uses template {c['template']!r}, which is not "
                f"among the {c['kind']} prompts ({', '.join(templates)})"
            )
        if c["round"] != round_:
            raise PlanError(f"{method.name}: call {c['id']!r} is for round {c['round']}")


def make_plan_node(method: Method[Any], speakers: Sequence[str]) -> DualNode:
    """Plan node for ``method``; ``speakers`` are the agent and role node names.

    The node is named after the method's ``plan_node`` (``mdm``, ``svr``, ``mask``, ...).
    """
    known = set(speakers)

    def plan(state: Mapping[str, Any]) -> dict[str, Any]:
        if state.get("phase") is None:
            round_, phase = state["round"] + 1, 0
        else:
            round_, phase = state["round"], state["phase"] + 1
        turns: Sequence[Turn] = state.get("turns") or ()
        if decided_this_round(turns, round_):
            return {"round": round_, "phase": None, "calls": []}
        view = view_of(method, state, round_=round_, phase=phase)
        needs = needs_in_force(method, view.context)
        planned = _as_phase(method.plan(view)) if phase < method.max_phases else None
        update: dict[str, Any] = {"round": round_}
        if planned is not None and planned.method_state:
            update["method_state"] = dict(planned.method_state)
        if planned is None or not planned.calls:
            judge = judge_call(view) if needs.judge else None
            if judge is not None:  # the rule's own call, after the last round
                check_calls(method, [judge], known, round_)
                return {**update, "phase": phase, "calls": [judge]}
            return {**update, "phase": None, "calls": []}
        calls = [checked_call(method.name, c, k) for k, c in enumerate(planned.calls)]
        made = {t["id"]: (t["round"], t["kind"]) for t in turns}
        check_calls(method, calls, known, round_, made)
        if needs.ballot is not None:
            calls = with_ballots(view, calls, needs.ballot)
        return {**update, "phase": phase, "calls": calls}

    return DualNode(method.plan_node, plan)


def make_dispatch(method: Method[Any], roster: Sequence[Agent]) -> DualNode:
    """The conditional edge after ``plan``: one ``Send`` per call, or END with none."""
    models = Models(roster, single_model=method.single_model)
    # Each speaker's model key, kept with the spec it was made from (a bound model object
    # or a spec string) so that it is labelled once, not once per call.
    keys: dict[str, tuple[object, str]] = {}

    def key_of(speaker: str, ctx: DebateContext) -> str:
        spec = models.spec_of(speaker, ctx)
        known = keys.get(speaker)
        if known is not None and known[0] is spec:
            return known[1]
        key = model_key(spec)
        keys[speaker] = (spec, key)
        return key

    def dispatch(state: Mapping[str, Any]) -> list[Send] | str:
        calls: list[Call] = state.get("calls") or []
        if not calls:
            return END
        ctx = current_context()
        turns: list[Turn] = state.get("turns") or []
        by_id = {t["id"]: t for t in turns}
        # Each speaker's answer and evaluation turns, in order: an answer call's history is
        # its answers; an evaluation call's (a judge's) also its earlier evaluations.
        answers: dict[str, list[Turn]] | None = None
        generation: dict[str, dict[str, Any]] = {}  # per model key: presets may differ
        view = view_of(method, state, context=ctx) if method.bind is not None else None
        task: TaskKind = state.get("task") or "number"
        shared = {
            "method": method.name,
            "base_url": redact_url(ctx.base_url) if ctx.base_url else None,
            "anonymize": ctx.anonymize,
            "options": method.options_for(ctx).to_dict(),
        }
        if ctx.peer_reasoning != "none":  # older cache keys still hit
            shared["peer_reasoning"] = ctx.peer_reasoning
        sends = []
        for c in calls:
            try:
                reads = [by_id[i] for i in c["reads"]]
            except KeyError:
                missing = [i for i in c["reads"] if i not in by_id]
                raise PlanError(
                    f"{method.name}: call {c['id']!r} reads unknown turns {missing}"
                ) from None
            history: list[Turn] = []
            if c["history"]:
                if answers is None:
                    answers = {}
                    for t in turns:
                        if t["kind"] in ("answer", "evaluation"):
                            answers.setdefault(t["agent"], []).append(t)
                kinds = ("answer", "evaluation") if c["kind"] == "evaluation" else ("answer",)
                history = [
                    t
                    for t in answers.get(c["speaker"], ())
                    if t["round"] < c["round"] and t["kind"] in kinds
                ]
            key = key_of(c["speaker"], ctx)
            base = generation.get(key)
            if base is None:
                base = generation[key] = method.generation_for(ctx, key)
                if ctx.logprobs:
                    base.update(logprob_request())
            kwargs = dict(base)
            thinking = ctx.thinking_for(c["speaker"])
            if thinking is not None:
                kwargs["thinking"] = thinking
            if view is not None and method.bind is not None:
                kwargs.update(method.bind(view, c))
            payload = CallTask(
                call=c,
                question=state["question"],
                task=task,
                choices=state.get("choices") or None,
                reads=reads,
                history=history,
                model_kwargs=kwargs,
                seed=ctx.seed,
                identity={
                    **shared,
                    "model": key,
                    "adversary": ctx.adversaries.get(c["speaker"]),
                    **_persona(ctx, c["speaker"]),
                },
            )
            sends.append(Send(c["speaker"], payload))
        return sends

    return DualNode("dispatch", dispatch)


def _persona(ctx: DebateContext, speaker: str) -> dict[str, str]:
    """The speaker's persona for a cache key; nothing without one, so older keys still hit."""
    persona = ctx.personas.get(speaker)
    return {"persona": persona} if persona else {}
