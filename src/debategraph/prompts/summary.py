"""Summaries of debate turns, and debate prompts that read a summary (our own wording).

The summariser's prompt follows the GroupDebate paper's summary prompt (Table 3): the answers
to summarise, then a request for a careful and complete summary of at most 80 words that
aggregates the answers reached. GroupDebate credits its accuracy to the diversity the groups
keep, so the summary keeps every line of reasoning and lists each answer with who reached it;
it never picks one. Like the paper's, it does not repeat the question, so a summary call costs
what the paper counts: the answers read and the summary.

Used by ``groupdebate`` (one summary per group), ``du-sum`` (one summary per agent of the
other agents' answers, Du et al.'s variant) and ``chateval`` (one shared summary per round).
"""

from __future__ import annotations

from dataclasses import replace

from debategraph.prompts import du
from debategraph.prompts.common import (
    SUMMARY_REQUEST,
    PromptInput,
    answer_format,
    fenced,
    own_answer_block,
    question_block,
)
from debategraph.state.records import Turn


def own_turns(p: PromptInput) -> list[Turn]:
    """The speaker's own earlier answer among the turns it reads (stateless agents)."""
    return [t for t in p.peers if t["agent"] == p.agent and t["kind"] == "answer"]


def own_section(p: PromptInput) -> str:
    """The speaker's own latest answer as a block followed by a blank line, or nothing."""
    return "".join(f"{own_answer_block(t)}\n\n" for t in own_turns(p))


def without_own(p: PromptInput) -> PromptInput:
    """The prompt input with the speaker's own earlier answer left out of the turns read."""
    own = {t["id"] for t in own_turns(p)}
    return replace(p, peers=[t for t in p.peers if t["id"] not in own])


def group_summary_blocks(p: PromptInput) -> str:
    """The group summaries read, the reader's own group's first (``vars["group"]``)."""
    mine = p.vars.get("group")
    summaries = [t for t in p.peers if t["kind"] == "summary"]
    own = [t for t in summaries if (t.get("vars") or {}).get("group") == mine]
    others = [t for t in summaries if t not in own]
    blocks = [f"Your group's summary:\n{fenced(t['text'])}" for t in own]
    blocks += [
        f"Summary of group {(t.get('vars') or {}).get('group', '?')}:\n{fenced(t['text'])}"
        for t in others
    ]
    return "\n\n".join(blocks)


def summarize(p: PromptInput) -> str:
    """The summariser's call: earlier summaries (if any) and the answers to summarise.

    An earlier summary is quoted inline, the answers as fenced blocks labelled ``Agent k``
    (numbered in the order read) or, without anonymity, with the agents' names.
    """
    earlier = [t for t in p.peers if t["kind"] == "summary"]
    answers = [t for t in p.peers if t["kind"] != "summary"]
    parts = [f"Summary of the discussion so far: {' '.join(t['text'].split())}" for t in earlier]
    parts.append(
        "The answers of the latest round:"
        if earlier
        else "The latest answers of several agents to the same problem:"
    )
    parts += [
        f"{f'Agent {k}' if p.anonymize else t['agent']}:\n{fenced(t['text'])}"
        for k, t in enumerate(answers, 1)
    ]
    return "\n\n".join(parts) + f"\n\n{SUMMARY_REQUEST}"


def _summary_blocks(p: PromptInput) -> str:
    return "\n\n".join(fenced(t["text"]) for t in p.peers if t["kind"] == "summary")


def debate_private(p: PromptInput) -> str:
    """A ``du-sum`` round: a summary of the other agents' latest answers, made for the reader."""
    return (
        f"{own_section(p)}"
        "Here is a summary of the other agents' latest solutions to the same problem:\n\n"
        f"{_summary_blocks(p)}\n\n"
        "Use it as additional advice. Check your reasoning and theirs step by step, then give "
        "an updated answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def debate_shared(p: PromptInput) -> str:
    """A ``chateval`` round: one summary of the last round, the same for every agent."""
    return (
        f"{own_section(p)}"
        "Every agent, you included, answered the problem in the last round. Here is a summary "
        "of that discussion:\n\n"
        f"{_summary_blocks(p)}\n\n"
        "Use it as additional advice. Check your reasoning and the others' step by step, then "
        "give an updated answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def reflect(p: PromptInput) -> str:
    """A round without anything to read (a cut-off agent): re-check one's own answer."""
    return f"{own_section(p)}{du.reflect(p)}"


DU_SUM_PROMPTS = {
    "initial": du.initial,
    "debate": debate_private,
    "reflect": reflect,
    "summary": summarize,
}
"""Prompts of ``du-sum``."""

CHATEVAL_PROMPTS = {
    "initial": du.initial,
    "debate": debate_shared,
    "reflect": reflect,
    "summary": summarize,
}
"""Prompts of ``chateval``."""
