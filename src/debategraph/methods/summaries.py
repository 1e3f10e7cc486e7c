"""Debates that read summaries instead of answers: methods ``du-sum`` and ``chateval``.

Both run every debate round in two phases: the ``summarizer`` summarises the previous round's
answers, then every agent answers reading its summary. Agents keep their own chat history
(their earlier prompts and answers), as in Du et al.'s debate.

* ``du-sum``: Du et al.'s summarisation variant, the "MAD" that GroupDebate measures against
  (App. B.1): one summary per agent and round of the *other* agents' latest answers (calls
  ``r{r}:summary:{agent}``); ``M·T + M·(T−1)`` calls.
* ``chateval``: ChatEval's simultaneous talk with a summariser: one summary per round of
  every agent's answer (call ``r{r}:summary``), the same for everyone; with ``recursive`` (the
  default, as ChatEval's summary memory does) the summariser also reads its previous summary;
  ``M·T + T − 1`` calls.

A cut-off agent (the communication attack) reads no summary and gets none made for it: it
re-checks its own answer. ``forget=True`` drops the chat history: each call shows the agent
its own latest answer and the latest summary only (GroupDebate's "MAD+Forget" ablation).

``method_state``: ``summaries`` (``{"id", "round", "for", "reads", "text"}`` per summary;
``for`` is the reader, ``None`` for a shared summary), ``paper_tokens`` for ``du-sum`` (the
measured tokens split into the paper's Eq. 3, the question repeated in the history and the
instruction tokens; left out under the attack or with ``forget``) and the options in force.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from debategraph.methods import (
    Call,
    DebateView,
    Method,
    MethodOptions,
    Phase,
    call,
    initial_calls,
    presets,
)
from debategraph.policies.sampling import SamplingPreset
from debategraph.policies.summary_cost import (
    mad_summary_calls,
    mad_summary_tokens,
    output_grid,
    split_measured,
)
from debategraph.policies.tokens import estimate_tokens
from debategraph.prompts import summary as prompts


@dataclass(frozen=True, kw_only=True)
class DuSumOptions(MethodOptions):
    """Options of ``du-sum``.

    Attributes:
        forget: Drop the chat history; show the agent its own latest answer and its latest
            summary only ("MAD+Forget" in GroupDebate's App. C.2).
    """

    forget: bool = False


@dataclass(frozen=True, kw_only=True)
class ChatEvalOptions(MethodOptions):
    """Options of ``chateval``.

    Attributes:
        recursive: The summariser also reads its previous summary (ChatEval's running
            summary); ``False`` summarises each round's answers alone.
        forget: Drop the chat history; show the agent its own latest answer and the latest
            summary only.
    """

    recursive: bool = True
    forget: bool = False


SummaryCalls = Callable[[DebateView[Any], list[str]], list[Call]]
"""``(view, readers) -> the summary calls of the round``."""


def _forget(view: DebateView[Any]) -> bool:
    return bool(getattr(view.options, "forget", False))


def summary_planner(
    summaries: SummaryCalls, summary_for: Callable[[DebateView[Any], str], str | None]
) -> Callable[[DebateView[Any]], Phase | list[Call] | None]:
    """A two-phase planner: the round's summaries, then every agent reads its summary.

    A round with nobody to summarise for (every agent cut off) has one phase.

    Args:
        summaries: The summary calls of a round, for the agents that read one.
        summary_for: The id of the summary an agent reads this round (``None``: none).
    """

    def plan(view: DebateView[Any]) -> Phase | list[Call] | None:
        if view.round == 0:
            if view.phase:
                return None
            options = view.options.to_dict()
            key = f"{view.method.name.replace('-', '_')}_options"
            return Phase(initial_calls(view), {key: options})
        latest = view.latest_ids()
        readers = [
            a
            for a in view.agents
            if a not in view.cut_off and any(b != a and b in latest for b in view.agents)
        ]
        if view.phase == 0 and readers:
            return summaries(view, readers)
        if view.phase == 1 and not readers:
            return None
        forget = _forget(view)
        calls = []
        for agent in view.agents:
            own = [latest[agent]] if forget and agent in latest else []
            summary = summary_for(view, agent) if agent in readers else None
            calls.append(
                call(
                    view,
                    agent,
                    reads=own + ([summary] if summary else []),
                    template="debate" if summary else "reflect",
                    history=not forget,
                )
            )
        return calls

    return plan


def private_summaries(view: DebateView[Any], readers: list[str]) -> list[Call]:
    """One summary per reader of the other agents' latest answers (Du et al.'s variant)."""
    latest = view.latest_ids()
    return [
        call(
            view,
            "summarizer",
            kind="summary",
            id=f"r{view.round}:summary:{agent}",
            reads=[latest[b] for b in view.agents if b != agent and b in latest],
            template="summary",
            vars={"for": agent},
        )
        for agent in readers
    ]


def shared_summary(view: DebateView[Any], readers: list[str]) -> list[Call]:
    """One summary of every agent's latest answer, after the previous summary if recursive."""
    latest = view.latest_ids()
    previous = f"r{view.round - 1}:summary"
    earlier = (
        [previous]
        if getattr(view.options, "recursive", False)
        and any(t["id"] == previous for t in view.turns)
        else []
    )
    reads = earlier + [latest[a] for a in view.agents if a in latest]
    return [
        call(view, "summarizer", kind="summary", id=f"r{view.round}:summary", reads=reads,
             template="summary")
    ]  # fmt: skip


def du_sum_paper_tokens(view: DebateView[Any]) -> dict[str, Any] | None:
    """The measured tokens so far against the paper's Eq. 3 (None where it does not apply)."""
    if view.cut_off or _forget(view):
        return None
    turns = view.turns
    try:
        outputs = output_grid(turns, view.agents)
    except ValueError:
        return None
    made = {
        ((t.get("vars") or {}).get("for"), t["round"]): t["output_tokens"]
        for t in turns
        if t["kind"] == "summary"
    }
    rounds = len(outputs[0])
    try:
        summaries = [[made[a, r] for r in range(1, rounds)] for a in view.agents]
    except KeyError:
        return None
    q = estimate_tokens(str(view.state.get("question", "")))
    split = split_measured(
        turns, mad_summary_tokens(q, outputs, summaries), question=q, history=True
    )
    split["calls"] = len(turns)
    split["formula_calls"] = mad_summary_calls(len(view.agents), rounds)
    return split


def summary_observer(
    paper: Callable[[DebateView[Any]], dict[str, Any] | None] | None,
) -> Callable[[DebateView[Any]], dict[str, Any]]:
    """Record each summary after its phase; after a full round, the paper's token split."""

    def observe(view: DebateView[Any]) -> dict[str, Any]:
        answered = any(t["round"] == view.round and t["kind"] == "answer" for t in view.turns)
        if not answered:
            new = [t for t in view.turns if t["round"] == view.round and t["kind"] == "summary"]
            entries = [
                {
                    "id": t["id"],
                    "round": t["round"],
                    "for": (t.get("vars") or {}).get("for"),
                    "reads": list(t["reads"]),
                    "text": t["text"],
                }
                for t in new
            ]
            return {"summaries": [*view.method_state.get("summaries", []), *entries]}
        split = paper(view) if paper is not None else None
        return {"paper_tokens": split} if split is not None else {}

    return observe


def _summarised(
    name: str,
    description: str,
    paper: SamplingPreset,
    prompts: Mapping[str, Callable[..., str]],
    options: type[MethodOptions],
    *,
    shared: bool,
) -> Method[Any]:
    """A debate with a summariser: one ``shared`` summary a round, or one per agent."""
    if shared:
        plan = summary_planner(shared_summary, lambda view, a: f"r{view.round}:summary")
    else:
        plan = summary_planner(private_summaries, lambda view, a: f"r{view.round}:summary:{a}")
    return Method(
        name=name,
        presets=presets.paper(paper),
        description=description,
        prompts=prompts,
        plan=plan,
        observe=summary_observer(None if shared else du_sum_paper_tokens),
        options=options,
        roles=("summarizer",),
        default_agents=5,
        default_rounds=2,
        max_phases=2,
        card="docs/methods/groupdebate.md",
    )


DU_SUM = _summarised(
    "du-sum",
    "Du et al. with summaries: each agent reads a summary of the other agents' "
    "answers every round and keeps its history; majority vote.",
    presets.GROUPDEBATE,
    prompts.DU_SUM_PROMPTS,
    DuSumOptions,
    shared=False,
)
"""The ``du-sum`` method (the GroupDebate paper's "MAD" baseline)."""

CHATEVAL = _summarised(
    "chateval",
    "ChatEval simultaneous talk with a summariser: one shared summary of each "
    "round feeds every agent; agents keep their history; majority vote.",
    presets.CHATEVAL,
    prompts.CHATEVAL_PROMPTS,
    ChatEvalOptions,
    shared=True,
)
"""The ``chateval`` method (one shared summary per round)."""
