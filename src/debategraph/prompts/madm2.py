"""MAD-M² prompts (Tian et al., ICLR 2026), in our own wording after the paper's structure.

Every call is stateless. The initial round asks for a step-by-step solution; a debate round
shows the memories kept from the previous round first, then the question, and asks for a new
step-by-step solution. As in the paper, the memories are presented neutrally, as possible
solutions to use as additional information: the prompt says nothing of the masking, so ``mad``
(every memory) and ``madm2-*`` send the same text and differ only in the memories shown. An
evaluation shows one memory and asks for a verdict ending in ``<label>YES</label>``,
``<label>NO</label>`` or ``<label>NOT SURE</label>``. Answers use the project's usual formats
(``boxed{}`` for numbers, a letter in parentheses for choices) so that the answer parsers
apply, where the paper asks for ``<think>``/``<answer>`` tags.
"""

from __future__ import annotations

from debategraph.prompts.common import PromptInput, answer_format, fenced, question_block

_FORMAT_HINTS = {
    "number": "the form \\boxed{answer}",
    "choice": "one letter in parentheses, for example (B)",
    "text": "a line 'Answer: <answer>'",
}


def memory_blocks(p: PromptInput) -> str:
    """The kept memories as numbered fenced blocks; who wrote them only without anonymity."""
    blocks = []
    for k, turn in enumerate(p.peers, 1):
        who = "" if p.anonymize else f" (from {turn['agent']})"
        blocks.append(f"Possible solution {k}{who}:\n{fenced(turn['text'])}")
    return "\n\n".join(blocks)


def initial(p: PromptInput) -> str:
    """The initial round, and any round in which no memory was kept: solve alone."""
    return (
        f"{question_block(p)}\n\nSolve this problem, reasoning step by step.\n\n{answer_format(p)}"
    )


def debate(p: PromptInput) -> str:
    """A debate round: the kept memories of the previous round, then the question."""
    return (
        "Some possible solutions to the problem below:\n\n"
        f"{memory_blocks(p)}\n\n"
        "You may use these solutions as additional information for the question that "
        "follows.\n\n"
        f"{question_block(p)}\n\n"
        f"Reason step by step and solve the problem.\n\n{answer_format(p)}"
    )


def reflect(p: PromptInput) -> str:
    """A cut-off agent (the communication attack): only its own previous solution."""
    own = "".join(
        f"Your solution from the previous round:\n{fenced(t['text'])}\n\n" for t in p.peers
    )
    return (
        f"{own}{question_block(p)}\n\n"
        "Check that solution step by step and solve the problem again, correcting any "
        f"mistake you find.\n\n{answer_format(p)}"
    )


def evaluate(p: PromptInput) -> str:
    """Subjective masking: one memory, judged correct (YES), wrong (NO) or NOT SURE."""
    solution = p.peers[-1]["text"] if p.peers else ""
    hint = _FORMAT_HINTS.get(p.task)
    where = f" It was asked to end with its final answer in {hint}." if hint else ""
    return (
        "Judge whether a proposed solution to a question is right.\n\n"
        f"{question_block(p)}\n\n"
        f"Proposed solution:{where}\n{fenced(solution)}\n\n"
        "Check its reasoning and its final answer against the question. Reply YES if all of "
        "it is correct, NO if any part of it is wrong, and NOT SURE if you cannot decide. "
        "End your reply with exactly one of <label>YES</label>, <label>NO</label> or "
        "<label>NOT SURE</label>."
    )


PROMPTS = {"initial": initial, "debate": debate, "reflect": reflect, "evaluate": evaluate}
