"""The executor contract: a job's settings, its units of work, and what an executor does."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from debategraph.eval.datasets import Item
from debategraph.eval.run.arms import Arm
from debategraph.eval.run.budget import BudgetBase

Deliver = Callable[[dict[str, Any]], None]
"""Receives every row an executor finishes (the runner writes it)."""


@dataclass(frozen=True)
class Job:
    """What every worker of one evaluation shares: the arms and the limits on model calls.

    Attributes:
        arms: The arms, in plan order.
        dataset: The dataset name, recorded in every row.
        concurrency: Most model calls in flight at once, over every item.
        rps: Most requests per second to provider models, or ``None``.
        cache: The call cache (a SQLite file path or a LangGraph ``BaseCache``), or ``None``.
        texts: Keep every turn's reply text in the rows.
        prompts: Keep every turn's prompt (its last user message) in the rows.
    """

    arms: tuple[Arm, ...]
    dataset: str
    concurrency: int
    rps: float | None = None
    cache: Any = None
    texts: bool = True
    prompts: bool = False

    def shares(self, workers: int) -> list[Job]:
        """This job split over ``workers`` processes, which together keep its limits.

        Each gets its share of the in-flight calls and of the rate. A worker needs at least
        one call slot, so there are at most ``concurrency`` shares.
        """
        n = max(1, min(workers, self.concurrency))
        base, extra = divmod(self.concurrency, n)
        rps = None if self.rps is None else self.rps / n
        return [replace(self, concurrency=base + (k < extra), rps=rps) for k in range(n)]


@dataclass(frozen=True)
class Work:
    """One item's pending arms under one seed: the unit an executor runs, arms in order.

    Attributes:
        item: The question.
        labels: Labels of the arms to run on it, in plan order.
        budgets: What budget-matched arms read of this item's finished rows under the same
            seed (``sc@du`` reads ``du``'s; see
            :func:`~debategraph.eval.run.budget.budget_digest`), by arm label, when those rows
            were written by an earlier run.
        seed: The debates' seed, which replaces the arms' own and is recorded in every row
            (``--seeds``); ``None`` runs each arm with its own seed setting, and its rows
            record none.
    """

    item: Item
    labels: tuple[str, ...]
    budgets: Mapping[str, BudgetBase] = field(default_factory=dict)
    seed: int | None = None

    def unconditional(self, arms: Mapping[str, Arm]) -> tuple[str, ...]:
        """The labels that run whatever the others' rows say.

        After a screening arm, the other arms run only if its row finds the item contested;
        a unit that fails as a whole fails for these labels alone.
        """
        return self.labels[:1] if arms[self.labels[0]].screens else self.labels


class Executor(Protocol):
    """Runs an evaluation's work units and hands their rows back (see the package docs)."""

    def check(self, job: Job) -> None:
        """Refuse, before any file is written or call made, a job this executor cannot run.

        Raises:
            DebateConfigError: What cannot be run here, and what to do instead.
        """

    async def run(self, job: Job, work: Iterator[Work], deliver: Deliver) -> int:
        """Run every unit of ``work``, handing each row to ``deliver`` as it is finished.

        ``work`` is read lazily, in plan order; ``deliver`` is called on the caller's event
        loop. A failed debate is a row with an ``error`` field (marked ``unreachable`` when
        it could not connect: see :mod:`debategraph.eval.run.breaker`, whose
        ``ServerDownError``, raised by ``deliver``, must end the run and cancel the debates
        in progress); an error in the setup (``DebateConfigError``) or a bug ends the run
        with that exception.

        Returns:
            The most model calls in flight at once (summed over workers).
        """
        ...
