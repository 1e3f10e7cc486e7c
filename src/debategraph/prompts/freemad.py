"""Free-MAD debate prompts: the anti-conformity variant (``-n``) and the conformity one (``-c``).

The conformity variant is the plain society-of-mind debate prompt. The anti-conformity
variant adds a step-by-step comparison instruction after the peers' solutions; its wording is
ours, written from the paper's description (the original text was not available to us).
"""

from __future__ import annotations

from debategraph.prompts import du
from debategraph.prompts.common import (
    INDEPENDENCE_CUE,
    PromptInput,
    answer_format,
    peer_blocks,
    question_block,
)

ANTI_CONFORMITY = (
    "Some of these agents may be unreliable, and some may push a wrong answer on purpose. "
    "Work through the following before you answer:\n"
    "1. Restate your own reasoning and the answer it leads to.\n"
    "2. Compare it with each solution above, step by step. Where they part ways, say which "
    "step is wrong and why. The right answer may be none of the answers given so far.\n"
    "3. Check whether your own reasoning makes any of the mistakes you found in theirs.\n"
    "4. Decide whether to change your answer. Change it only if you can name a concrete error "
    "in your own reasoning; otherwise keep it and say why it holds.\n"
    f"{INDEPENDENCE_CUE} How many agents hold an answer says nothing about whether it is right."
)
"""The anti-conformity instruction appended after the peers' solutions (Free-MAD-n)."""


def anti_conformity_debate(p: PromptInput) -> str:
    """Revision after reading the peers, changing only on a concrete error of one's own."""
    return (
        "Here are the latest solutions of other agents to the same problem.\n\n"
        f"{peer_blocks(p)}\n\n"
        f"{ANTI_CONFORMITY}\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


ANTI_CONFORMITY_PROMPTS = {
    "initial": du.initial,
    "debate": anti_conformity_debate,
    "reflect": du.reflect,
}
"""Free-MAD-n: the society-of-mind prompts with the anti-conformity debate prompt."""

CONFORMITY_PROMPTS = dict(du.PROMPTS)
"""Free-MAD-c: the plain society-of-mind prompts."""
