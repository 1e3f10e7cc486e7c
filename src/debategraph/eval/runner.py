"""The evaluation runner: many debates at once, one JSONL row per (method, item), resumable.

:func:`run_eval` runs every method ("arm") on every item. Items run concurrently, and three
bounds apply to model calls:

* one :class:`~debategraph.nodes.call.CallLimiter` of ``concurrency`` slots, shared by every
  debate's graph: the hard bound on in-flight model calls across items and agents;
* LangGraph's ``max_concurrency`` in each debate's run config (the same number);
* optionally a shared ``langchain_core.rate_limiters.InMemoryRateLimiter`` (``rps``
  requests per second) attached to the provider models.

Transient model errors are retried by the call nodes' LangGraph ``RetryPolicy``; a debate
that still fails becomes a failed row (``error`` says what failed, without secrets) and is run
again on the next run. Rows are appended as they finish (see :mod:`debategraph.eval.store`);
running the same command again resumes.

Budget matching: an arm with ``budget_of="du"`` runs self-consistency with as many samples as
``du`` made model calls on that item (``agents = calls``, 0 rounds, majority vote); it is
labelled ``sc@du``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.rate_limiters import InMemoryRateLimiter

from debategraph.api import DebateConfigError, arun, prepare
from debategraph.eval.datasets import Item
from debategraph.eval.spend import SpendMeter
from debategraph.eval.store import (
    RESULTS_FILE,
    Key,
    OutputLock,
    ResultsFile,
    check_manifest,
    row_key,
)
from debategraph.methods.contract import Method
from debategraph.models.oracle import REPLAY_SOURCES
from debategraph.models.resolve import SIMULATED, ModelConfigError, model_label, resolve_model
from debategraph.models.simulated import SimulatedDebater
from debategraph.nodes.call import CallLimiter
from debategraph.nodes.runnable import run_sync
from debategraph.policies.accounting import usage_by_kind
from debategraph.policies.failures import describe_error as _describe_error
from debategraph.policies.secrets import Redactor, redact_url
from debategraph.result import DebateResult

REAL_DATASETS = frozenset({"gsm8k"})
"""Datasets whose items the simulated model answers with replayed real model solutions."""


@dataclass(frozen=True)
class Arm:
    """One evaluated configuration: its rows carry ``label`` as their ``method``.

    Attributes:
        label: Row label, unique in a run (``du``, ``sc@du``, ``mav-freemad``).
        method: A registered method name, a ``"package.module:ATTR"`` string or a
            ``Method``.
        settings: Keyword settings of :func:`debategraph.arun` (``agents``, ``rounds``,
            ``models``, ``base_url``, ``seed``, ``tie_policy``, ``decision``, ``options``...).
            The old key ``model`` is read as ``models``, with a warning.
        budget_of: Label of the arm whose model calls on an item set this arm's ``agents``
            on that item (budget-matched self-consistency); ``None`` otherwise.
    """

    label: str
    method: str | Method[Any]
    settings: dict[str, Any] = field(default_factory=dict)
    budget_of: str | None = None

    def __post_init__(self) -> None:
        if "model" in self.settings:
            from debategraph.api import models_argument

            settings = dict(self.settings)
            model = settings.pop("model")
            settings["models"] = models_argument(settings.get("models"), model)
            object.__setattr__(self, "settings", settings)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready description for ``run.json`` (model objects become their labels)."""
        settings = {k: _jsonable(v, k) for k, v in sorted(self.settings.items())}
        return {
            "label": self.label,
            "method": self.method if isinstance(self.method, str) else self.method.name,
            "settings": settings,
            "budget_of": self.budget_of,
        }


def arms_for(
    methods: Sequence[str],
    settings: Mapping[str, Any],
    *,
    match_budget: bool = False,
    options: Mapping[str, str] | None = None,
) -> list[Arm]:
    """One arm per method with shared settings, plus ``sc@M`` arms when matching budgets.

    Args:
        methods: Method names or ``"package.module:ATTR"`` strings, in order; each at most
            once. An arm is labelled with its method's name.
        settings: :func:`debategraph.arun` settings shared by every arm (``None`` values are
            left out, so methods keep their defaults).
        match_budget: Add, after each method ``M`` other than ``sc``, an arm ``sc@M``: self-
            consistency with as many samples as ``M`` made model calls on the same item.
        options: Method options as ``key -> value`` strings (``--option``), read with each
            method's option types; every method must know every key.

    Returns:
        The arms.

    Raises:
        ValueError: A repeated method, an option a method does not know, or
            ``match_budget`` with nothing to match.
    """
    from debategraph.methods.registry import get_method

    labels = [get_method(m).name if ":" in m else m for m in methods]
    repeated = sorted({m for m in labels if labels.count(m) > 1})
    if repeated:
        raise ValueError(f"method(s) given more than once: {', '.join(repeated)}")
    shared = {k: v for k, v in settings.items() if v is not None}
    arms = []
    for label, m in zip(labels, methods, strict=True):
        arm_settings = dict(shared)
        if options:
            arm_settings["options"] = _typed_options(m, options)
        arms.append(Arm(label, m, arm_settings))
    if match_budget:
        arms += budget_arms(arms)
    return arms


def budget_arms(arms: Sequence[Arm]) -> list[Arm]:
    """An ``sc@L`` arm for every arm ``L`` that is not self-consistency already.

    ``sc@L`` samples the same model as many times as ``L`` made model calls on each item, with
    ``L``'s model, seed and generation settings.

    Raises:
        ValueError: Every arm is self-consistency: nothing to match.
    """
    keep = {"models", "base_url", "seed", "tie_policy", "temperature", "top_p", "max_tokens"}
    keep |= {"stop", "timeout"}
    matched = [
        Arm(
            f"sc@{arm.label}",
            "sc",
            {k: v for k, v in arm.settings.items() if k in keep} | {"rounds": 0},
            budget_of=arm.label,
        )
        for arm in arms
        if (arm.method if isinstance(arm.method, str) else arm.method.name) != "sc"
    ]
    if not matched:
        raise ValueError("--match-budget needs a method other than sc to match")
    return matched


def _typed_options(method: str, options: Mapping[str, str]) -> dict[str, Any]:
    """``--option`` strings as the method's typed values (JSON-safe), or a ValueError."""
    from debategraph.methods.registry import get_method

    cls = get_method(method).options
    try:
        parsed = cls.from_pairs([f"{k}={v}" for k, v in options.items()]).to_dict()
    except ValueError as exc:
        raise ValueError(f"--option: {method} options: {exc}") from None
    return {k: parsed[k] for k in options}


def describe_error(exc: BaseException, redact: Redactor | None = None) -> str:
    """``Type: message — what to do (in node round > a1)``: one line, secrets redacted.

    Args:
        exc: The exception that ended a debate.
        redact: The run's redactor; key-shaped strings are redacted without one.

    Returns:
        The text of a failed row's ``error`` field.
    """
    return _describe_error(exc, redact or Redactor())


def row_source(dataset: str, arm: Arm, result: DebateResult) -> str:
    """``"real"`` when every answer is a real model's output, else ``"simulated"``.

    Answers of provider models are real. Answers of the simulated debater are real only
    where it replays real GPT-3 solutions: initial-round answers on the bundled GSM8K items,
    with the plain ``"simulated"`` spec (no overrides) and no adversary. So a zero-round
    ``mav`` on ``gsm8k`` is real, and a simulated debate's rows are simulated.

    Args:
        dataset: The dataset name.
        arm: The arm that produced the result.
        result: The debate's result.

    Returns:
        ``"real"`` or ``"simulated"``.
    """
    models = arm.settings.get("models")
    specs = list(models) if isinstance(models, list | tuple) else [models]
    replays = (
        dataset in REAL_DATASETS
        and not result.adversaries
        and all(_plain_or_provider(spec) for spec in specs)
    )

    def real(turn: Mapping[str, Any]) -> bool:
        label = str(turn["model"])
        if label.split(":")[0] not in SIMULATED:
            return True
        return (
            replays
            and turn["kind"] == "answer"
            and turn["round"] == 0
            and label.removeprefix("simulated:") in REPLAY_SOURCES
        )

    return "real" if all(real(t) for t in result.turns) else "simulated"


def _plain_or_provider(spec: Any) -> bool:
    """A spec that is not a customised simulated model."""
    if spec is None or isinstance(spec, BaseChatModel):
        return not isinstance(spec, SimulatedDebater)
    text = str(spec).strip()
    return text in SIMULATED or text.split(":")[0] not in SIMULATED


def result_row(
    arm: Arm,
    item: Item,
    result: DebateResult,
    *,
    wall_s: float,
    dataset: str,
    spend: SpendMeter | None = None,
) -> dict[str, Any]:
    """The JSONL row of one finished debate (schema in :mod:`debategraph.eval.metrics`).

    Args:
        arm: The arm (its label is the row's ``method``).
        item: The question.
        result: The debate's result.
        wall_s: Wall time of the debate, seconds.
        dataset: The dataset name.
        spend: What the debate's requests cost, failed and retried ones included.

    Returns:
        The row.
    """
    usage = result.usage
    row = {
        "method": arm.label,
        "id": item.id,
        "dataset": dataset,
        "source": row_source(dataset, arm, result),
        "answer": result.answer,
        "reference": item.reference,
        "correct": bool(result.correct),
        "abstained": result.answer is None,
        "input_tokens": usage["input_tokens"],
        "output_tokens": usage["output_tokens"],
        "calls": usage["calls"],
        "ncomm": result.ncomm,
        "rounds": result.rounds,
        "agents": len(result.agents),
        "parse_failures": result.parse_failures,
        "wall_s": round(wall_s, 4),
        "round_answers": result.round_answers(),
        "round_confidences": result.round_confidences(),
        "agent_models": [a["model"] for a in result.agents],
        "tokens_by_kind": {
            kind: {"input_tokens": u["input_tokens"], "output_tokens": u["output_tokens"]}
            for kind, u in usage_by_kind(result.turns).items()
        },
        "task": item.task,
        "answer_sources": result.answer_sources,
        "settings": result.settings,
    }
    if spend is not None:
        used = {"used_input": usage["input_tokens"], "used_output": usage["output_tokens"]}
        row.update(spend.record(**used))
    return row


def error_row(
    arm: Arm,
    item: Item,
    error: str,
    *,
    wall_s: float,
    dataset: str,
    spend: SpendMeter | None = None,
) -> dict[str, Any]:
    """The row of a failed debate: counted as failed, run again on the next run.

    With ``spend`` it records what the failed debate's requests cost (every token of every
    reply that arrived counts as wasted).
    """
    row = {
        "method": arm.label,
        "id": item.id,
        "dataset": dataset,
        "reference": item.reference,
        "error": error,
        "wall_s": round(wall_s, 4),
    }
    if spend is not None:
        row.update(spend.record())
    return row


class Progress(Protocol):
    """Receives the run's progress (e.g. :class:`debategraph.eval.progress.RichProgress`)."""

    def start(self, totals: Mapping[str, int], done: Sequence[Mapping[str, Any]]) -> None:
        """Called once: items per arm label, and the rows already finished (resumed)."""

    def advance(self, row: Mapping[str, Any]) -> None:
        """Called after every row written."""

    def stop(self) -> None:
        """Called once at the end, interrupted or not."""


@dataclass
class EvalOutcome:
    """What a call of :func:`run_eval` did.

    Attributes:
        path: The results file.
        rows: Every row of the file, in plan order when the run completed.
        resumed: Rows already finished before this call.
        written: Rows written by this call (failed ones included).
        failed: Failed rows in the file (run again next time).
        problems: Malformed lines found on resume, with their line numbers (run again).
        peak_in_flight: Most model calls in flight at once during this call.
        wall_s: Seconds this call spent running the pending debates (loading and
            rewriting the file excluded).
    """

    path: Path
    rows: list[dict[str, Any]]
    resumed: int
    written: int
    failed: int
    problems: list[str] = field(default_factory=list)
    peak_in_flight: int = 0
    wall_s: float = 0.0


def run_settings(
    items: Sequence[Item],
    arms: Sequence[Arm],
    *,
    dataset: str,
    selection: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The settings recorded in ``run.json``: what a resumed run must share.

    Args:
        items: The evaluated items (their whole content is hashed: ids, questions, choices,
            references, task kinds).
        arms: The arms.
        dataset: Dataset name.
        selection: How the items were picked (``limit``, ``seed``, ``ids``, ``path``).

    Returns:
        JSON-ready settings.
    """
    content = [item.to_json() for item in items]
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()
    return {
        "dataset": dataset,
        "selection": dict(selection or {}),
        "items": len(items),
        "items_sha256": digest[:16],
        "arms": [arm.to_json() for arm in arms],
    }


def _jsonable(value: Any, key: str = "") -> Any:
    if isinstance(value, BaseChatModel):
        return model_label(value)
    if key == "base_url" and isinstance(value, str):
        return redact_url(value)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v, str(k)) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


def check_arms(arms: Sequence[Arm]) -> None:
    """Validate every arm's method and settings before any model call.

    Raises:
        DebateConfigError: Unknown method, bad settings, repeated labels, or a
            ``budget_of`` that names no earlier arm.
    """
    labels: list[str] = []
    for arm in arms:
        if arm.label in labels:
            raise DebateConfigError(f"two arms are labelled {arm.label!r}")
        if arm.budget_of is not None and arm.budget_of not in labels:
            raise DebateConfigError(f"{arm.label}: budget_of {arm.budget_of!r} is no earlier arm")
        labels.append(arm.label)
        settings = dict(arm.settings)
        if arm.budget_of is not None:
            settings["agents"] = 1
        prepare(method=arm.method, **settings)


def with_rate_limiter(settings: Mapping[str, Any], limiter: InMemoryRateLimiter) -> dict[str, Any]:
    """``settings`` with ``limiter`` attached to every provider model (a shared limiter).

    Model strings other than the simulated model are resolved here, once, so that every
    debate shares the same rate-limited model objects; the offline simulated model is left
    as it is.

    Raises:
        DebateConfigError: A model spec that cannot be resolved.
    """
    spec = settings.get("models")
    if spec is None:
        return dict(settings)
    specs = list(spec) if isinstance(spec, list | tuple) else [spec]
    limited: list[Any] = []
    for s in specs:
        if isinstance(s, str) and s.split(":")[0] in SIMULATED:
            limited.append(s)
            continue
        try:
            model = (
                s
                if isinstance(s, BaseChatModel)
                else resolve_model(
                    s,
                    index=0,
                    agent="a1",
                    base_url=settings.get("base_url"),
                    timeout=settings.get("timeout"),
                )
            )
        except ModelConfigError as exc:
            raise DebateConfigError(str(exc)) from None
        limited.append(model.model_copy(update={"rate_limiter": limiter}))
    model_setting = limited if isinstance(spec, list | tuple) else limited[0]
    return {**settings, "models": model_setting}


class _Run:
    """One call of :func:`run_eval`: the shared limits, the file and the plan."""

    def __init__(
        self,
        arms: Sequence[Arm],
        results: ResultsFile,
        *,
        dataset: str,
        concurrency: int,
        rps: float | None,
        progress: Progress | None,
        redact: Redactor,
        cache: Any = None,
    ) -> None:
        self.cache = cache
        self.arms = arms
        self.redact = redact
        self.results = results
        self.dataset = dataset
        self.concurrency = concurrency
        self.progress = progress
        self.limiter = CallLimiter(concurrency)
        rate = InMemoryRateLimiter(requests_per_second=rps, max_bucket_size=1) if rps else None
        self.settings = {
            arm.label: with_rate_limiter(arm.settings, rate) if rate else dict(arm.settings)
            for arm in arms
        }
        self.done: dict[Key, dict[str, Any]] = {}
        self.written = 0

    async def debate(self, arm: Arm, item: Item) -> dict[str, Any]:
        settings = dict(self.settings[arm.label])
        start = time.perf_counter()
        if arm.budget_of is not None:
            base = self.done.get((arm.budget_of, item.id))
            if base is None or "error" in base:
                error = f"BudgetUnavailable: {arm.budget_of} has no result for this item"
                return error_row(arm, item, error, wall_s=0.0, dataset=self.dataset)
            settings["agents"] = max(1, int(base["calls"]))
        meter = SpendMeter()
        try:
            result = await arun(
                item.question,
                method=arm.method,
                task=item.task,
                choices=item.choices,
                reference=item.reference,
                item_id=item.id,
                config={"max_concurrency": self.concurrency, "callbacks": [meter]},
                call_limiter=self.limiter,
                cache=self.cache,
                **settings,
            )
        except DebateConfigError:
            raise
        except Exception as exc:
            wall = time.perf_counter() - start
            error = describe_error(exc, self.redact)
            return error_row(arm, item, error, wall_s=wall, dataset=self.dataset, spend=meter)
        wall = time.perf_counter() - start
        return result_row(arm, item, result, wall_s=wall, dataset=self.dataset, spend=meter)

    async def run_item(self, item: Item) -> None:
        for arm in self.arms:
            if (arm.label, item.id) in self.done:
                continue
            row = await self.debate(arm, item)
            self.done[row_key(row)] = row
            self.results.append(row)
            self.written += 1
            if self.progress is not None:
                self.progress.advance(row)

    async def run(self, pending: Sequence[Item]) -> None:
        queue = iter(pending)

        async def worker() -> None:
            for item in queue:
                await self.run_item(item)

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self.concurrency, len(pending))):
                    group.create_task(worker())
        except BaseExceptionGroup as failure:  # a bug, not a failed debate: show it as is
            raise failure.exceptions[0] from None


async def run_eval(
    items: Sequence[Item],
    arms: Sequence[Arm],
    out_dir: str | Path,
    *,
    dataset: str,
    selection: Mapping[str, Any] | None = None,
    concurrency: int = 16,
    rps: float | None = None,
    force: bool = False,
    fsync: bool = False,
    progress: Progress | None = None,
    cache: Any = None,
) -> EvalOutcome:
    """Run every arm on every item, appending rows to ``out_dir/results.jsonl``; resumable.

    Finished (method, item) rows already in the file are skipped; failed rows are run again.
    ``concurrency`` items run at once and at most ``concurrency`` model calls are in flight,
    across items and agents. When every row is in, the file is rewritten in plan order (arm
    order, then item order), so an interrupted and resumed run ends with the same file as an
    uninterrupted one (up to ``wall_s``).

    Args:
        items: The questions.
        arms: The configurations to evaluate (see :func:`arms_for`).
        out_dir: The results directory (``results.jsonl`` and ``run.json``).
        dataset: Dataset name, recorded in every row (``gsm8k`` enables ``source: "real"``).
        selection: How the items were picked, recorded in ``run.json``.
        concurrency: Bound on in-flight model calls (and on items run at once).
        rps: Requests per second allowed to provider models (a shared LangChain
            ``InMemoryRateLimiter``); ``None`` for no rate limit.
        force: Discard earlier results of other settings instead of refusing.
        fsync: ``fsync`` every appended line.
        progress: Progress display.
        cache: Cache model calls in this SQLite file (or LangGraph ``BaseCache``); rerunning
            into a fresh directory with the same settings then makes no model call.

    Returns:
        The outcome.

    Raises:
        DebateConfigError: Invalid arms, caught before any model call.
        SettingsMismatchError: ``out_dir`` holds results of other settings (and no ``force``).
        ValueError: ``concurrency`` below 1, ``rps`` not above 0, or repeated item ids.
        OutputBusyError: Another process is writing ``out_dir``.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if len({item.id for item in items}) != len(items):
        raise ValueError("item ids must be unique")
    if rps is not None and (not math.isfinite(rps) or rps <= 0):
        raise ValueError(f"rps must be a number above 0 (requests per second), got {rps}")
    check_arms(arms)
    out = Path(out_dir)
    redact = Redactor.from_environment(urls=[arm.settings.get("base_url") for arm in arms])
    settings = run_settings(items, arms, dataset=dataset, selection=selection)
    with OutputLock(out):
        check_manifest(out, settings, force=force, redact=redact)
        results = ResultsFile(out / RESULTS_FILE, fsync=fsync, redact=redact)
        kept, _ = results.load()
        state = _Run(
            arms,
            results,
            dataset=dataset,
            concurrency=concurrency,
            rps=rps,
            progress=progress,
            redact=redact,
            cache=cache,
        )
        state.done = {row_key(row): row for row in kept}
        pending = [i for i in items if any((a.label, i.id) not in state.done for a in arms)]
        if progress is not None:
            progress.start({arm.label: len(items) for arm in arms}, kept)
        start = time.perf_counter()
        try:
            await state.run(pending)
        finally:
            wall = time.perf_counter() - start
            results.close()
            if progress is not None:
                progress.stop()
        rows = results.finalize(_plan_order(items, arms))
    return EvalOutcome(
        path=results.path,
        rows=rows,
        resumed=len(kept),
        written=state.written,
        failed=sum("error" in row for row in rows),
        problems=list(results.problems),
        peak_in_flight=state.limiter.peak,
        wall_s=wall,
    )


def _plan_order(items: Sequence[Item], arms: Sequence[Arm]) -> Callable[[Key], tuple[int, int]]:
    arm_index = {arm.label: k for k, arm in enumerate(arms)}
    item_index = {item.id: k for k, item in enumerate(items)}

    def order(key: Key) -> tuple[int, int]:
        return (arm_index.get(key[0], len(arm_index)), item_index.get(key[1], len(item_index)))

    return order


def evaluate(
    items: Sequence[Item],
    arms: Sequence[Arm],
    out_dir: str | Path,
    *,
    progress: Progress | bool | None = None,
    **kwargs: Any,
) -> EvalOutcome:
    """Synchronous :func:`run_eval`; works inside a running event loop (Jupyter) too.

    ``progress=True`` shows progress bars in a terminal and plain lines in a notebook.
    """
    shown: Progress | None
    if progress is True:
        from debategraph.eval.progress import auto_progress

        shown = auto_progress()
    else:
        shown = progress or None
    return run_sync(run_eval(items, arms, out_dir, progress=shown, **kwargs))
