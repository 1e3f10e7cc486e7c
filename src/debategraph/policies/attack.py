"""The communication attack of Free-MAD's robustness study (after He et al., 2025).

A compromised ("cut-off") agent stops receiving its peers' answers: in every debate round it
sees only its own history. The other agents still read what the cut-off agent writes. The
decision rule is unchanged. This module only chooses which agents are cut off; the graph
applies the cut when it builds each agent's context.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from numbers import Real


def cut_off_count(num_agents: int, ratio: float | None) -> int:
    """How many of ``num_agents`` agents the attack cuts off.

    ``ratio=None`` is the default attack: one agent (``ratio = 1/N``), none when there are no
    agents. Otherwise the count is Python's ``round(ratio * num_agents)``, which rounds
    halves to the even integer (``0.5 * 3 = 1.5`` -> 2, ``0.5 * 5 = 2.5`` -> 2,
    ``0.125 * 4 = 0.5`` -> 0), kept within ``[0, num_agents]``.

    Args:
        num_agents: Number of agents in the debate.
        ratio: Proportion of agents to cut off, in [0, 1], or ``None`` for one agent.

    Returns:
        The number of agents to cut off.

    Raises:
        ValueError: ``ratio`` is not a finite number in [0, 1], or ``num_agents`` is negative.
    """
    if num_agents < 0:
        raise ValueError(f"num_agents must be >= 0, got {num_agents}")
    if ratio is None:
        return min(1, num_agents)
    if (
        not isinstance(ratio, Real)
        or isinstance(ratio, bool)
        or not math.isfinite(ratio)
        or not 0 <= ratio <= 1
    ):
        raise ValueError(f"attack ratio must be a number in [0, 1] or None, got {ratio!r}")
    return max(0, min(num_agents, round(ratio * num_agents)))


def choose_cut_off(agents: Sequence[str], ratio: float | None, seed: int) -> list[str]:
    """Pick the agents that the communication attack cuts off.

    The choice is ``sorted(random.Random(seed).sample(range(N), k))`` with
    ``k = cut_off_count(N, ratio)``, mapped back to agent names: the same seed gives the
    same agents, and the result is in agent order. Record it with the run.

    Args:
        agents: Agent names, in agent order; names must be unique.
        ratio: Proportion of agents to cut off, in [0, 1], or ``None`` for one agent. See
            :func:`cut_off_count` for the rounding.
        seed: Seed of the choice.

    Returns:
        The cut-off agents' names, in agent order.

    Raises:
        ValueError: Invalid ``ratio``, a string instead of a sequence of names, or duplicate
            agent names.
    """
    if isinstance(agents, str):
        raise ValueError("agents must be a sequence of agent names, not a single string")
    names = list(agents)
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must be unique, got {names!r}")
    count = cut_off_count(len(names), ratio)
    chosen = sorted(random.Random(seed).sample(range(len(names)), count))
    return [names[i] for i in chosen]
