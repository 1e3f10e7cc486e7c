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

import functools
import hashlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from debategraph.eval.export.stored_run import StoredArm, StoredRun
from debategraph.eval.log.row import Row, opt

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
        skipped: LangSmith already held an experiment of this name (an earlier upload of
            the same rows): nothing was sent.
    """

    name: str
    dataset: str
    rows: int
    response: dict[str, Any]
    skipped: bool = False


def dataset_name_of(run: StoredRun) -> str:
    """The LangSmith dataset of a run's items: ``debategraph-gsm8k-396e10f2e4546d67``."""
    return f"debategraph-{run.dataset}-{run.items_sha256 or run.path.resolve().name}"


def experiment_bodies(
    run: StoredRun, *, dataset_name: str | None = None, prefix: str | None = None
) -> Iterator[dict[str, Any]]:
    """The request bodies, one per arm and seed, in the run's arm order, made one at a time.

    Args:
        run: The stored run.
        dataset_name: The LangSmith dataset (default :func:`dataset_name_of`).
        prefix: What experiment names start with (default: the results directory's name);
            the arm's label, its seed in a ``--seeds`` run and the fingerprint of the
            experiment's rows follow.

    Returns:
        The JSON-ready bodies of ``POST /datasets/upload-experiment``.
    """
    dataset = dataset_name or dataset_name_of(run)
    for arm in run.arms:
        for seed in arm.seeds:
            results = list(_results_of(run, arm, seed, dataset))
            name = f"{prefix or run.path.resolve().name}-{arm.label}"
            name += "" if seed is None else f"-seed{seed}"
            fingerprint = _fingerprint(run, arm.label, seed, dataset, results)
            ends = [datetime.fromisoformat(r["end_time"]) for r in results]
            metadata = _metadata(run, arm, seed, results)
            yield {
                "experiment_name": f"{name}-{fingerprint[:8]}",
                "experiment_description": (
                    f"debategraph {arm.label} on {run.dataset}: {len(results)} stored "
                    f"debates of {run.path.resolve().name}, uploaded without re-running"
                ),
                "dataset_name": dataset,
                "dataset_description": f"The {run.dataset} items of a debategraph run",
                "experiment_start_time": run.started.isoformat(),
                "experiment_end_time": max([run.finished, *ends]).isoformat(),
                "experiment_metadata": {**metadata, "fingerprint": fingerprint},
                "results": results,
            }


def _results_of(
    run: StoredRun, arm: StoredArm, seed: int | None, dataset: str
) -> Iterator[dict[str, Any]]:
    """Every item of the arm and seed as a row: its row's, or its error where it has none."""
    for index, place in arm.places:
        if place.seed != seed:
            continue
        row = run.row(index, place)
        if row is not None:
            try:
                yield _result(row, arm, dataset, run)
                continue
            except (AttributeError, TypeError, ValueError, KeyError) as exc:
                reason = f"cannot be exported ({type(exc).__name__}: {str(exc)[:200]})"
                run.leave_out(index.path, place.line, reason)
        where = f"{index.path.name}, line {place.line}"
        problem = next((p for p in run.problems if p.startswith(where + ":")), where)
        yield _error_result(run, arm, place.item, seed, dataset, problem)
    for item, missing_seed in arm.missing():
        if missing_seed == seed:
            message = "not run: the run stopped before this item"
            yield _error_result(run, arm, item, seed, dataset, message)


def _fingerprint(
    run: StoredRun, label: str, seed: int | None, dataset: str, results: list[dict[str, Any]]
) -> str:
    """What identifies an experiment's content: the run, the arm, the seed, each row's outcome."""
    digest = hashlib.sha256()
    head = [dataset, run.settings, label, seed]
    digest.update(json.dumps(head, sort_keys=True, default=str).encode())
    for r in results:
        outcome = [r["row_id"], r.get("error"), r.get("actual_outputs"), r.get("evaluation_scores")]
        digest.update(json.dumps(outcome, sort_keys=True, default=str).encode())
    return digest.hexdigest()


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
        if _taken(client, body["experiment_name"]):
            done = Uploaded(
                name=body["experiment_name"],
                dataset=body["dataset_name"],
                rows=len(body["results"]),
                response={},
                skipped=True,
            )
            uploaded.append(done)
            if on_upload is not None:
                on_upload(done)
            continue
        data = json.dumps(body, ensure_ascii=False).encode()
        headers = {"Content-Type": "application/json"}
        answer = _json_of(
            client, "POST", UPLOAD_PATH, {"data": data, "headers": headers}, "the upload"
        )
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


class LangSmithTrouble(Exception):
    """LangSmith did not answer in time, or answered with something that is not its API's."""


GIVE_UP_S = 240.0
"""Seconds a LangSmith request may take in all, its attempts included (as a model call)."""

ATTEMPTS = 3
"""Attempts of a request that fails for a reason that may pass (no connection, 5xx, 429)."""

ATTEMPT_S = 120.0
"""Seconds one attempt may wait for LangSmith's reply (cut to the time left)."""


def _json_of(client: Any, method: str, path: str, request: dict[str, Any], what: str) -> Any:
    """LangSmith's JSON answer to one request, within :data:`GIVE_UP_S`, said while it waits.

    Raises:
        LangSmithTrouble: No answer in time, or an answer that is not JSON (an HTML page:
            the endpoint is not LangSmith's API).
        langsmith.utils.LangSmithError: LangSmith refused the request.
    """
    from langsmith.utils import (
        LangSmithAPIError,
        LangSmithConnectionError,
        LangSmithRateLimitError,
        LangSmithRequestTimeout,
    )

    from debategraph.langsmith_trouble import plain_url

    passing = (
        LangSmithAPIError,
        LangSmithConnectionError,
        LangSmithRateLimitError,
        LangSmithRequestTimeout,
    )
    where = plain_url(str(client.api_url))
    deadline = time.monotonic() + GIVE_UP_S
    attempt = 0
    while True:
        attempt += 1
        left = deadline - time.monotonic()
        # The client's read timeout ends after our bound on the last attempt, so that the
        # client never starts a retry of its own once the time is up.
        timeout = (min(10.0, left), min(ATTEMPT_S, left) + LAST_ATTEMPT_S)
        try:
            response = _bounded(
                functools.partial(
                    client.request_with_retries,
                    method,
                    path,
                    request_kwargs={**request, "timeout": timeout},
                ),
                where=where,
                attempt=attempt,
                left=left,
            )
        except passing:
            wait = float(attempt)
            if attempt >= ATTEMPTS or deadline - time.monotonic() < wait + LAST_ATTEMPT_S:
                raise
            time.sleep(wait)
            continue
        except _NoAnswer:
            raise LangSmithTrouble(
                f"LangSmith at {where} did not answer {what} in {GIVE_UP_S:.0f} s "
                f"({attempt} attempt(s)): is LANGSMITH_ENDPOINT right, and is LangSmith up?"
            ) from None
        break
    if not response.content:
        return {}
    try:
        return response.json()
    except ValueError:
        kind = response.headers.get("content-type", "no content type").split(";")[0]
        raise LangSmithTrouble(
            f"LangSmith at {where} answered {what} with HTTP {response.status_code} but not "
            f"JSON ({kind}): is LANGSMITH_ENDPOINT LangSmith's API address (not its web page)?"
        ) from None


LAST_ATTEMPT_S = 1.0
"""An attempt that would have less time than this is not made."""


class _NoAnswer(Exception):
    """The attempt's time ran out before LangSmith answered."""


def _bounded(call: Callable[[], Any], *, where: str, attempt: int, left: float) -> Any:
    """``call()`` in a thread given ``left`` seconds, on the board of calls waiting.

    ``debategraph export`` watches the board, so a wait longer than a few seconds is said
    ("waiting 5 s for LangSmith's reply from URL (attempt 1 of 3)"), as a model's is.
    """
    from debategraph.nodes.patience import BOARD, Waiting

    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc

    entry = (
        Waiting("LangSmith", "reply", where, attempt, ATTEMPTS, time.monotonic())
        if BOARD.watchers
        else None
    )
    thread = threading.Thread(target=work, name="debategraph-langsmith", daemon=True)
    with BOARD.waiting(entry):
        thread.start()
        thread.join(max(left, 0.0))
    if thread.is_alive():
        raise _NoAnswer
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _taken(client: Any, name: str) -> bool:
    """Whether LangSmith already holds an experiment (a tracing project) named ``name``."""
    query = {"params": {"name": name, "limit": 1}}
    found = _json_of(client, "GET", "/sessions", query, "the experiments by name")
    return isinstance(found, list) and any(
        isinstance(p, dict) and p.get("name") == name for p in found
    )


def _result(row: Row[Any], arm: StoredArm, dataset: str, run: StoredRun) -> dict[str, Any]:
    """One experiment row of a stored row, finished or failed."""
    item = str(row.id)
    reference = opt(row.reference)
    wall = float(row.wall_s or 0.0)
    start = run.started
    result: dict[str, Any] = {
        "row_id": str(uuid.uuid5(_NAMESPACE, f"{dataset}|{item}")),
        "inputs": run.inputs_of(item),
        "expected_outputs": {"reference": reference},
        "start_time": start.isoformat(),
        "end_time": (start + timedelta(seconds=wall)).isoformat(),
        "run_name": f"{arm.label} · {item}",
        "run_metadata": {"seed": arm.seed_of(row), "wall_s": wall, "source": opt(row.source)},
    }
    if opt(row.error) is not None:
        result["error"] = str(row.error)
        return result
    answer = opt(row.answer)
    result["actual_outputs"] = {
        "answer": answer,
        "abstained": answer is None,
        "decision": opt(row.decision),
        "rounds": opt(row.rounds),
        "usage": {
            "input_tokens": opt(row.input_tokens),
            "output_tokens": opt(row.output_tokens),
            "calls": opt(row.calls),
        },
        "ncomm": opt(row.ncomm),
    }
    result["evaluation_scores"] = [
        {
            "key": "correct",
            "score": int(bool(row.correct)),
            "comment": "no answer (abstention)" if answer is None else f"{answer} vs {reference}",
        }
    ]
    return result


def _error_result(
    run: StoredRun, arm: StoredArm, item: str, seed: int | None, dataset: str, error: str
) -> dict[str, Any]:
    """The row of an item that has no readable row of this arm and seed: its error."""
    return {
        "row_id": str(uuid.uuid5(_NAMESPACE, f"{dataset}|{item}")),
        "inputs": run.inputs_of(item),
        "expected_outputs": {"reference": None},
        "start_time": run.started.isoformat(),
        "end_time": run.started.isoformat(),
        "run_name": f"{arm.label} · {item}",
        "run_metadata": {"seed": arm.seed_at(seed), "wall_s": 0.0},
        "error": error,
    }


def _metadata(
    run: StoredRun, arm: StoredArm, seed: int | None, results: list[dict[str, Any]]
) -> dict[str, Any]:
    from debategraph import __version__

    first = next((row for row in arm.rows() if opt(row.error) is None), None)
    failed = sum("error" in r for r in results)
    return {
        "debategraph_method": arm.method,
        "arm": arm.label,
        "models": first.agent_models or [] if first is not None else [],
        "agents": first.agent_names or [] if first is not None else [],
        "seed": next(
            (r["run_metadata"]["seed"] for r in results if r["run_metadata"]["seed"] is not None),
            arm.seed_at(seed),
        ),
        "failed_items": failed,
        "settings": arm.settings,
        "dataset": run.dataset,
        "debategraph_version": __version__,
    }
