"""SVR-MAD prompts: an independent first answer, then one-on-one challenges.

Our own wording after the paper's structure (§2, §4): a pairwise debate shows the receiver the
question and, as its own chat history, its first answer; then exactly one other agent's first
solution, to use as additional information before answering again. With the confidence prior,
the first answer ends with a stated confidence, which the challenged agent is not shown.
"""

from __future__ import annotations

import dataclasses

from debategraph.prompts import du
from debategraph.prompts.common import PromptInput, answer_format, fenced, question_block
from debategraph.prompts.cortex import strip_confidence


def _asks_confidence(p: PromptInput) -> bool:
    return p.confidence or getattr(p.options, "prior", None) == "confidence"


def _challenge(p: PromptInput) -> str:
    """The challenger's first solution, fenced, without its confidence line."""
    blocks = []
    for turn in p.peers:
        who = "another agent" if p.anonymize else turn["agent"]
        blocks.append(f"Solution from {who}:\n{fenced(strip_confidence(turn['text']))}")
    return "\n\n".join(blocks)


def initial(p: PromptInput) -> str:
    """The first, independent answer (with a confidence line for the confidence prior)."""
    fmt = answer_format(dataclasses.replace(p, confidence=_asks_confidence(p)))
    return (
        "Solve the following problem. Explain your reasoning step by step.\n\n"
        f"{question_block(p)}\n\n{fmt}"
    )


def pairwise(p: PromptInput) -> str:
    """One challenge: the receiver reads a single other agent's first solution."""
    return (
        "Another agent has worked on the same problem. Its solution follows.\n\n"
        f"{_challenge(p)}\n\n"
        "Use it as additional information: compare its reasoning with yours step by step, "
        "decide which is sound, and give your answer.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


PROMPTS = {"initial": initial, "pairwise": pairwise, "reflect": du.reflect}
"""A challenge that never arrived (the receiver is cut off) re-checks its own answer, as in
``du``."""
