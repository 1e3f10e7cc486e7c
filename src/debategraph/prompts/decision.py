"""Prompts of the decision rules that ask the model: the ballot request and the judge.

The ballot request is added to the final round's answer prompts of any method when the rule
in force reads ballots; the judge's prompt is the whole prompt of the ``judge`` rule's call.
Our own wording.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from debategraph.policies.ballots import DEFAULT_POINTS, label
from debategraph.prompts.common import PromptInput, answer_format, peer_blocks, question_block

BALLOT_HEADER = "Ballot over the candidate answers"
"""Opens the ballot request (the simulated debater recognises it by these words)."""

OWN_CANDIDATE = "C0"
"""The label of the answer the voter gives in the reply that holds its ballot."""

JUDGE_HEADER = "You are the judge of this debate."
"""Opens the judge's prompt (the simulated debater recognises it by these words)."""

BALLOT_FORMS = {
    "approval": (
        "approve every candidate you consider correct, e.g. 'Ballot: C1, C3' (at least one)."
    ),
    "cumulative": (
        "share out {points} points among the candidates in proportion to how sure you are "
        "that each is correct, e.g. 'Ballot: C1=7, C2=3' (whole numbers, {points} in all)."
    ),
    "ranked": (
        "rank the candidates from most to least likely correct, e.g. 'Ballot: C2 > C1 > C3' "
        "(leave out any you consider wrong)."
    ),
}
"""How each kind of ballot is asked for (the end of the request's last sentence)."""


def candidate_lines(candidates: Sequence[str]) -> str:
    """``C1: 42`` lines, one per candidate answer."""
    return "\n".join(f"{label(i)}: {answer}" for i, answer in enumerate(candidates))


def ballot_request(ballot: Mapping[str, Any]) -> str:
    """The request appended to an answer prompt: the candidates and the ballot's form.

    Args:
        ballot: The call's ``ballot`` variable: ``kind``, ``candidates`` and, for a
            cumulative ballot, ``points``.
    """
    how = BALLOT_FORMS[ballot["kind"]].format(points=ballot.get("points", DEFAULT_POINTS))
    return (
        f"{BALLOT_HEADER} (your own earlier answer and those you read):\n"
        f"{candidate_lines(ballot['candidates'])}\n"
        f"{OWN_CANDIDATE}: the answer you give in this reply, if it is none of these\n"
        f"After your answer, add one last line that starts with 'Ballot:' and {how}"
    )


def judge(p: PromptInput) -> str:
    """The judge reads every agent's final answer and gives the answer it finds correct."""
    return (
        f"{JUDGE_HEADER} Several agents answered the problem below; here are their final "
        "solutions.\n\n"
        f"{peer_blocks(p)}\n\n"
        "Check their reasoning step by step. Do not count votes: an answer given by fewer "
        "agents may be the correct one. Then state the answer you find correct.\n\n"
        f"{question_block(p)}\n\n{answer_format(p)}"
    )


PROMPTS = {"judge": judge}
"""The templates of decision calls, by name (a call of kind ``decision`` names one)."""
