"""Stored runs as LangSmith experiments (``debategraph export DIR --to langsmith``), no model call.

Each arm (each arm and seed, in a ``--seeds`` run) becomes one experiment, sent in one
request to LangSmith's upload-experiment endpoint (``POST /datasets/upload-experiment``)
through the SDK's ``Client``, which reads ``LANGSMITH_API_KEY`` and ``LANGSMITH_ENDPOINT``.
Every experiment of a run names the same dataset (``debategraph-DATASET-HASH``: the question
set's content hash), and an item is the same example in all of them (its row id is derived
from the dataset's name and the item's id), so LangSmith's comparison view lines the arms up.

A row of an experiment holds the item (``inputs``: question, task, item id, choices), its
reference (``expected_outputs``), the debate's outcome (``actual_outputs``: answer,
abstained, decision, rounds, usage, NComm) and the ``correct`` score (1 or 0; an
abstention is 0). The experiment's metadata names the method, the arm, the agents' models,
the seed and the arm's settings. Rows keep each debate's wall time but not its clock time:
every row starts at the run's start and lasts its wall time. Turn texts are not sent.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from debategraph.eval.export.stored_run import StoredArm, StoredRun

__all__ = ["UPLOAD_PATH", "Uploaded", "experiment_bodies", "upload_experiments"]

UPLOAD_PATH = "/datasets/upload-experiment"
"""LangSmith's endpoint for experiments that were run elsewhere."""

_NAMESPACE = uuid.UUID("5d0c7b8e-52f4-4c1e-9a57-4c5c7e1f2b90")


@dataclass(frozen=True)
class Uploaded:
    """One experiment LangSmith took.

    Attributes:
        name: The experiment's name.
        dataset: The dataset it belongs to.
        rows: How many rows it holds.
        response: LangSmith's answer (its ``experiment`` and ``dataset`` records).
    """

    name: str
    dataset: str
    rows: int
    response: dict[str, Any]


def dataset_name_of(run: StoredRun) -> str:
    """The LangSmith dataset of a run's items: ``debategraph-gsm8k-396e10f2e4546d67``."""
    return f"debategraph-{run.dataset}-{run.items_sha256 or run.path.resolve().name}"


def experiment_bodies(
    run: StoredRun, *, dataset_name: str | None = None, prefix: str | None = None
) -> list[dict[str, Any]]:
    """The request bodies, one per arm and seed, in the run's arm order.

    Args:
        run: The stored run.
        dataset_name: The LangSmith dataset (default :func:`dataset_name_of`).
        prefix: What experiment names start with (default: the results directory's name);
            the arm's label, its seed in a ``--seeds`` run and a short random suffix follow,
            as LangSmith experiment names are unique.

    Returns:
        The JSON-ready bodies of ``POST /datasets/upload-experiment``.
    """
    dataset = dataset_name or dataset_name_of(run)
    questions = {str(row["id"]): run.inputs_of(str(row["id"])) for a in run.arms for row in a.rows}
    bodies = []
    for arm in run.arms:
        seeds = arm.seeds
        for seed in seeds:
            rows = [row for row in arm.rows if row.get("seed") == seed]
            name = f"{prefix or run.path.resolve().name}-{arm.label}"
            name += "" if seed is None else f"-seed{seed}"
            results = [
                r
                for row in rows
                if (r := _result(row, arm, dataset, run.started, questions)) is not None
            ]
            ends = [datetime.fromisoformat(r["end_time"]) for r in results]
            bodies.append(
                {
                    "experiment_name": f"{name}-{uuid.uuid4().hex[:8]}",
                    "experiment_description": (
                        f"debategraph {arm.label} on {run.dataset}: {len(results)} stored "
                        f"debates of {run.path.resolve().name}, uploaded without re-running"
                    ),
                    "dataset_name": dataset,
                    "dataset_description": f"The {run.dataset} items of a debategraph run",
                    "experiment_start_time": run.started.isoformat(),
                    "experiment_end_time": max([run.finished, *ends]).isoformat(),
                    "experiment_metadata": _metadata(run, arm, rows),
                    "results": results,
                }
            )
    return bodies


def upload_experiments(
    run: StoredRun,
    client: Any,
    *,
    on_upload: Callable[[Uploaded], object] | None = None,
    **naming: Any,
) -> list[Uploaded]:
    """Send every experiment of ``run`` through ``client`` (a ``langsmith.Client``).

    Args:
        run: The stored run.
        client: The LangSmith client (its key and endpoint).
        on_upload: Called with each experiment as soon as LangSmith has taken it.
        **naming: ``dataset_name`` and ``prefix``, as :func:`experiment_bodies` takes them.

    Returns:
        What LangSmith took, one per experiment, in order.

    Raises:
        langsmith.utils.LangSmithError: A request failed; the experiments before it are
            uploaded.
    """
    uploaded = []
    for body in experiment_bodies(run, **naming):
        response = client.request_with_retries(
            "POST",
            UPLOAD_PATH,
            request_kwargs={
                "data": json.dumps(body, ensure_ascii=False).encode(),
                "headers": {"Content-Type": "application/json"},
            },
            stop_after_attempt=3,
        )
        answer = response.json() if response.content else {}
        done = Uploaded(
            name=body["experiment_name"],
            dataset=body["dataset_name"],
            rows=len(body["results"]),
            response=answer if isinstance(answer, dict) else {},
        )
        uploaded.append(done)
        if on_upload is not None:
            on_upload(done)
    return uploaded


def _result(
    row: dict[str, Any],
    arm: StoredArm,
    dataset: str,
    start: datetime,
    questions: dict[str, dict[str, Any] | None],
) -> dict[str, Any] | None:
    """One experiment row; ``None`` for a failed debate of an item no row keeps the question of."""
    item = str(row["id"])
    inputs = questions.get(item)
    if inputs is None:
        return None
    reference = row.get("reference")
    wall = float(row.get("wall_s") or 0.0)
    result: dict[str, Any] = {
        "row_id": str(uuid.uuid5(_NAMESPACE, f"{dataset}|{item}")),
        "inputs": inputs,
        "expected_outputs": {"reference": reference},
        "start_time": start.isoformat(),
        "end_time": (start + timedelta(seconds=wall)).isoformat(),
        "run_name": f"{arm.label} · {item}",
        "run_metadata": {"seed": arm.seed_of(row), "wall_s": wall, "source": row.get("source")},
    }
    if "error" in row:
        result["error"] = str(row["error"])
        return result
    answer = row.get("answer")
    result["actual_outputs"] = {
        "answer": answer,
        "abstained": answer is None,
        "decision": row.get("decision"),
        "rounds": row.get("rounds"),
        "usage": {
            "input_tokens": row.get("input_tokens"),
            "output_tokens": row.get("output_tokens"),
            "calls": row.get("calls"),
        },
        "ncomm": row.get("ncomm"),
    }
    result["evaluation_scores"] = [
        {
            "key": "correct",
            "score": int(bool(row.get("correct"))),
            "comment": "no answer (abstention)" if answer is None else f"{answer} vs {reference}",
        }
    ]
    return result


def _metadata(run: StoredRun, arm: StoredArm, rows: list[dict[str, Any]]) -> dict[str, Any]:
    from debategraph import __version__

    first = next((row for row in rows if "error" not in row), {})
    return {
        "debategraph_method": arm.method,
        "arm": arm.label,
        "models": first.get("agent_models", []),
        "agents": first.get("agent_names", []),
        "seed": arm.seed_of(rows[0]) if rows else None,
        "settings": arm.settings,
        "dataset": run.dataset,
        "debategraph_version": __version__,
    }
