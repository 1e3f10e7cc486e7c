"""CortexDebate prompts (Sun et al., arXiv 2507.03928), in our own wording.

Every call is stateless. The paper's output has three parts: an answer, an explanation and a
confidence score between 0 and 1. We ask for the explanation first and the answer in the
project's usual format (so the answer parsers apply), then the confidence line. Peers' outputs
are shown without any line that carries a confidence
(:func:`debategraph.policies.confidence.strip_confidence`, re-exported here): CortexDebate is
built to keep a confident agent from dominating the others.
"""

from __future__ import annotations

from dataclasses import replace

from debategraph.policies.confidence import strip_confidence
from debategraph.prompts.common import (
    PromptInput,
    answer_format,
    fenced,
    peer_blocks,
    question_block,
)
from debategraph.state.records import Turn

THREE_PARTS = (
    "Your response has three parts: an explanation of your reasoning, your answer, and a "
    "confidence score between 0 and 1 for that answer."
)


def _split(p: PromptInput) -> tuple[list[Turn], list[Turn]]:
    """The speaker's own earlier turn(s) and the opponents' turns among those it reads."""
    own = [t for t in p.peers if t["agent"] == p.agent]
    others = [t for t in p.peers if t["agent"] != p.agent]
    return own, others


def _own_block(own: list[Turn]) -> str:
    return "".join(
        f"Your own answer in the previous round:\n{fenced(strip_confidence(t['text']))}\n\n"
        for t in own
    )


def initial(p: PromptInput) -> str:
    """Phase 1: an independent answer with explanation and confidence."""
    return (
        f"{question_block(p)}\n\n"
        "Work through this question step by step on your own. "
        f"{THREE_PARTS}\n\n{answer_format(p)}"
    )


def debate(p: PromptInput) -> str:
    """A debate round: the outputs of the opponents the trust graph kept, nothing else."""
    own, others = _split(p)
    shown = replace(p, peers=[{**t, "text": strip_confidence(t["text"])} for t in others])
    return (
        f"{question_block(p)}\n\n"
        "Some other agents have already answered this question:\n\n"
        f"{peer_blocks(shown, label='Answer')}\n\n"
        f"{_own_block(own)}"
        "Use their answers as extra information, not as a verdict: check their reasoning "
        "against the question, then work out a new answer of your own. "
        f"{THREE_PARTS}\n\n{answer_format(p)}"
    )


def reflect(p: PromptInput) -> str:
    """A round without opponents (a cut-off agent): re-check its own previous output."""
    own, _ = _split(p)
    return (
        f"{question_block(p)}\n\n"
        f"{_own_block(own)}"
        "Check this answer again step by step and correct it if you find a mistake. "
        f"{THREE_PARTS}\n\n{answer_format(p)}"
    )


PROMPTS = {"initial": initial, "debate": debate, "reflect": reflect}

__all__ = ["PROMPTS", "THREE_PARTS", "debate", "initial", "reflect", "strip_confidence"]
