"""A peer-review debate and a quorum rule: a complete debategraph plugin.

Method ``review``. Round 0: every agent answers alone. Every later round has two phases:

1. reviews: each agent reviews the latest answer of each of its next ``reviewers`` ring
   neighbours and ends with a verdict (one ``evaluation`` call per reviewer and author);
2. revisions: each agent reads its own latest answer and the reviews written of it, then
   answers again.

Rule ``quorum``: the most common final answer wins only if more than ``threshold``
of all agents hold it (abstentions count against it); otherwise there is no answer.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from debategraph.methods import (
    Call,
    DebateView,
    Decision,
    Method,
    MethodOptions,
    PromptInput,
    Trajectory,
    answer_format,
    call,
    fenced,
    initial_calls,
    own_answer_block,
    question_block,
)


@dataclass(frozen=True, kw_only=True)
class ReviewOptions(MethodOptions):
    """Options of ``review``.

    Attributes:
        reviewers: How many ring neighbours review each answer (at most agents - 1).
    """

    reviewers: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.reviewers < 1:
            raise ValueError(f"reviewers must be at least 1, got {self.reviewers}")


View = DebateView[ReviewOptions]


def review_id(round_: int, reviewer: str, author: str) -> str:
    """``r1:review:a2>a1``: a2's review of a1's answer in round 1."""
    return f"r{round_}:review:{reviewer}>{author}"


def reviewers_of(view: View, author: str) -> list[str]:
    """The agents that review ``author``: its next ring neighbours."""
    agents = view.agents
    i, n = agents.index(author), len(agents)
    return [agents[(i + step) % n] for step in range(1, min(view.options.reviewers, n - 1) + 1)]


def plan(view: View) -> list[Call] | None:
    """Phase 0: the first answers (round 0) or the reviews; phase 1: the revisions."""
    if view.phase == 0:
        return initial_calls(view) if view.round == 0 else review_calls(view)
    return revision_calls(view) if view.round > 0 else None


def review_calls(view: View) -> list[Call]:
    """One review per reviewer and author of the author's latest answer."""
    latest = view.latest_ids()
    return [
        call(
            view,
            reviewer,
            kind="evaluation",
            id=review_id(view.round, reviewer, author),
            reads=[latest[author]],
            template="review",
        )
        for author in view.agents
        if author in latest
        for reviewer in reviewers_of(view, author)
    ]


def revision_calls(view: View) -> list[Call]:
    """Every agent reads its own latest answer and the reviews of it, then answers again."""
    latest = view.latest_ids()
    calls = []
    for agent in view.agents:
        own = [latest[agent]] if agent in latest else []
        reviews = [review_id(view.round, r, agent) for r in reviewers_of(view, agent)]
        calls.append(call(view, agent, reads=own + reviews, template="revise"))
    return calls


def initial(p: PromptInput) -> str:
    """The first, independent answer."""
    return f"Solve this problem step by step.\n\n{question_block(p)}\n\n{answer_format(p)}"


def review(p: PromptInput) -> str:
    """A review of one other agent's answer, ending with a verdict."""
    return (
        "Review another agent's solution to the problem below. Check every step, name the "
        "first mistake if there is one, and end with <label>YES</label> if the solution is "
        "right or <label>NO</label> if it is not.\n\n"
        f"{question_block(p)}\n\nThe solution:\n{fenced(p.peers[0]['text'])}"
    )


def revise(p: PromptInput) -> str:
    """A revision after reading the reviews of one's own answer."""
    own = [t for t in p.peers if t["kind"] == "answer"]
    reviews = [t for t in p.peers if t["kind"] == "evaluation"]
    shown = "".join(f"{own_answer_block(t)}\n\n" for t in own)
    shown += "".join(f"A review of your answer:\n{fenced(t['text'])}\n\n" for t in reviews)
    return (
        f"{shown}Weigh the reviews: correct your answer where a review found a real mistake, "
        f"and keep it where it holds.\n\n{question_block(p)}\n\n{answer_format(p)}"
    )


def quorum(trajectory: Trajectory, *, threshold: float = 0.5) -> Decision:
    """The most common final answer if more than ``threshold`` of all agents hold it.

    Args:
        trajectory: Every agent's answers, round by round.
        threshold: The share of agents an answer must exceed (abstentions count against).

    Returns:
        The decision, with the votes and the winner's share as evidence.
    """
    if not 0 <= threshold < 1:
        raise ValueError(f"threshold must lie in [0, 1), got {threshold}")
    finals = trajectory.final_answers()
    votes = Counter(a for a in finals if a is not None)
    evidence: dict[str, object] = {
        "votes": dict(votes),
        "threshold": threshold,
        "abstentions": finals.count(None),
    }
    if not votes:
        return Decision(None, "quorum", {**evidence, "share": 0.0})
    answer, count = votes.most_common(1)[0]
    share = count / len(finals)
    winner = answer if share > threshold else None
    return Decision(winner, "quorum", {**evidence, "share": share})


REVIEW = Method(
    name="review",
    description="Peer review: agents review their ring neighbours' answers, then revise; "
    "quorum vote.",
    prompts={"initial": initial, "review": review, "revise": revise},
    plan=plan,
    options=ReviewOptions,
    decision="quorum",
    default_agents=3,
    default_rounds=1,
    max_phases=2,
    plan_node="reviews",
)
