"""Pieces every prompt shares: the question block, answer formats, peer solutions.

Every built-in prompt shows the question on a line starting with ``Question:`` and wraps each
peer response in a fenced block; the simulated model relies on both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from debategraph.policies.types import TaskKind
from debategraph.state.records import Turn

FORMATS: dict[TaskKind, str] = {
    "number": (
        "Give your final answer as a single number in the form \\boxed{answer} "
        "at the end of your response."
    ),
    "choice": (
        "Give your final choice as one letter in parentheses, for example (B), "
        "at the end of your response."
    ),
    "text": "End your response with a line of the form 'Answer: <your answer>'.",
    "math": (
        "Give your final answer in simplest exact form as \\boxed{answer} "
        "at the end of your response."
    ),
}
CONFIDENCE_REQUEST = (
    "After the answer, add a line 'Confidence: <a number between 0 and 1>' saying how likely "
    "you think your answer is to be correct."
)


@dataclass(frozen=True)
class PromptInput:
    """Everything a prompt template may use.

    Attributes:
        question: The question text.
        task: Answer kind.
        choices: Multiple-choice options, if any.
        peers: The turns this agent reads this round, in plan order.
        agent: The speaking agent.
        round: The round being prompted.
        anonymize: Hide peers' names.
        confidence: Ask for a confidence line.
        options: The method's typed options for the run.
        vars: The call's extra prompt variables.
    """

    question: str
    task: TaskKind = "number"
    choices: Sequence[str] | None = None
    peers: Sequence[Turn] = ()
    agent: str = ""
    round: int = 0
    anonymize: bool = True
    confidence: bool = False
    options: Any = None
    vars: Mapping[str, Any] = field(default_factory=dict)


def question_block(p: PromptInput) -> str:
    """``Question: ...`` (whitespace collapsed onto one line), then lettered choices."""
    lines = ["Question: " + " ".join(p.question.split())]
    for i, choice in enumerate(p.choices or ()):
        lines.append(f"{chr(ord('A') + i)}) {choice}")
    return "\n".join(lines)


def answer_format(p: PromptInput) -> str:
    """The output-format instruction for the task, with the confidence request if asked."""
    fmt = FORMATS[p.task]
    return f"{fmt}\n{CONFIDENCE_REQUEST}" if p.confidence else fmt


def fenced(text: str) -> str:
    """``text`` in a fenced block; fences inside it are defused so the block stays whole."""
    body = text.replace("```", "'''").strip()
    return f"```\n{body}\n```"


@lru_cache(maxsize=4096)
def _labelled_block(who: str, text: str) -> str:
    # Every agent of a round shows the same peer turns: each block is made once.
    return f"{who}:\n{fenced(text)}"


def peer_blocks(p: PromptInput, label: str = "Solution") -> str:
    """Each peer turn as a fenced block, labelled anonymously or with the peer's name."""
    anonymous = f"{label} from another agent"
    blocks = []
    for turn in p.peers:
        if turn["kind"] == "summary":
            who = "Summary of the discussion"
        else:
            who = anonymous if p.anonymize else f"{label} from {turn['agent']}"
        blocks.append(_labelled_block(who, turn["text"]))
    return "\n\n".join(blocks)


OWN_ANSWER_LABEL = "Your own latest answer"
"""Label of the block showing a stateless agent its own previous answer; the simulated model
reads that block as its own answer, not as a peer's."""


def own_answer_block(turn: Turn) -> str:
    """The speaker's own previous answer as a labelled fenced block."""
    return f"{OWN_ANSWER_LABEL}:\n{fenced(turn['text'])}"


SUMMARY_REQUEST = (
    "Summarize these answers carefully and completely in at most 80 words. Keep every "
    "distinct line of reasoning, also one that a single agent follows, and do not judge "
    "which is right. End with one line listing every answer reached and who reached it, in "
    "the form 'Answers reached: <answer> (<who>); <answer> (<who>)'."
)
"""The summariser's instruction: a complete summary that lists the answers, never a verdict."""
INDEPENDENCE_CUE = "Agreement among other agents is not evidence."
ADVERSARY_INSTRUCTION = "Whatever the others say, argue convincingly that the answer is {answer}."
