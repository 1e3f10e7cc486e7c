"""Read-only views of the turn record that nodes and results share."""

from __future__ import annotations

from collections.abc import Sequence

from debategraph.policies.types import Trajectory
from debategraph.state.records import Turn


def answer_turns(turns: Sequence[Turn]) -> list[Turn]:
    """The agents' answer turns, leaving out summaries and evaluations."""
    return [t for t in turns if t["kind"] == "answer"]


def latest_by_agent(turns: Sequence[Turn]) -> dict[str, Turn]:
    """Each agent's most recent answer turn."""
    latest: dict[str, Turn] = {}
    for turn in answer_turns(turns):
        latest[turn["agent"]] = turn
    return latest


def trajectory(turns: Sequence[Turn], agents: Sequence[str]) -> Trajectory:
    """Answers and confidences per agent and round; a silent agent carries its last answer."""
    last_round = max((t["round"] for t in answer_turns(turns)), default=0)
    grid: dict[str, dict[int, Turn]] = {a: {} for a in agents}
    for turn in answer_turns(turns):
        grid.setdefault(turn["agent"], {})[turn["round"]] = turn
    answers, confidences = [], []
    for agent in agents:
        row_a: list[str | None] = []
        row_c: list[float | None] = []
        for r in range(last_round + 1):
            spoke = grid[agent].get(r)
            if spoke is not None:
                row_a.append(spoke["answer"])
                row_c.append(spoke["confidence"])
            else:
                row_a.append(row_a[-1] if row_a else None)
                row_c.append(row_c[-1] if row_c else None)
        answers.append(row_a)
        confidences.append(row_c)
    return Trajectory(agents=list(agents), answers=answers, confidences=confidences)
