"""GroupDebate prompts (Liu et al., arXiv 2409.14051, Table 3), in our own wording.

Five kinds, as in the paper: the starting prompt (the same as ``du``'s, so that ``groupdebate``
and the summarising baselines start alike), the intra-group round (the other members' latest
answers), the summary (``prompts.summary.summarize``), the inter-group round (the reader's own
group's summary, then the other groups'), and, for an agent with nobody to read (a group of
one, or a cut-off agent), a reflection on its own answer. With the forget mechanism on, every
call is stateless and shows the agent its own latest answer first.

The paper's system prompt tells the agents that they debate in groups whose results are
shared; we say so in the inter-group prompt, where it matters, instead of in a system prompt
that the summariser would also receive.
"""

from __future__ import annotations

from dataclasses import replace

from debategraph.prompts import du
from debategraph.prompts.common import (
    PromptInput,
    answer_format,
    fenced,
    peer_blocks,
    question_block,
)
from debategraph.prompts.summary import own_section, own_turns, reflect, summarize


def _others(p: PromptInput) -> PromptInput:
    own = {t["id"] for t in own_turns(p)}
    return replace(p, peers=[t for t in p.peers if t["id"] not in own])


def intra(p: PromptInput) -> str:
    """An intra-group round: the latest answers of the other members of the agent's group."""
    return (
        f"{own_section(p)}"
        "Here are the latest solutions of the other members of your debate group:\n\n"
        f"{peer_blocks(_others(p))}\n\n"
        "Use them carefully as additional advice. Examine your solution and theirs step by "
        "step, then give an updated answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def inter(p: PromptInput) -> str:
    """The first round of a later stage: every group's summary, the reader's own first."""
    mine = p.vars.get("group")
    summaries = [t for t in p.peers if t["kind"] == "summary"]
    own = [t for t in summaries if (t.get("vars") or {}).get("group") == mine]
    others = [t for t in summaries if t not in own]
    blocks = [f"Your group's summary:\n{fenced(t['text'])}" for t in own]
    blocks += [
        f"Summary of group {(t.get('vars') or {}).get('group', '?')}:\n{fenced(t['text'])}"
        for t in others
    ]
    return (
        f"{own_section(p)}"
        "The debaters were split into groups, and each group's discussion has been "
        "summarised for everyone.\n\n"
        + "\n\n".join(blocks)
        + "\n\nUse the reasoning of all groups as additional advice. Examine your solution "
        "and theirs step by step, then give an updated answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


PROMPTS = {
    "initial": du.initial,
    "intra": intra,
    "inter": inter,
    "reflect": reflect,
    "summary": summarize,
}
"""Prompts of ``groupdebate`` by name."""
