"""GroupDebate's groups and stages (Liu et al., arXiv 2409.14051): pure functions.

Round numbers here are the engine's: round 0 is the initial answer and round ``r`` is the
paper's round ``t = r + 1``; ``T`` (total rounds, the initial one included) is the engine's
debate rounds plus one. Stage ``s`` (from 1) holds the engine rounds ``(s-1)R .. min(sR, T)-1``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Literal

RoundKind = Literal["initial", "intra", "inter"]
"""What a GroupDebate round is: the initial answers, a round inside the groups, or the first
round of a later stage, which reads every group's summary."""


def default_group_count(agents: int) -> int:
    """``ceil(M / 3)``: groups of about three (GD(5,3) in the paper uses two groups for five).

    Raises:
        ValueError: ``agents`` below 1.
    """
    if agents < 1:
        raise ValueError(f"agents must be at least 1, got {agents}")
    return math.ceil(agents / 3)


def even_sizes(agents: int, groups: int) -> tuple[int, ...]:
    """Sizes of ``groups`` groups over ``agents`` agents, as equal as can be, larger first.

    ``even_sizes(5, 2) == (3, 2)``; ``even_sizes(8, 3) == (3, 3, 2)``.

    Raises:
        ValueError: ``groups`` not between 1 and ``agents``.
    """
    if not 1 <= groups <= agents:
        raise ValueError(f"the number of groups must be between 1 and {agents}, got {groups}")
    base, extra = divmod(agents, groups)
    return tuple(base + 1 if j < extra else base for j in range(groups))


def group_sizes(
    agents: int, *, sizes: Sequence[int] | None = None, count: int | None = None
) -> tuple[int, ...]:
    """The group sizes of a debate: explicit ``sizes``, else ``count`` even groups.

    Args:
        agents: Number of agents ``M``.
        sizes: Explicit sizes (e.g. ``(2, 2, 2)``); they must add up to ``agents``.
        count: Number of groups ``N`` when no sizes are given (default ``ceil(M / 3)``).

    Returns:
        The sizes, one per group, in group order.

    Raises:
        ValueError: Sizes that do not add up to ``agents``, a size below 1, or sizes and a
            count that disagree.
    """
    if sizes is None:
        return even_sizes(agents, default_group_count(agents) if count is None else count)
    sizes = tuple(sizes)
    if not sizes or any(s < 1 for s in sizes):
        raise ValueError(f"group sizes must be at least 1 each, got {sizes}")
    if sum(sizes) != agents:
        raise ValueError(
            f"group sizes {sizes} add up to {sum(sizes)}, but there are {agents} agents"
        )
    if count is not None and count != len(sizes):
        raise ValueError(f"{len(sizes)} group sizes given, but the number of groups is {count}")
    return sizes


def split_groups(
    agents: Sequence[str], sizes: Sequence[int], *, seed: int | None
) -> list[list[str]]:
    """Split the agents into groups of the given sizes (Alg. 1, lines 1-2).

    The agents are shuffled with ``random.Random(seed).shuffle`` and cut into consecutive
    groups; ``seed=None`` keeps the agent order. Members are listed in agent order.

    Args:
        agents: Agent names, in agent order.
        sizes: Group sizes adding up to ``len(agents)``.
        seed: Seed of the shuffle, or ``None`` for no shuffle.

    Returns:
        The groups, each a list of agent names.

    Raises:
        ValueError: Sizes that do not add up to the number of agents.
    """
    if sum(sizes) != len(agents):
        raise ValueError(f"group sizes {tuple(sizes)} do not add up to {len(agents)} agents")
    order = list(agents)
    if seed is not None:
        random.Random(seed).shuffle(order)
    position = {a: i for i, a in enumerate(agents)}
    groups, start = [], 0
    for size in sizes:
        groups.append(sorted(order[start : start + size], key=position.__getitem__))
        start += size
    return groups


def assign_groups(
    agents: Sequence[str],
    *,
    sizes: Sequence[int] | None = None,
    count: int | None = None,
    seed: int | None = None,
) -> list[list[str]]:
    """The groups of a debate: :func:`group_sizes`, then :func:`split_groups`.

    Args:
        agents: Agent names, in agent order.
        sizes: Explicit group sizes adding up to ``len(agents)``.
        count: Number of groups when no sizes are given (default ``ceil(M / 3)``).
        seed: Seed of the shuffle, or ``None`` to fill the groups in agent order.

    Returns:
        The groups, each a list of agent names in agent order.

    Raises:
        ValueError: Sizes or a count that do not fit the agents.
    """
    return split_groups(agents, group_sizes(len(agents), sizes=sizes, count=count), seed=seed)


def stage_count(total_rounds: int, stage_rounds: int) -> int:
    """``S = ceil(T / R)`` stages for ``T`` total rounds of which ``R`` per stage.

    Raises:
        ValueError: ``total_rounds`` or ``stage_rounds`` below 1.
    """
    if total_rounds < 1 or stage_rounds < 1:
        raise ValueError(f"T and R must be at least 1, got T={total_rounds}, R={stage_rounds}")
    return math.ceil(total_rounds / stage_rounds)


def stage_of(round_: int, stage_rounds: int) -> int:
    """The stage (from 1) of engine round ``round_``."""
    return round_ // stage_rounds + 1


def round_kind(round_: int, stage_rounds: int) -> RoundKind:
    """``initial`` for round 0, ``inter`` for the first round of a later stage, else ``intra``."""
    if round_ == 0:
        return "initial"
    return "inter" if round_ % stage_rounds == 0 else "intra"


def debate_plan(
    agents: int, total_rounds: int, stage_rounds: int, groups: Sequence[Sequence[str]]
) -> dict[str, int | list[int]]:
    """What a staged group debate records of its plan, in the paper's letters.

    Returns:
        ``M`` agents, ``T`` total rounds, ``R`` rounds per stage, ``S`` stages, ``N`` groups,
        and the group ``sizes``.
    """
    return {
        "M": agents,
        "T": total_rounds,
        "R": stage_rounds,
        "S": stage_count(total_rounds, stage_rounds),
        "N": len(groups),
        "sizes": [len(g) for g in groups],
    }


def stage_schedule(total_rounds: int, stage_rounds: int) -> list[list[int]]:
    """The engine rounds of every stage: ``stage_schedule(4, 2) == [[0, 1], [2, 3]]``.

    A last stage may be shorter (``min(sR, T)``): ``stage_schedule(3, 2) == [[0, 1], [2]]``.
    """
    return [
        list(range(s * stage_rounds, min((s + 1) * stage_rounds, total_rounds)))
        for s in range(stage_count(total_rounds, stage_rounds))
    ]
