"""MALLM's discussion paradigms as pure functions: who speaks in which phase, who reads what.

A paradigm fixes, for every debate round after the initial answers, the agents' speaking
order and what each speaker is shown:

* ``memory``: a shared memory; a speaker reads every other agent's contribution in the
  memory's window of rounds (all rounds by default) and its own latest answer;
* ``report``: the first agent reports; it reads the others' latest replies, and each other
  agent reads the latest report (and its own latest answer), never another replier;
* ``relay``: a chain ``a1 -> a2 -> ... -> aN -> a1``; a speaker reads its predecessor's latest
  answer and its own;
* ``collective``: collective refinement; every agent reads every other agent's latest answer
  and its own, all at once.

Turn order: ``sequential`` speakers take turns within a round (one phase each; ``report``
has two phases, the report and then the replies), so a later speaker reads what the earlier
speakers of the round said; ``simultaneous`` speakers all speak in one phase and read only
earlier rounds. ``collective`` is simultaneous by definition.

The functions take turn records as plain mappings (``id``, ``agent``, ``round``, ``kind``),
so the plans are tested without a graph; the cost functions give the exact call and
communication counts that a debate without the communication attack makes. Standard
library only, no LangGraph.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

Paradigm = Literal["memory", "report", "relay", "collective"]
"""A MALLM discussion paradigm."""

TurnOrder = Literal["sequential", "simultaneous"]
"""``sequential``: speakers take turns within a round; ``simultaneous``: all at once."""

PARADIGMS: tuple[Paradigm, ...] = ("memory", "report", "relay", "collective")


def speaking_phases(paradigm: Paradigm, agents: Sequence[str], order: TurnOrder) -> list[list[str]]:
    """The speakers of each phase of a debate round (round 0 is everyone at once).

    Args:
        paradigm: The paradigm.
        agents: The agents in order; the first one reports in ``report``.
        order: The turn order (``collective`` is always simultaneous).

    Returns:
        One list of speakers per phase, in phase order.
    """
    if order == "simultaneous" or paradigm == "collective":
        return [list(agents)]
    if paradigm == "report":
        return [phase for phase in ([agents[0]], list(agents[1:])) if phase]
    return [[a] for a in agents]


def predecessor(agents: Sequence[str], agent: str) -> str:
    """The agent before ``agent`` on the relay chain (the last agent precedes the first)."""
    return agents[agents.index(agent) - 1]


def peer_reads(
    paradigm: Paradigm,
    agents: Sequence[str],
    speaker: str,
    turns: Sequence[Mapping[str, Any]],
    round_: int,
    *,
    window: int | None = None,
) -> list[str]:
    """Ids of the other agents' turns ``speaker`` reads in round ``round_``, in spoken order.

    ``turns`` are the turns made so far (earlier rounds, and the earlier phases of this
    round when the order is sequential). The speaker's own latest answer is not included:
    every paradigm shows it apart, as the speaker's own.

    Args:
        paradigm: The paradigm.
        agents: The agents in order.
        speaker: The agent about to speak.
        turns: The turns made so far, in order.
        round_: The round being planned (1 or more).
        window: ``memory`` only: how many earlier rounds the memory shows (``None``: all);
            contributions of this round are always shown.
    """
    answers = [t for t in turns if t["kind"] == "answer" and t["agent"] in agents]
    if paradigm == "memory":
        low = 0 if window is None else round_ - window
        return [t["id"] for t in answers if t["agent"] != speaker and t["round"] >= low]
    latest: dict[str, str] = {}
    for t in answers:
        latest[t["agent"]] = t["id"]
    if paradigm == "report":
        reporter = agents[0]
        shown = [a for a in agents if a != reporter] if speaker == reporter else [reporter]
    elif paradigm == "relay":
        shown = [predecessor(agents, speaker)]
    else:
        shown = list(agents)
    return [latest[a] for a in shown if a != speaker and a in latest]


def paradigm_cost(
    paradigm: Paradigm,
    agents: int,
    rounds: int,
    order: TurnOrder = "sequential",
    *,
    window: int | None = None,
) -> dict[str, int]:
    """Calls, pairwise communications and turns read of a debate without the attack.

    Every agent answers once in round 0 and once in each of ``rounds`` debate rounds. In
    debate round ``r`` (``N`` agents):

    * ``memory``: a speaker reads the other agents' turns of ``min(r, window)`` earlier
      rounds, ``(N-1)·min(r, window)``, plus, sequentially, the ``k`` turns of the speakers
      before it this round (``0 + 1 + ... + (N-1) = N(N-1)/2`` a round);
    * ``report``: the reporter reads ``N-1`` replies and each of the ``N-1`` others the
      report: ``2(N-1)``;
    * ``relay``: every agent reads its predecessor: ``N`` (none when ``N = 1``);
    * ``collective``: every agent reads the ``N-1`` others: ``N(N-1)``.

    ``reads`` adds each debate call's own latest answer (one per call).

    Args:
        paradigm: The paradigm.
        agents: Number of agents.
        rounds: Debate rounds after the initial round.
        order: The turn order (``memory`` is the only paradigm whose reads depend on it).
        window: ``memory``'s window of earlier rounds (``None``: all).

    Returns:
        ``calls``, ``ncomm`` (turns of other speakers delivered, SVR-MAD's NComm) and
        ``reads`` (every turn shown to a call).
    """
    n = agents
    if paradigm == "memory":
        earlier = sum(r if window is None else min(r, window) for r in range(1, rounds + 1))
        ncomm = n * (n - 1) * earlier
        if order == "sequential":
            ncomm += rounds * n * (n - 1) // 2
    elif paradigm == "report":
        ncomm = rounds * 2 * (n - 1)
    elif paradigm == "relay":
        ncomm = rounds * n if n > 1 else 0
    else:
        ncomm = rounds * n * (n - 1)
    return {"calls": n * (rounds + 1), "ncomm": ncomm, "reads": ncomm + n * rounds}


def tied(answers: Sequence[str | None]) -> bool:
    """Whether the most frequent answer shares its count with another (abstentions aside).

    MALLM's ``simple_voting`` calls such a vote a tie and votes again after another turn.
    """
    counts: dict[str, int] = {}
    for answer in answers:
        if answer is not None:
            counts[answer] = counts.get(answer, 0) + 1
    if not counts:
        return False
    top = max(counts.values())
    return sum(1 for n in counts.values() if n == top) > 1


ALTERATIONS: tuple[str, ...] = ("anonymous", "public", "history", "confidence")
"""The alterations of MALLM's vote that run offline, ``anonymous`` (the deciding one) first."""

_VOTE_LINE = re.compile(
    r"^[ \t>*_`-]*vote[ \t*_`]*:[ \t*_`]*(?:solution[ \t]*)?(\d{1,3})\b", re.I | re.M
)


def read_vote(text: str, count: int) -> int | None:
    """The solution a vote names, 1 to ``count``, or ``None`` when it names none of them.

    The vote is the reply's last ``Vote: <n>`` line, or the whole reply when it is only a
    number.
    """
    found = _VOTE_LINE.findall(text)
    raw = found[-1] if found else text.strip().strip(".*` ")
    if not raw.isdigit():
        return None
    number = int(raw)
    return number if 1 <= number <= count else None


def tally(ballots: Mapping[str, int | None]) -> tuple[dict[int, int], int | None]:
    """Votes per solution (ascending) and the winner.

    The winner is the solution with the most votes if no other has as many; ``None`` on a
    tie or without a valid vote.
    """
    counts: dict[int, int] = {}
    for choice in ballots.values():
        if choice is not None:
            counts[choice] = counts.get(choice, 0) + 1
    counts = dict(sorted(counts.items()))
    if not counts:
        return counts, None
    top = max(counts.values())
    leaders = [c for c, n in counts.items() if n == top]
    return counts, leaders[0] if len(leaders) == 1 else None
