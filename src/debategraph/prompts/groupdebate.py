"""GroupDebate prompts (Liu et al., arXiv 2409.14051, Table 3), in our own wording.

Five kinds, as in the paper: the starting prompt (the same as ``du``'s, so that ``groupdebate``
and the summarising baselines start alike), the intra-group round (the other members' latest
answers), the summary (``prompts.summary.summarize``), the inter-group round (the reader's own
group's summary, then the other groups'), and, for an agent with nobody to read (a group of
one, or a cut-off agent), a reflection on its own answer. With the forget mechanism on, every
call is stateless and shows the agent its own latest answer first.

The paper's system prompt frames the debate: the agents are experienced debaters, split into
groups whose conclusions are shared with all. ``SYSTEM`` says so to every debating call; the
summariser, which debates nothing, does not receive it.
"""

from __future__ import annotations

from debategraph.prompts import du
from debategraph.prompts.common import PromptInput, answer_format, peer_blocks, question_block
from debategraph.prompts.summary import (
    group_summary_blocks,
    own_section,
    reflect,
    summarize,
    without_own,
)

SYSTEM = (
    "You are an experienced debater who states a view briefly and convincingly. The "
    "debaters are divided into groups that discuss among themselves, and what each group "
    "concludes is shared with everyone. Make good use of it: examine the question critically "
    "and work towards the right answer."
)
"""The debate framing of every debating call (not the summariser's)."""


def intra(p: PromptInput) -> str:
    """An intra-group round: the latest answers of the other members of the agent's group."""
    return (
        f"{own_section(p)}"
        "Here are the latest solutions of the other members of your debate group:\n\n"
        f"{peer_blocks(without_own(p))}\n\n"
        "Use them carefully as additional advice. Examine your solution and theirs step by "
        "step, then give an updated answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def inter(p: PromptInput) -> str:
    """The first round of a later stage: every group's summary, the reader's own first."""
    return (
        f"{own_section(p)}"
        "The debaters were split into groups, and each group's discussion has been "
        f"summarised for everyone.\n\n{group_summary_blocks(p)}\n\n"
        "Use the reasoning of all groups as additional advice. Examine your solution "
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

SYSTEM_PROMPTS = {name: SYSTEM for name in PROMPTS if name != "summary"}
"""The system prompt of each debating template."""
