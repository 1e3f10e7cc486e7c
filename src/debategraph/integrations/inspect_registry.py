r"""What debategraph registers with Inspect: the ``debategraph/debate`` solver.

``pyproject.toml`` names this module under the ``inspect_ai`` entry-point group, so Inspect
imports it when a command names ``debategraph/...``::

    inspect eval inspect_evals/gsm8k --solver debategraph/debate \
        -S method=du -S agents=3 -S rounds=2 --model openai/gpt-4o-mini

Every ``-S`` option is an argument of :func:`debate` (those of
:func:`debategraph.integrations.inspect.debate_solver`).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.solver import Solver, solver

from debategraph.integrations.inspect import debate_solver
from debategraph.policies.types import TaskKind

__all__ = ["debate"]


@solver(name="debate")
def debate(
    method: str = "du",
    role: str | None = None,
    task: TaskKind | None = None,
    **settings: Any,
) -> Solver:
    """A debate of ``method`` answers each sample (``--solver debategraph/debate``).

    Args:
        method: A registered method name (``debategraph methods``), e.g. ``du``, ``cortex``.
        role: An Inspect model role for the debaters (``--model-role debaters=...``);
            without it and without ``models``, the model under evaluation (``--model``).
        task: The answer kind (``number``, ``choice``, ``math``, ``text``); default: from
            the sample (``choice`` when it has choices, else ``number``).
        **settings: ``agents``, ``rounds``, ``seed``, ``options``, generation settings, and
            ``models`` (our own model specs, e.g. ``openai:gpt-4o-mini``), as
            :func:`debategraph.arun` takes them.

    Returns:
        The solver (see :func:`debategraph.integrations.inspect.debate_solver`).
    """
    return debate_solver(method, role=role, task=task, **settings)
