"""SVR-MAD's options (``--option KEY=VALUE`` on the command line)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from debategraph.methods import MethodOptions
from debategraph.policies.survival import PriorKind


@dataclass(frozen=True, kw_only=True)
class SvrOptions(MethodOptions):
    """SVR-MAD's parameters, with the paper's setting or ours where it is silent.

    See ``docs/methods/svr-mad.md``.

    Attributes:
        prior: The pre-debate signal: ``"min_ll"`` (``exp`` of the least token logprob),
            ``"ppl"`` (``1 / perplexity``) or ``"confidence"`` (stated in the first answer).
        challengers: ``S``, challengers per iteration (paper: 2 or 3).
        accept_after: ``C``, the fewest challengers a receiver must survive (paper: 2 or 3).
        accept_threshold: ``tau``, the survival rate that accepts (paper: 1, i.e. it kept its
            answer every time).
        budget: ``B_max`` in pairwise debates; ``None`` for the paper's ``S * (k + m)``.
        accept_check: Check acceptance after each ``"debate"`` (the paper's text) or after
            each ``"iteration"`` (its Alg. 1).
        schedule: Run an iteration's debates ``"concurrent"``-ly (one phase) or
            ``"sequential"``-ly (one phase each; an acceptance skips the rest).
        repeat_pairs: Let a (challenger, receiver) pair debate again (the literal Alg. 1);
            by default a pair debates at most once.
    """

    prior: PriorKind = "min_ll"
    challengers: int = 2
    accept_after: int = 2
    accept_threshold: float = 1.0
    budget: int | None = None
    accept_check: Literal["debate", "iteration"] = "debate"
    schedule: Literal["concurrent", "sequential"] = "concurrent"
    repeat_pairs: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.challengers < 1:
            raise ValueError(f"challengers must be at least 1, got {self.challengers}")
        if self.accept_after < 1:
            raise ValueError(f"accept_after must be at least 1, got {self.accept_after}")
        if not -1.0 <= self.accept_threshold <= 1.0:
            raise ValueError(
                f"accept_threshold must lie in [-1, 1] (a survival rate), "
                f"got {self.accept_threshold}"
            )
        if self.budget is not None and self.budget < 0:
            raise ValueError(f"budget must be 0 or more (or none), got {self.budget}")
