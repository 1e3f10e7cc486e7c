"""The agents of a debate: names, and optionally the model each one is bound to."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from debategraph.state.context import DebateConfigError

RESERVED_NAMES = frozenset(
    {"start", "round", "decide", "plan", "observe", "summarizer", "evaluator"}
)
"""Node names of the debate graph that an agent may not take."""

_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")


@dataclass(frozen=True)
class Agent:
    """One debater: a name (its node in the round subgraph) and, optionally, its model.

    Attributes:
        name: Node and turn name: a letter, then up to 39 letters, digits, ``_``, ``.`` or
            ``-`` (``a1``, ``alice``, ``gpt-4o``).
        model: A chat model, or any LangChain ``Runnable`` / compiled LangGraph graph that
            takes messages and returns a message (e.g. a tool-using agent). ``None`` uses the
            context's model specs (``DebateContext.models``).
    """

    name: str
    model: Any = None


AgentsSpec = int | Sequence[str | Agent] | None
"""A roster as callers give it: a count, agent names, or :class:`Agent` specs."""


def default_names(n: int) -> list[str]:
    """Names of ``n`` agents: ``a1`` .. ``an``."""
    return [f"a{i}" for i in range(1, n + 1)]


def make_roster(agents: AgentsSpec, default: int) -> tuple[Agent, ...]:
    """The roster of a debate graph.

    Args:
        agents: A count (agents ``a1`` .. ``aN``), a list of names or :class:`Agent` specs,
            or ``None`` for ``default`` agents.
        default: The method's default number of agents.

    Raises:
        DebateConfigError: No agents, a bad or reserved name, or a name given twice.
    """
    if agents is None:
        agents = default
    if isinstance(agents, bool):
        raise DebateConfigError(f"agents must be a count or a list of names, got {agents!r}")
    if isinstance(agents, int):
        if agents < 1:
            raise DebateConfigError(f"agents must be at least 1, got {agents}")
        return tuple(Agent(name) for name in default_names(agents))
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        raise DebateConfigError(f"agents must be a count or a list of names, got {agents!r}")
    roster = tuple(a if isinstance(a, Agent) else Agent(a) for a in agents)
    if not roster:
        raise DebateConfigError("agents must be at least 1, got an empty list")
    for agent in roster:
        if not isinstance(agent.name, str) or not _NAME_RE.fullmatch(agent.name):
            raise DebateConfigError(
                f"bad agent name {agent.name!r}: use a letter, then up to 39 letters, digits, "
                "'_', '.' or '-'"
            )
        if agent.name in RESERVED_NAMES:
            raise DebateConfigError(
                f"agent name {agent.name!r} is taken by a node of the debate graph; "
                f"avoid: {', '.join(sorted(RESERVED_NAMES))}"
            )
    names = [a.name for a in roster]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise DebateConfigError(f"agent names must be unique; repeated: {', '.join(repeated)}")
    return roster
