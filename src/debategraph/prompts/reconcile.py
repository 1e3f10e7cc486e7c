"""RECONCILE prompts (Chen, Saha and Bansal, ACL 2024), in our own wording.

Agents are stateless: every call is a fresh prompt. In a discussion round each agent sees the
last round's answers of all agents, its own included, grouped by answer with how many agents
hold each, most common first, and under each answer every holder's explanation and
confidence. With the option ``answer_groups=k`` only the ``k`` most common answers are shown
(the official code shows two).
"""

from __future__ import annotations

from debategraph.policies.types import Answer
from debategraph.prompts import du
from debategraph.prompts.common import PromptInput, answer_format, fenced, question_block
from debategraph.state.records import Turn


def initial(p: PromptInput) -> str:
    """First, independent answer with its reasoning and a confidence."""
    return (
        "Answer the following question. Reason step by step, then estimate how likely your "
        "answer is to be right.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def _holder(turn: Turn, anonymize: bool) -> str:
    who = "One agent" if anonymize else turn["agent"]
    conf = turn["confidence"]
    stated = "no confidence given" if conf is None else f"confidence {conf:.2f}"
    return f"{who} ({stated}) explained:\n{fenced(turn['text'])}"


def _group_limit(p: PromptInput) -> int | None:
    limit = getattr(p.options, "answer_groups", "all")
    return None if limit == "all" else int(limit)


def grouped_answers(p: PromptInput) -> str:
    """The turns read, grouped by answer: most common first, abstentions last.

    Answers held by equally many agents keep the order in which they were first seen.
    Every holder's response is shown in a fenced block under its answer. Only the first
    ``answer_groups`` groups are shown when the option limits them.
    """
    groups: dict[Answer, list[Turn]] = {}
    for turn in p.peers:
        groups.setdefault(turn["answer"], []).append(turn)
    order = sorted(groups, key=lambda a: (a is None, -len(groups[a])))[: _group_limit(p)]
    sections = []
    for answer in order:
        holders = groups[answer]
        n = len(holders)
        agents = f"{n} agent{'s' if n > 1 else ''}"
        head = (
            f"{agents} gave no clear answer." if answer is None else f"{agents} answered {answer}."
        )
        sections.append("\n\n".join([head, *(_holder(t, p.anonymize) for t in holders)]))
    return "\n\n".join(sections)


def debate(p: PromptInput) -> str:
    """A discussion round: every agent's last answer, grouped, the receiver's own included."""
    limit = _group_limit(p)
    shown = (
        "all agents gave in the last round, yours among them,"
        if limit is None
        else f"the agents gave in the last round ({_most_common(limit)}),"
    )
    return (
        f"Below are the answers {shown} grouped by answer with the most common first.\n\n"
        f"{grouped_answers(p)}\n\n"
        "Review these explanations carefully as additional information. Then give your own "
        "answer with step-by-step reasoning, and say which of the views above you agree or "
        "disagree with and why.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


def _most_common(limit: int) -> str:
    return "the most common answer" if limit == 1 else f"the {limit} most common answers"


def reflect(p: PromptInput) -> str:
    """A round without the others' answers (cut off): re-check one's own last answer."""
    own = "".join(f"Your answer in the last round was:\n{fenced(t['text'])}\n\n" for t in p.peers)
    return f"{own}{du.reflect(p)}"


PROMPTS = {"initial": initial, "debate": debate, "reflect": reflect}
