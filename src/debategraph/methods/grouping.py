"""Groups of agents for methods that debate in groups and stages (GroupDebate, S²-MAD).

A method whose options derive from :class:`GroupOptions` takes the group settings, checked
on construction, and splits its agents with :func:`make_groups`; the stage arithmetic is in
:mod:`debategraph.policies.grouping`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from debategraph.methods import DebateConfigError, DebateView, MethodOptions
from debategraph.policies.grouping import assign_groups

__all__ = ["GroupOptions", "make_groups"]


@dataclass(frozen=True, kw_only=True)
class GroupOptions(MethodOptions):
    """Options of a method that debates in groups for stages of rounds.

    Attributes:
        groups: Explicit group sizes, e.g. ``(2, 2, 2)`` or ``(3, 2)``; they must add up to the
            number of agents. ``None``: ``num_groups`` groups as equal as can be.
        num_groups: ``N`` when no sizes are given; ``None`` is ``ceil(M / 3)`` (two groups for
            GroupDebate's GD(5,3), which makes 17 calls).
        stage_rounds: ``R``, rounds per stage (GroupDebate's default and best value: 2).
        shuffle: Assign agents to groups at random with the run's seed (GroupDebate's
            Alg. 1); ``False`` fills the groups in agent order.
    """

    groups: tuple[int, ...] | None = None
    num_groups: int | None = None
    stage_rounds: int = 2
    shuffle: bool = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.stage_rounds < 1:
            raise ValueError(f"stage_rounds must be at least 1, got {self.stage_rounds}")
        if self.num_groups is not None and self.num_groups < 1:
            raise ValueError(f"num_groups must be at least 1, got {self.num_groups}")
        if self.groups is not None:
            if not self.groups or any(s < 1 for s in self.groups):
                raise ValueError(f"groups must be sizes of at least 1, got {self.groups}")
            if self.num_groups is not None and self.num_groups != len(self.groups):
                raise ValueError(
                    f"groups {self.groups} make {len(self.groups)} groups, "
                    f"but num_groups is {self.num_groups}"
                )


GroupOptionsT = TypeVar("GroupOptionsT", bound=GroupOptions)


def make_groups(view: DebateView[GroupOptionsT]) -> list[list[str]]:
    """The run's groups, from the options and the seed.

    Raises:
        DebateConfigError: Sizes that do not fit the number of agents (the message names the
            method).
    """
    options = view.options
    seed = view.context.seed if options.shuffle else None
    try:
        return assign_groups(view.agents, sizes=options.groups, count=options.num_groups, seed=seed)
    except ValueError as exc:
        raise DebateConfigError(f"{view.method.name} options: {exc}") from None
