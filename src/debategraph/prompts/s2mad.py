"""S²-MAD prompts (Zeng et al., NAACL 2025), in our own wording.

S²-MAD debates like GroupDebate (same starting prompt, intra-group rounds, one summary per
group between stages, stateless agents that see their own latest answer), but an agent only
takes part when some view differs from its own and only reads those differing views. The
prompts say so: the solutions shown are the ones that disagree with the reader. Every
debating call starts from GroupDebate's system framing (``SYSTEM_PROMPTS``); the summariser's
does not, as in GroupDebate.
"""

from __future__ import annotations

from debategraph.prompts import groupdebate
from debategraph.prompts.common import PromptInput, answer_format, peer_blocks, question_block
from debategraph.prompts.summary import (
    group_summary_blocks,
    own_section,
    without_own,
)


def intra(p: PromptInput) -> str:
    """An intra-group round: the group members' solutions whose answers differ from yours."""
    return (
        f"{own_section(p)}"
        "Members of your debate group reached solutions that differ from yours; one of each "
        "differing view is shown here:\n\n"
        f"{peer_blocks(without_own(p))}\n\n"
        "Find where your reasoning and theirs part ways and check that step carefully, then "
        "give an updated answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def inter(p: PromptInput) -> str:
    """The first round of a later stage: the summaries of groups that hold other views."""
    return (
        f"{own_section(p)}"
        "The debaters were split into groups. Here are the summaries of the groups whose "
        f"discussion includes a view different from yours:\n\n{group_summary_blocks(p)}\n\n"
        "Find where your reasoning and theirs part ways and check that step carefully, "
        "then give an updated answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


PROMPTS = {**groupdebate.PROMPTS, "intra": intra, "inter": inter}
"""Prompts of ``s2mad`` by name: GroupDebate's, with its own intra- and inter-group rounds."""

SYSTEM_PROMPTS = {name: groupdebate.SYSTEM for name in PROMPTS if name != "summary"}
"""The system prompt of each debating template: GroupDebate's framing."""
