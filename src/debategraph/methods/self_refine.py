"""Self-Refine (Madaan et al., NeurIPS 2023): method ``self-refine``.

One model answers, writes feedback on its own answer and rewrites the answer from that
feedback, for ``iterations`` rounds (capped by ``rounds`` when a run gives it) or until its
feedback finds nothing to fix. Round 0 is
the first answer; every later round has two phases:

1. **feedback** (call ``r{k}:feedback:{agent}``, kind ``evaluation``): the agent reads its
   latest answer and reviews it, ending with ``<label>YES</label>`` (nothing to fix) or
   ``<label>NO</label>``;
2. **refine** (call ``r{k}:{agent}``, kind ``answer``): unless the feedback said YES, the
   agent reads every earlier answer of its own and the feedback on each (the paper keeps the
   whole refinement history in the prompt) and answers again.

With several agents each refines its own answer alone and the final answers go to the
decision rule in force (majority by default); with one agent (the default) the answer is its
last answer. ``method_state["refine_stops"]`` records, per agent, the round whose feedback
ended its refinement (``None``: it ran every iteration).
"""

from __future__ import annotations

from dataclasses import dataclass

from debategraph.methods import (
    MAX_ROUNDS,
    Call,
    DebateView,
    Method,
    MethodOptions,
    Phase,
    PromptInput,
    Turn,
    answer_format,
    call,
    fenced,
    initial_calls,
    own_answer_block,
    presets,
    question_block,
)


@dataclass(frozen=True, kw_only=True)
class SelfRefineOptions(MethodOptions):
    """Options of ``self-refine``.

    Attributes:
        iterations: Most feedback-and-refine rounds after the first answer, so at most
            ``iterations`` rewrites (4: as the official math code's ``--max_attempts 4``, four
            feedback-and-fix calls; its PIE task's ``--max_attempts 4`` counts the first
            answer as an attempt, three rewrites, which is ``iterations=3``).
        until_ok: End an agent's refinement as soon as its feedback finds nothing to fix
            (the paper's stopping indicator); ``False`` always runs every iteration.
    """

    iterations: int = 4
    until_ok: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {self.iterations}")


View = DebateView[SelfRefineOptions]

FEEDBACK = "feedback"


def feedback_id(round_: int, agent: str) -> str:
    """``r2:feedback:a1``: a1's feedback on its own latest answer in round 2."""
    return f"r{round_}:{FEEDBACK}:{agent}"


def _feedback(turns: list[Turn], agent: str) -> list[Turn]:
    return [
        t for t in turns if t["kind"] == "evaluation" and t["id"] == feedback_id(t["round"], agent)
    ]


def iterations(view: View) -> int:
    """Feedback-and-refine rounds in force: ``iterations``, capped by ``rounds`` when given."""
    return min(view.options.iterations, view.rounds)


def finished(view: View) -> dict[str, int]:
    """The agents whose feedback found nothing to fix, with the round it said so."""
    if not view.options.until_ok:
        return {}
    done: dict[str, int] = {}
    for agent in view.agents:
        ok = [t["round"] for t in _feedback(view.turns, agent) if t.get("label") == "keep"]
        if ok:
            done[agent] = ok[0]
    return done


def plan(view: View) -> Phase | list[Call] | None:
    """Round 0: the first answers; then feedback (phase 0) and refinement (phase 1)."""
    if view.round == 0:
        return initial_calls(view) if view.phase == 0 else None
    latest = view.latest_ids()
    done = finished(view)
    if view.phase == 0:
        return [
            call(
                view,
                agent,
                kind="evaluation",
                id=feedback_id(view.round, agent),
                reads=[latest[agent]],
                template="feedback",
            )
            for agent in view.agents
            if agent not in done and agent in latest
        ]
    calls = []
    for agent in view.agents:
        if agent in done or agent not in latest:
            continue
        answers = [t["id"] for t in view.turns if t["agent"] == agent and t["kind"] == "answer"]
        notes = {t["round"]: t["id"] for t in _feedback(view.turns, agent)}
        reads = []
        for k, answer in enumerate(answers):
            reads.append(answer)
            if k + 1 in notes:
                reads.append(notes[k + 1])
        calls.append(call(view, agent, reads=reads, template="refine"))
    stops: dict[str, int | None] = {a: done.get(a) for a in view.agents}
    return Phase(calls, {"refine_stops": stops})


def stop(view: View) -> bool:
    """After ``iterations`` rounds, or once every agent's feedback found nothing to fix."""
    if view.round >= iterations(view):
        return True
    return len(finished(view)) == len(view.agents)


def round_bound(view: View) -> int:
    """Most rounds a run may take: the iterations in force."""
    return iterations(view)


def initial(p: PromptInput) -> str:
    """The first answer."""
    return f"Solve this problem step by step.\n\n{question_block(p)}\n\n{answer_format(p)}"


def feedback(p: PromptInput) -> str:
    """Feedback on one's own latest answer, ending with a verdict."""
    return (
        "Below is a draft solution that you wrote. Read it as a strict reviewer would: go "
        "through it line by line, and for every step that is wrong, unjustified or missing "
        "say what the problem is and how to repair it. Do not rewrite the solution. If "
        "nothing needs repair, say so. Close with <label>YES</label> when the draft needs "
        "no change, or <label>NO</label> when it does.\n\n"
        f"{question_block(p)}\n\nThe draft:\n{fenced(p.peers[-1]['text'])}"
    )


def refine(p: PromptInput) -> str:
    """A rewrite of one's answer from the feedback on it and on every earlier draft."""
    last = [t["id"] for t in p.peers if t["kind"] == "answer"][-1]
    shown = []
    for turn in p.peers:
        if turn["kind"] == "answer" and turn["id"] != last:
            shown.append(f"An earlier draft of yours:\n{fenced(turn['text'])}")
        elif turn["kind"] == "answer":
            shown.append(own_answer_block(turn))
        else:
            shown.append(f"Feedback on the draft above:\n{fenced(turn['text'])}")
    history = "\n\n".join(shown)
    return (
        f"{history}\n\nWrite an improved solution: repair every problem the latest feedback "
        "names, keep the steps it found sound, and do not repeat a mistake that earlier "
        f"feedback already pointed out.\n\n{question_block(p)}\n\n{answer_format(p)}"
    )


SELF_REFINE = Method(
    name="self-refine",
    presets=presets.paper(presets.SELF_REFINE),
    description="Self-Refine: one model answers, gives feedback on its own answer and "
    "rewrites it, until the feedback finds nothing to fix or the iterations run out.",
    prompts={"initial": initial, "feedback": feedback, "refine": refine},
    plan=plan,
    stop=stop,
    options=SelfRefineOptions,
    default_agents=1,
    default_rounds=MAX_ROUNDS,
    debates=False,
    max_phases=2,
    round_bound=round_bound,
    plan_node="refine",
    card="docs/methods/self-refine.md",
)
"""The ``self-refine`` method."""
