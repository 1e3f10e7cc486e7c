"""Where an evaluation's debates run: an executor takes work and hands rows back.

:func:`debategraph.eval.run.runner.run_eval` owns the results directory (the one-writer lock,
``run.json`` and its question-set hash, resume, the final rewrite) and hands the pending work
to an executor as :class:`Work` units, one per item; the executor runs them wherever it
likes and hands each finished row back, and the runner alone writes ``results.jsonl``.

* :class:`LocalExecutor` (the default) runs every debate on this process's event loop.
* :class:`RayExecutor` runs them on Ray async actors, on this machine or a cluster
  (``pip install 'debategraph[ray]'``; Ray is imported only when it is used).
"""

from __future__ import annotations

from typing import Any

from debategraph.eval.run.executors.base import Executor, Job, Work
from debategraph.eval.run.executors.local import ItemRunner, LocalExecutor

__all__ = [
    "ENGINES",
    "Executor",
    "ItemRunner",
    "Job",
    "LocalExecutor",
    "RayExecutor",
    "Work",
    "executor_for",
]

ENGINES = ("local", "ray")
"""The engines ``debategraph eval --engine`` and a sweep file's ``engine`` name."""


def executor_for(
    engine: str | None, *, address: str | None = None, workers: int | None = None
) -> Executor:
    """The executor of an engine name, as the command line and sweep files give it.

    Args:
        engine: ``local`` (the default when ``None``) or ``ray``.
        address: With ``ray``: the cluster to join (``auto`` or ``HOST:PORT``); ``None``
            starts a local one.
        workers: With ``ray``: how many workers.

    Raises:
        ValueError: An unknown engine, fewer than one worker, or ``address`` or ``workers``
            without ``ray``.
    """
    engine = engine or "local"
    if engine not in ENGINES:
        raise ValueError(
            f"--engine (engine in a sweep file) must be one of {', '.join(ENGINES)}, got {engine!r}"
        )
    if engine == "local":
        if address is not None or workers is not None:
            raise ValueError(
                "--address and --workers go with --engine ray (in a sweep file: address and "
                'workers go with engine = "ray")'
            )
        return LocalExecutor()
    from debategraph.eval.run.executors.ray import RayExecutor

    return RayExecutor(address, workers)


def __getattr__(name: str) -> Any:
    if name == "RayExecutor":
        from debategraph.eval.run.executors.ray import RayExecutor

        return RayExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
