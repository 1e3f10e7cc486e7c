"""Society-of-mind debate (Du et al.): answer, then revise after reading the others."""

from __future__ import annotations

from debategraph.prompts.common import PromptInput, answer_format, peer_blocks, question_block


def initial(p: PromptInput) -> str:
    """First, independent answer."""
    return (
        "Solve the following problem. Explain your reasoning step by step.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def debate(p: PromptInput) -> str:
    """Revision after reading the other agents' latest solutions."""
    return (
        "Here are the latest solutions of other agents to the same problem.\n\n"
        f"{peer_blocks(p)}\n\n"
        "Treat them as additional information. Check your own reasoning and theirs step by "
        "step, then give an updated answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def reflect(p: PromptInput) -> str:
    """Revision with nobody to read: re-check one's own previous answer."""
    return (
        "Go over your previous answer once more and check every step. Restate your answer, "
        "corrected if you find a mistake.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


PROMPTS = {"initial": initial, "debate": debate, "reflect": reflect}
