"""GroupDebate (Liu et al., arXiv 2409.14051) on the engine: method ``groupdebate``.

The agents are split into groups once (a seeded random split, or explicit sizes). The paper's
``T`` total rounds (the initial answer counts, so ``T = rounds + 1``) form stages of ``R``
rounds. Engine round 0 is the initial answer; a round ``r`` with ``r % R != 0`` is an
intra-group round, where each agent reads the latest answers of the other members of its
group; a round with ``r % R == 0`` opens a new stage in two phases: the ``summarizer`` writes
one summary per group of its members' latest answers (calls ``r{r}:summary:g{j}``), then every
agent reads all groups' summaries, its own group's first. With the forget mechanism (the
default) every call is stateless and shows the agent only its own latest answer and what the
round gives it. The last round is put to a majority vote of all agents.

``method_state`` (JSON-safe, also in ``DebateResult.to_dict``):

* ``groups``: the groups, ``[["a1", "a4"], ...]``; group ``j`` is ``groups[j - 1]``;
* ``stages``: one entry per stage started: ``{"stage", "rounds", "paper_rounds", "groups"}``;
* ``summaries``: ``{"id", "round", "stage", "group", "reads", "text"}`` per summary, where
  ``stage`` is the stage summarised and ``round`` the round that reads it;
* ``round_labels``: the stage and kind of every round, for the transcript;
* ``schedule``: the paper's parameters ``M``, ``T``, ``R``, ``S``, ``N``, the group
  ``sizes`` and the expected ``calls`` (``M·T + N·(S−1)``);
* ``paper_tokens``: after every complete round, the measured tokens as the paper's formula
  (Eq. 5, from each call's measured output length) plus the instruction tokens (see
  ``policies.summary_cost.split_measured``); left out when an agent is cut off or
  ``forget`` is off, where the paper's formula does not describe the calls;
* ``groupdebate_options``: the options in force.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debategraph.methods import (
    Call,
    DebateView,
    Method,
    Phase,
    call,
    initial_calls,
    presets,
)
from debategraph.methods.grouping import GroupOptions, make_groups
from debategraph.policies.grouping import (
    debate_plan,
    round_kind,
    stage_of,
    stage_schedule,
)
from debategraph.policies.summary_cost import (
    groupdebate_calls,
    groupdebate_tokens,
    output_grid,
    split_measured,
)
from debategraph.policies.tokens import estimate_tokens
from debategraph.prompts import groupdebate as prompts


@dataclass(frozen=True, kw_only=True)
class GroupDebateOptions(GroupOptions):
    """GroupDebate's parameters, with the paper's settings or ours as defaults.

    See ``docs/methods/groupdebate.md``; ``groups``, ``num_groups``, ``stage_rounds`` and
    ``shuffle`` are :class:`~debategraph.methods.grouping.GroupOptions`'.

    Attributes:
        forget: The paper's forget mechanism: an agent keeps only its latest answer and what
            the round shows it. ``False`` keeps each agent's whole chat history (the
            "MAD+Group" ablation of App. C.2).
    """

    forget: bool = True


View = DebateView[GroupDebateOptions]


def _label(round_: int, stage_rounds: int) -> str:
    kind = round_kind(round_, stage_rounds)
    text = {
        "initial": "initial answers",
        "intra": "intra-group round",
        "inter": "group summaries, then inter-group round",
    }[kind]
    return f"stage {stage_of(round_, stage_rounds)} · {text}"


def _stage(view: View, groups: list[list[str]]) -> dict[str, Any]:
    options = view.options
    stage = stage_of(view.round, options.stage_rounds)
    rounds = stage_schedule(view.rounds + 1, options.stage_rounds)[stage - 1]
    return {
        "stage": stage,
        "rounds": rounds,
        "paper_rounds": [r + 1 for r in rounds],
        "groups": groups,
    }


def _bookkeeping(view: View, groups: list[list[str]]) -> dict[str, Any]:
    """Method state of a round's first phase: its label and, at a stage start, the stage."""
    kept = view.method_state
    options = view.options
    labels = {
        **kept.get("round_labels", {}),
        str(view.round): _label(view.round, options.stage_rounds),
    }
    update: dict[str, Any] = {"round_labels": labels}
    if view.round % options.stage_rounds == 0:
        update["stages"] = [*kept.get("stages", []), _stage(view, groups)]
    return update


def _start(view: View) -> Phase:
    options = view.options
    groups = make_groups(view)
    m, t = len(view.agents), view.rounds + 1
    schedule = {
        **debate_plan(m, t, options.stage_rounds, groups),
        "calls": groupdebate_calls(m, t, len(groups), options.stage_rounds),
    }
    state = {
        "groups": groups,
        "schedule": schedule,
        "groupdebate_options": options.to_dict(),
        **_bookkeeping(view, groups),
    }
    return Phase(initial_calls(view), state)


def _group_of(groups: list[list[str]], agent: str) -> int:
    return next(j for j, g in enumerate(groups, 1) if agent in g)


def _answer_call(view: View, agent: str, reads: list[str], template: str, group: int) -> Call:
    forget = view.options.forget
    latest = view.latest_ids()
    own = [latest[agent]] if forget and agent in latest else []
    if agent in view.cut_off:
        reads, template = [], "reflect"
    elif not reads:
        template = "reflect"
    return call(
        view, agent, reads=own + reads, template=template, history=not forget, vars={"group": group}
    )


def _summary_calls(view: View, groups: list[list[str]]) -> list[Call]:
    latest = view.latest_ids()
    return [
        call(
            view,
            "summarizer",
            kind="summary",
            id=f"r{view.round}:summary:g{j}",
            reads=[latest[a] for a in g if a in latest],
            template="summary",
            vars={"group": j},
        )
        for j, g in enumerate(groups, 1)
    ]


def plan_groupdebate(view: View) -> Phase | list[Call] | None:
    """The calls of the next phase: initial, intra-group, or summaries then inter-group.

    Only an inter-group round (with somebody to read the summaries) has two phases.
    """
    groups: list[list[str]] = view.method_state.get("groups", [])
    kind = round_kind(view.round, view.options.stage_rounds)
    summarised = kind == "inter" and any(a not in view.cut_off for a in view.agents)
    if view.phase == 1 and not summarised:
        return None
    if view.round == 0:
        return _start(view)
    latest = view.latest_ids()
    if summarised and view.phase == 0:
        return Phase(_summary_calls(view, groups), _bookkeeping(view, groups))
    calls = []
    for agent in view.agents:
        j = _group_of(groups, agent)
        if kind == "inter":
            ids = [f"r{view.round}:summary:g{k}" for k in range(1, len(groups) + 1)]
            reads = [ids[j - 1]] + [i for k, i in enumerate(ids, 1) if k != j]
            template = "inter"
        else:
            reads = [latest[b] for b in groups[j - 1] if b != agent and b in latest]
            template = "intra"
        calls.append(_answer_call(view, agent, reads, template, j))
    if summarised:
        return calls
    return Phase(calls, _bookkeeping(view, groups))


def paper_tokens(view: View) -> dict[str, Any] | None:
    """The measured tokens so far against the paper's Eq. 5 (None where it does not apply)."""
    options = view.options
    if view.cut_off or not options.forget:
        return None
    groups: list[list[str]] = view.method_state["groups"]
    index = {a: i for i, a in enumerate(view.agents)}
    turns = view.turns
    try:
        outputs = output_grid(turns, view.agents)
    except ValueError:
        return None
    rounds = len(outputs[0])
    summaries = []
    for r in range(options.stage_rounds, rounds, options.stage_rounds):
        made = {t["vars"]["group"]: t for t in turns if t["kind"] == "summary" and t["round"] == r}
        summaries.append([made[j]["output_tokens"] for j in range(1, len(groups) + 1)])
    q = estimate_tokens(str(view.state.get("question", "")))
    formula = groupdebate_tokens(
        q, outputs, summaries, [[index[a] for a in g] for g in groups], options.stage_rounds
    )
    split = split_measured(turns, formula, question=q, history=False)
    split["calls"] = len(turns)
    split["formula_calls"] = groupdebate_calls(
        len(view.agents), rounds, len(groups), options.stage_rounds
    )
    return split


def observe_groupdebate(view: View) -> dict[str, Any]:
    """Record the summaries just written, or the paper's token split after a full round."""
    new = [t for t in view.turns if t["round"] == view.round and t["kind"] == "summary"]
    kept = view.method_state
    if new and not any(t["round"] == view.round and t["kind"] == "answer" for t in view.turns):
        stage_rounds = view.options.stage_rounds
        entries = [
            {
                "id": t["id"],
                "round": t["round"],
                "stage": stage_of(t["round"], stage_rounds) - 1,
                "group": (t.get("vars") or {}).get("group"),
                "reads": list(t["reads"]),
                "text": t["text"],
            }
            for t in new
        ]
        return {"summaries": [*kept.get("summaries", []), *entries]}
    split = paper_tokens(view)
    return {"paper_tokens": split} if split is not None else {}


GROUPDEBATE = Method(
    name="groupdebate",
    presets=presets.paper(presets.GROUPDEBATE),
    description="GroupDebate: agents debate in groups for stages of R rounds; a summary per "
    "group opens each later stage; stateless agents; majority vote.",
    prompts=prompts.PROMPTS,
    system=prompts.SYSTEM_PROMPTS,
    plan=plan_groupdebate,
    observe=observe_groupdebate,
    options=GroupDebateOptions,
    roles=("summarizer",),
    default_agents=5,
    default_rounds=2,
    max_phases=2,
    plan_node="groups",
    card="docs/methods/groupdebate.md",
)
"""The ``groupdebate`` method; configure it with ``GroupDebateOptions`` fields."""
