"""What a ballot or judge rule reads from the turns: the agents' ballots, the judge's answer.

Shared by the decision node (over the debate's turns) and ``report --decision`` (over the
turns a result row keeps), so a stored debate is re-decided exactly as it was decided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from debategraph.policies.ballots import Ballot, BallotKind


def implied_ballot(answer: str | None, kind: BallotKind, points: int) -> Ballot | None:
    """The ballot an agent that was not asked for one casts: its own final answer alone.

    An agent is not asked when the debate ended before a round that asks (a gate that settles
    round 0, for one). Its answer is then its only approval, its whole allocation or its
    first and only preference; with no answer it abstains.
    """
    if answer is None:
        return None
    return {answer: points} if kind == "cumulative" else [answer]


def ballots_of(
    latest: Mapping[str, Mapping[str, Any]],
    agents: Sequence[str],
    kind: BallotKind,
    points: int,
) -> tuple[list[Ballot | None], dict[str, int]]:
    """Each agent's ballot, from its latest answer turn.

    A turn asked for a ballot holds it (``ballot.vote``; ``None`` when spoiled: an
    abstention). A turn not asked gives the :func:`implied_ballot` of its answer.

    Args:
        latest: Each agent's latest answer turn (a turn record or a stored row's turn).
        agents: The agents, in agent order.
        kind: The ballot kind the rule reads.
        points: The cumulative budget (for implied ballots).

    Returns:
        The ballots in agent order, and counts ``asked``, ``spoiled`` and ``implied``.

    Raises:
        ValueError: A turn holds a ballot of another kind.
    """
    ballots: list[Ballot | None] = []
    counts = {"asked": 0, "spoiled": 0, "implied": 0}
    for agent in agents:
        turn = latest.get(agent)
        record = turn.get("ballot") if turn is not None else None
        if record is None:
            counts["implied"] += 1
            ballots.append(implied_ballot(turn.get("answer") if turn else None, kind, points))
            continue
        if record.get("kind") != kind:
            raise ValueError(
                f"{agent}'s ballot is a {record.get('kind')} ballot, and this rule reads "
                f"{kind} ballots"
            )
        counts["asked"] += 1
        vote = record.get("vote")
        counts["spoiled"] += vote is None
        ballots.append(vote)
    return ballots, counts


def judged_of(turns: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The last turn of kind ``decision`` (the judge's), as the judge rule reads it."""
    for turn in reversed(turns):
        if turn.get("kind") == "decision":
            return {"answer": turn.get("answer"), "agent": turn.get("agent"), "id": turn.get("id")}
    return None
