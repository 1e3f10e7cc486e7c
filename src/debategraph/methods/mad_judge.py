"""Liang et al.'s debate with a judge (EMNLP 2024): method ``mad-judge``.

Two debaters and a judge. The first agent argues the affirmative side, the second the
negative; both keep their own chat history. Every round has up to four phases:

1. the **affirmative** (call ``r{k}:{a1}``) opens in round 0 and answers the negative's
   latest argument after that;
2. the **negative** (call ``r{k}:{a2}``) reads the affirmative's argument of the round and
   argues against it;
3. the **judge** (role ``judge``, call ``r{k}:judge``, kind ``evaluation``, with its own
   history) reads the round's two arguments and ends with one decision line,
   ``Preference: affirmative``, ``Preference: negative`` or ``Preference: none``; a
   preference ends the debate with that side's answer (the paper's adaptive break). The last
   such line is read (:func:`read_preference`); a reply without one prefers no side;
4. in the last round, if the judge still has no preference, its **final judgement** (call
   ``r{k}:judge:final``) reads every argument of the debate and must answer.

``disagreement`` sets how strongly the debaters are told to disagree (the paper's level of
"tit for tat"); ``adaptive_break=False`` makes no per-round judgement and always ends with
the final one. The decision is the judge's answer; a rule named for the run votes over the
debaters' answers instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, get_args

from debategraph.methods import (
    Call,
    DebateConfigError,
    DebateView,
    Decision,
    Method,
    MethodOptions,
    PromptInput,
    Turn,
    answer_format,
    call,
    decide_by_rule,
    fenced,
    presets,
    question_block,
)

JUDGE = "judge"
DECISION = "mad-judge"
"""The decision's rule name: the judge's verdict (a role, not a registered rule)."""
Preference = Literal["affirmative", "negative", "none", "missing"]
"""A per-round judgement read: a side, ``none`` (the judge said it prefers neither) or
``missing`` (no decision line: counted, and read as no preference)."""

SIDE_NAMES: tuple[Preference, ...] = get_args(Preference)[:2]
NO_PREFERENCE = "Preference: none"
"""The decision line of a judge that prefers neither side yet."""
_PREFERENCE_LINE_RE = re.compile(
    r"^[ \t>#*_`-]*+preference[ \t*_`]*+:[ \t*_`]*+(?:the[ \t]++)?"
    r"(affirmative|negative|none|no[ \t]++preference)\b(?:[ \t]++side)?[ \t*_`.!]*+"
    r"(?:(?:\([^()\n]*+\)|[-–—][ \t][^\n]*+)[ \t*_`.!]*+)?$",
    re.IGNORECASE | re.MULTILINE,
)

LEVELS: dict[str, str] = {
    "agree": "The two sides should work towards full agreement on every point.",
    "moderate": "You need not agree with the other side; what matters is finding the "
    "correct answer.",
    "always": "Disagree with the other side on every point you can, and defend your own answer.",
}
"""The debaters' instruction at each level of disagreement, mildest first."""


@dataclass(frozen=True, kw_only=True)
class MadJudgeOptions(MethodOptions):
    """Options of ``mad-judge``.

    Attributes:
        disagreement: How strongly the debaters are told to disagree: ``agree``,
            ``moderate`` (the paper's default, which it found works best) or ``always``.
        adaptive_break: The judge may end the debate after any round once it prefers a
            side; ``False`` debates every round and ends with the final judgement.
        judge_feedback: Both debaters read the judge's judgement of the previous round
            before they argue again (DebateLLM's ``DebateWithJudge``); with
            ``adaptive_break=False`` the judge still judges every round but the last, and
            its preference ends nothing.
    """

    disagreement: Literal["agree", "moderate", "always"] = "moderate"
    adaptive_break: bool = True
    judge_feedback: bool = False


View = DebateView[MadJudgeOptions]


def sides(view: View) -> tuple[str, str]:
    """The affirmative and the negative debater.

    Raises:
        DebateConfigError: Not exactly two agents.
    """
    if len(view.agents) != 2:
        raise DebateConfigError(
            f"mad-judge has two debaters (affirmative, negative), got {len(view.agents)} "
            "agents: run it with agents=2"
        )
    return view.agents[0], view.agents[1]


def read_preference(text: str) -> Preference:
    """The side a per-round judgement prefers: its last ``Preference: ...`` line.

    The line may carry Markdown (``**Preference:** Negative``, ``- Preference: none.``), an
    article or ``side`` (``Preference: the affirmative side``), and ``no preference`` for
    ``none``, and a note after it in brackets or after a dash (``Preference: negative (its
    order of operations holds)``); otherwise it must be a line of its own, so that a
    sentence quoting the format (``Preference: affirmative, negative or none``) is not read.
    Without such a line the judgement is ``missing``: no side is preferred.
    """
    found = _PREFERENCE_LINE_RE.findall(text)
    if not found:
        return "missing"
    word = found[-1].lower()
    return "none" if word.startswith("no") else ("affirmative" if word[0] == "a" else "negative")


def preferred_answer(view: View, turn: Turn) -> tuple[bool, str | None]:
    """Whether a judgement prefers a side with an answer, and that side's answer.

    A per-round judgement reads the two sides' arguments of its round (affirmative first);
    the side it prefers gives the answer. A final judgement answers itself.
    """
    if turn["id"].endswith(":final"):
        return turn["answer"] is not None, turn["answer"]
    side = read_preference(turn["text"])
    if side not in SIDE_NAMES or len(turn["reads"]) != 2:
        return False, None
    answers = {t["id"]: t["answer"] for t in view.turns}
    answer = answers.get(turn["reads"][SIDE_NAMES.index(side)])
    return answer is not None, answer


def judgement(view: View, round_: int) -> Turn | None:
    """The judge's per-round judgement of ``round_``, if it was made."""
    return next((t for t in view.turns if t["id"] == f"r{round_}:{JUDGE}"), None)


def breaks(view: View, turn: Turn) -> bool:
    """Whether a judgement ends the debate.

    A final judgement that answers does; a per-round preference for a side with an answer
    does while the adaptive break is on.
    """
    if not turn["id"].endswith(":final") and not view.options.adaptive_break:
        return False
    return preferred_answer(view, turn)[0]


def _feedback(view: View, debater: str) -> list[str]:
    """The judge's judgement of the previous round, when ``debater`` is to read it."""
    if not view.options.judge_feedback or view.round == 0 or debater in view.cut_off:
        return []
    made = judgement(view, view.round - 1)
    return [made["id"]] if made is not None else []


def per_round_judgement(view: View) -> bool:
    """Whether the judge judges this round.

    It does for the adaptive break, or for the debaters to read in the next round
    (``judge_feedback``; there is no next round after the last).
    """
    options = view.options
    return options.adaptive_break or (options.judge_feedback and view.round < view.rounds)


def plan(view: View) -> list[Call] | None:
    """Affirmative, negative, the judge's judgement, then (last round) its final judgement."""
    affirmative, negative = sides(view)
    latest = view.latest_ids()
    connected = [a for a in (affirmative, negative) if a not in view.cut_off]
    if view.phase == 0:
        reads = [latest[negative]] if view.round > 0 and affirmative in connected else []
        template = "reply" if reads else "open"
        reads += _feedback(view, affirmative)
        return [call(view, affirmative, reads=reads, template=template, history=True)]
    if view.phase == 1:
        reads = [latest[affirmative]] if negative in connected else []
        reads += _feedback(view, negative)
        return [call(view, negative, reads=reads, template="rebut", history=True)]
    this_round = [latest[affirmative], latest[negative]]
    if view.phase == 2 and per_round_judgement(view):
        return [
            call(
                view,
                JUDGE,
                kind="evaluation",
                reads=this_round,
                template="moderate",
                history=True,
            )
        ]
    last = view.round >= view.rounds
    made = judgement(view, view.round)
    if (
        last
        and (made is None or not breaks(view, made))
        and f"r{view.round}:{JUDGE}:final" not in view.made
    ):
        debate = [t["id"] for t in view.turns if t["agent"] in (affirmative, negative)
                  and t["kind"] == "answer"]  # fmt: skip
        return [call(view, JUDGE, id=f"r{view.round}:{JUDGE}:final", reads=debate,
                     template="final")]  # fmt: skip
    return None


def stop(view: View) -> bool:
    """After the last round, or once the judge prefers a side."""
    if view.round >= view.rounds:
        return True
    made = judgement(view, view.round)
    return made is not None and breaks(view, made)


def judgements(view: View) -> dict[str, Preference]:
    """Each per-round judgement's reading, by call id (``missing``: no decision line)."""
    return {
        t["id"]: read_preference(t["text"])
        for t in view.turns
        if t["agent"] == JUDGE and not t["id"].endswith(":final")
    }


def observe(view: View) -> dict[str, Any] | None:
    """After a judgement: every per-round judgement's reading (``method_state["judgements"]``)."""
    read = judgements(view)
    return {"judgements": read} if read else None


def decide(view: View) -> Decision:
    """The preferred side's answer, or the final judgement's, or the run's decision rule."""
    if view.context.decision is not None:
        return decide_by_rule(view)
    judged = [t for t in view.turns if t["agent"] == JUDGE and breaks(view, t)]
    final = [t for t in view.turns if t["agent"] == JUDGE and t["id"].endswith(":final")]
    evidence: dict[str, Any] = {
        "judge": None,
        "early": False,
        "rounds": view.round + 1,
        "sides": view.final_answers(),
        "judgements": judgements(view),
    }
    if judged:
        turn = judged[0]
    elif final:
        turn = final[-1]
    else:
        return Decision(None, DECISION, evidence)
    evidence["judge"] = turn["id"]
    evidence["early"] = not turn["id"].endswith(":final")
    return Decision(preferred_answer(view, turn)[1], DECISION, evidence)


def _level(p: PromptInput) -> str:
    options = p.options if isinstance(p.options, MadJudgeOptions) else MadJudgeOptions()
    return LEVELS[options.disagreement]


def open_(p: PromptInput) -> str:
    """The affirmative's opening: its answer and the case for it."""
    return (
        "You take the affirmative side in a debate about the problem below. Work out your "
        "answer step by step and make the case for it; the negative side will challenge "
        f"it. {_level(p)}\n\n{question_block(p)}\n\n{answer_format(p)}"
    )


def _sides_read(p: PromptInput) -> list[Turn]:
    """The debaters' turns a call reads (not the judge's)."""
    return [t for t in p.peers if t["agent"] != JUDGE]


def _judge_note(p: PromptInput) -> str:
    """The judge's judgement of the previous round, when the call reads it."""
    read = [t for t in p.peers if t["agent"] == JUDGE]
    if not read:
        return ""
    return (
        f"\n\nThe judge assessed the previous round:\n{fenced(read[-1]['text'])}\n\nTake "
        "up the points the judge raises where they hold."
    )


def rebut(p: PromptInput) -> str:
    """The negative's argument against the affirmative's latest."""
    argued = _sides_read(p)
    if not argued:
        shown = "You cannot see the affirmative side's argument this round."
        stance = "Give your own answer and argue for it."
    else:
        shown = f"The affirmative side argued:\n{fenced(argued[-1]['text'])}"
        stance = (
            "You disagree with the affirmative side's answer: say what it got wrong, then "
            "give your own answer and the reasons for it."
            if p.round == 0
            else "Do you agree with the affirmative side's latest argument? Give your reasons "
            "and your answer."
        )
    return (
        "You take the negative side in a debate about the problem below. "
        f"{_level(p)}\n\n{shown}{_judge_note(p)}\n\n{stance}\n\n{question_block(p)}\n\n"
        f"{answer_format(p)}"
    )


def reply(p: PromptInput) -> str:
    """The affirmative's answer to the negative's latest argument."""
    return (
        f"The negative side replied:\n{fenced(_sides_read(p)[-1]['text'])}{_judge_note(p)}\n\n"
        "Answer its objections: keep your answer where they fail, change it where they hold. "
        f"{_level(p)}\n\n{question_block(p)}\n\n{answer_format(p)}"
    )


def _sides_block(p: PromptInput) -> str:
    names = ("Affirmative side", "Negative side")
    return "\n\n".join(f"{names[i % 2]}:\n{fenced(t['text'])}" for i, t in enumerate(p.peers))


def _guidance(p: PromptInput) -> str:
    options = p.options if isinstance(p.options, MadJudgeOptions) else MadJudgeOptions()
    if not options.judge_feedback:
        return ""
    return (
        " Both sides read your assessment before they argue again: before the decision "
        "line, name the mistakes or gaps each side should address."
    )


def moderate(p: PromptInput) -> str:
    """The judge's per-round judgement: one decision line; a preference ends the debate."""
    return (
        f"You judge a debate about the problem below. Round {p.round + 1} has ended; here "
        f"are both sides' arguments.\n\n{_sides_block(p)}\n\n{question_block(p)}\n\n"
        "Weigh the two arguments and choose among the answers shown: if one side is clearly "
        "right, say which and why; if not, say what is still unresolved. Do not state an "
        "answer of your own: the side you prefer supplies it. End your reply with one "
        "decision line, 'Preference: affirmative' if the affirmative side is right or "
        "'Preference: negative' if the negative side is; if you cannot yet prefer either "
        f"side, end instead with the line '{NO_PREFERENCE}'.{_guidance(p)}"
    )


def final(p: PromptInput) -> str:
    """The judge's final judgement over the whole debate: it must answer."""
    return (
        "You judge a debate about the problem below. The debate is over; here is every "
        f"argument, in order.\n\n{_sides_block(p)}\n\nWeigh the arguments and choose "
        "among the answers shown the one that is correct; you must decide.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


MAD_JUDGE = Method(
    name="mad-judge",
    presets=presets.paper(presets.MAD_JUDGE),
    description="Liang et al.'s MAD: an affirmative and a negative debater argue in turn; a "
    "judge may end the debate once it prefers a side, else gives a final judgement.",
    prompts={
        "open": open_,
        "rebut": rebut,
        "reply": reply,
        "moderate": moderate,
        "final": final,
    },
    plan=plan,
    observe=observe,
    stop=stop,
    decide=decide,
    takes_decision=True,
    options=MadJudgeOptions,
    roles=(JUDGE,),
    decision=DECISION,
    default_agents=2,
    default_rounds=2,
    max_phases=4,
    plan_node="sides",
    card="docs/methods/mad-judge.md",
)
"""The ``mad-judge`` method."""
