"""Prompts of MALLM's discussion paradigms (memory, report, relay, collective refinement).

Every debate call shows the speaker its own latest answer apart (``own_answer_block``), then
what the paradigm lets it read, each turn in its own fenced block. Only the kit's prompt
pieces are used (``debategraph.methods``), so the package reads as an outside plugin would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import wraps

from debategraph.methods import (
    PromptInput,
    answer_format,
    fenced,
    own_answer_block,
    peer_blocks,
    question_block,
)


def _split(p: PromptInput) -> tuple[str, PromptInput]:
    """The speaker's own block (or nothing), and the input with the other agents' turns only."""
    own = [t for t in p.peers if t["agent"] == p.agent]
    peers = [t for t in p.peers if t["agent"] != p.agent]
    head = f"{own_answer_block(own[-1])}\n\n" if own else ""
    return head, replace(p, peers=peers)


def _tail(p: PromptInput) -> str:
    return f"{question_block(p)}\n\n{answer_format(p)}"


def initial(p: PromptInput) -> str:
    """Round 0: the agent answers alone, before anyone has spoken."""
    return f"Solve the following problem. Explain your reasoning step by step.\n\n{_tail(p)}"


def _speak(p: PromptInput, intro: str, label: str, instruction: str) -> str:
    """The speaker's own block, ``intro``, the others' turns as ``label`` blocks, the task."""
    head, shown = _split(p)
    return f"{head}{intro}\n\n{peer_blocks(shown, label)}\n\n{instruction}\n\n{_tail(p)}"


def discuss(p: PromptInput) -> str:
    """``memory``: a contribution to a discussion whose shared memory the speaker reads."""
    return _speak(
        p,
        "You are one of several agents discussing a problem. The shared memory of the "
        "discussion holds these contributions of the other agents, oldest first:",
        "Contribution",
        "Add your contribution: say which points of the discussion hold and which do not, "
        "then give your answer.",
    )


def report(p: PromptInput) -> str:
    """``report``: the reporting agent reads the others' replies and reports again."""
    if p.round <= 1:
        intro, label = "You report to a group of agents. Their first answers:", "Answer"
    else:
        intro = "You report to a group of agents. Their replies to your last report:"
        label = "Reply"
    return _speak(
        p,
        intro,
        label,
        "Write your next report for the group: take up every reply that finds a real flaw, "
        "set aside those that do not, and give the answer you now stand by.",
    )


def reply(p: PromptInput) -> str:
    """``report``: another agent replies to the reporting agent's latest report."""
    return _speak(
        p,
        "One agent of your group reports to the others. Its latest report:",
        "Report",
        "Reply to the report: check it step by step, say where you agree and where you do "
        "not, and give your answer.",
    )


def relay(p: PromptInput) -> str:
    """``relay``: the speaker reads the answer passed on by its predecessor in the chain."""
    return _speak(
        p,
        "The agents pass their answers along a chain. The agent before you passed on this answer:",
        "Answer passed on",
        "Check it against your own, keep what is right in either, and pass on your answer "
        "to the next agent.",
    )


def refine(p: PromptInput) -> str:
    """``collective``: improve one's answer after reading every other agent's answer."""
    return _speak(
        p,
        "Here are the answers of the other agents:",
        "Solution",
        "Improve your answer, taking the other answers into account critically: adopt what "
        "they get right and reject what they get wrong.",
    )


def reflect(p: PromptInput) -> str:
    """A call with nobody else to read (a lone agent, or one the attack cuts off)."""
    head, _ = _split(p)
    return (
        f"{head}Go over your previous answer once more and check every step. Restate your "
        "answer, corrected if you find a mistake.\n\n"
        f"{_tail(p)}"
    )


NEUTRAL = (
    "You take part as a neutral mediator: you hold no position of your own and you are not "
    "among those who vote on the answer. Weigh every contribution fairly, help the group "
    "towards the correct solution, and give the solution you consider best."
)
"""The stance of a neutral agent (MALLM's ``num_neutral_agents``), before its prompt."""


def neutral_aware(template: Callable[[PromptInput], str]) -> Callable[[PromptInput], str]:
    """``template``, with the neutral stance before it for a call marked ``neutral``."""

    @wraps(template)
    def render(p: PromptInput) -> str:
        text = template(p)
        return f"{NEUTRAL}\n\n{text}" if p.vars.get("neutral") else text

    return render


def improve(p: PromptInput) -> str:
    """The single-model ablation: one model improves its own current solution once more."""
    current = p.peers[-1]["text"] if p.peers else ""
    return (
        "Here is the current solution to the problem below. Improve it: check every step, "
        "correct whatever is wrong, and give the improved solution.\n\n"
        f"Current solution:\n{fenced(current)}\n\n{_tail(p)}"
    )


def vote(p: PromptInput) -> str:
    """A vote for one of the voters' solutions, under one of MALLM's alterations."""
    count = int(p.vars.get("solutions", len(p.peers)))
    kind = p.vars.get("alteration", "anonymous")
    names = p.vars.get("names", [])
    shown = p.peers[-count:] if count else []
    blocks = []
    for i, turn in enumerate(shown, start=1):
        who = f" (from {names[i - 1]})" if kind == "public" and i <= len(names) else ""
        sure = "\n(Confidence: 100 %)" if kind == "confidence" else ""
        blocks.append(f"Solution {i}{who}:\n{fenced(turn['text'])}{sure}")
    history = ""
    if kind == "history" and len(p.peers) > count:
        earlier = "\n\n".join(fenced(t["text"]) for t in p.peers[: len(p.peers) - count])
        history = f"The discussion so far, oldest first:\n\n{earlier}\n\n"
    solutions = "\n\n".join(blocks)
    return (
        f"{history}Vote for the best of the solutions below to the problem that follows. "
        "Check them against the problem, then end with one line of the form "
        f"'Vote: <number of the solution>'.\n\n{solutions}\n\n{question_block(p)}"
    )


PROMPTS: dict[str, Callable[[PromptInput], str]] = {
    "initial": initial,
    "discuss": discuss,
    "report": report,
    "reply": reply,
    "relay": relay,
    "refine": refine,
    "reflect": reflect,
    "improve": improve,
    "vote": vote,
}
"""Every paradigm's templates; a call names the one of its paradigm and role."""

PROMPTS = {name: neutral_aware(template) for name, template in PROMPTS.items()}
