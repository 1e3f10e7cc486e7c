"""Stored runs as Inspect eval logs (``debategraph export DIR --to inspect``), no model call.

One log per arm, written with ``inspect_ai.log.write_eval_log``, so ``inspect view`` opens
it. A sample is one item (an epoch per seed in a ``--seeds`` run): the question, its choices
and reference, the final answer as the output, the ``correct`` score (``C``, ``I``, or ``N``
for an abstention, which counts as wrong), and every model call of the debate as a
``ModelEvent``, in the order the debate made them, inside a span per round. An event's model
and role are the call's model and speaker; its output is the reply with its tokens; its
metadata holds the call's id, kind, round, parsed answer, confidence and the ids it read.

Rows written with ``--prompts`` keep each call's prompt, and an event's input is that prompt, the
last user message the model was sent. Other rows keep each call's reply but not its prompt, so
an event's input is the question and the replies that call read (one message each, named by
turn id), not the prompt's wording; rows written with ``--no-texts`` keep no replies, and their
events carry the parsed answers only. A turn that kept the model's thinking (``reasoning``)
gives its event's output message a ``ContentReasoning`` part before the answer text, which
Inspect's viewer shows folded.

Logs are written one arm at a time, and an arm's samples one at a time: ``inspect_ai``'s public
API writes a log whole (``write_eval_log``; its recorders that append samples are not public),
so the log it is handed holds a list that builds each sample, from the row's place in
``results.jsonl``, as the writer iterates it, and keeps none (:class:`_ArmSamples`). The writer
keeps a condensed copy of each sample until the log ends, so memory grows with the largest arm
(built lean for that: shared strings and configs, only the fields a call states). The header's
status, accuracy and tokens are counted as the samples pass and written last
(``write_eval_log(..., header_only=True)``), both into a temporary file renamed onto the
log's name once whole.

A log claims no more than the run holds: an arm with rows missing (a run stopped early) has
status ``started`` and a sample per missing item with the error "not run"; failed debates are
samples with their error and make the status ``error``, as does a damaged ``run.json``; an arm
with no finished debate has no accuracy.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal, TypeVar

from msgspec import UNSET, UnsetType

from debategraph.eval.export.stored_run import StoredArm, StoredRun
from debategraph.eval.log.row import Row, Turn, opt
from debategraph.eval.log.row_index import RowPlace

try:
    from inspect_ai.event import ModelEvent, ScoreEvent, SpanBeginEvent, SpanEndEvent
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalPlanStep,
        EvalResults,
        EvalSample,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessage,
        ChatMessageAssistant,
        ChatMessageUser,
        Content,
        ContentReasoning,
        ContentText,
        GenerateConfig,
        ModelConfig,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "export --to inspect needs inspect_ai: pip install 'debategraph[inspect]'"
    ) from exc

__all__ = [
    "SCORER",
    "IncompleteLogError",
    "arm_log",
    "inspect_logs",
    "log_name",
    "sent_settings",
    "write_arm_log",
    "write_inspect_logs",
]

SCORER = "correct"
"""The name of the score every sample carries."""

V = TypeVar("V")
D = TypeVar("D")

_NAMESPACE = uuid.UUID("0b9a43f6-3f0e-4b55-9d8e-3b1f4e0f6a32")
_INSPECT_NAMES = {"stop": "stop_seqs"}
"""Our generation settings whose ``GenerateConfig`` field has another name."""


class IncompleteLogError(RuntimeError):
    """``inspect_ai``'s writer did not take every sample of an arm; the message says which."""


def write_inspect_logs(
    run: StoredRun, out_dir: Path, on_write: Callable[[Path], object] | None = None
) -> list[Path]:
    """Write one ``.eval`` log per arm of ``run`` into ``out_dir`` (created if missing).

    Arm by arm, and within an arm sample by sample (:func:`write_arm_log`).

    Args:
        run: The stored run.
        out_dir: The log directory.
        on_write: Called with each file as soon as it is written.

    Returns:
        The files written, in the run's arm order.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for arm in run.arms:
        path = out_dir / log_name(run, arm)
        write_arm_log(run, arm, path)
        written.append(path)
        if on_write is not None:
            on_write(path)
    return written


def write_arm_log(run: StoredRun, arm: StoredArm, path: Path) -> None:
    """Write one arm's log to ``path``, building each sample as the writer takes it.

    ``write_eval_log`` is handed a log whose samples are built one at a time as it iterates
    them, and kept by nobody but the writer (which keeps a condensed copy of each until the
    log ends). The log is first written as ``started``, without results; once every sample
    has passed, its header is written again (``header_only``) with the status, the accuracy
    and the tokens counted on the way.

    Both writes go to a temporary file beside ``path`` (the header rewrite edits the zip in
    place, which an interruption can leave inconsistent), renamed onto ``path`` once the
    log is whole: ``path`` is the finished log or is left as it was.
    """
    samples = _ArmSamples(run, arm)
    log = _started_log(run, arm, samples)
    log.samples = samples
    partial = path.with_name(f".{path.stem}.{secrets.token_hex(6)}.part{path.suffix}")
    try:
        write_eval_log(log, str(partial))
        if samples.tally.samples != len(samples):
            from importlib.metadata import version

            raise IncompleteLogError(
                f"inspect_ai {version('inspect_ai')}'s write_eval_log took "
                f"{samples.tally.samples} of the {len(samples)} samples of {arm.label}: "
                f"{path} was not written (this export hands it samples as it iterates them; "
                "an inspect_ai that reads them otherwise needs this exporter changed)"
            )
        write_eval_log(_finished_log(log, arm, samples.tally), str(partial), header_only=True)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def inspect_logs(run: StoredRun) -> Iterator[tuple[str, EvalLog]]:
    """Every arm of ``run`` as an Inspect ``EvalLog``, with its file name, one at a time."""
    for arm in run.arms:
        yield log_name(run, arm), arm_log(run, arm)


def log_name(run: StoredRun, arm: StoredArm) -> str:
    """An arm's log file name: the run's start, its dataset and the arm's label."""
    stamp = run.started.strftime("%Y-%m-%dT%H-%M-%S+00-00")
    return f"{stamp}_{_safe(run.dataset)}_{_safe(arm.label)}.eval"


def arm_log(run: StoredRun, arm: StoredArm) -> EvalLog:
    """One arm's rows as an Inspect ``EvalLog`` held whole, with a status that says what it lacks.

    The same log :func:`write_arm_log` writes, every sample in memory at once.
    """
    samples = _ArmSamples(run, arm)
    log = _started_log(run, arm, samples)
    held = list(samples)
    finished = _finished_log(log, arm, samples.tally)
    finished.samples = held
    return finished


def _started_log(run: StoredRun, arm: StoredArm, samples: _ArmSamples) -> EvalLog:
    """An arm's log before its samples are counted: its spec and plan, status ``started``.

    The spec records the debate settings and agents of the arm's first finished row.
    """
    from debategraph import __version__

    seeds, first = arm.seeds, samples.first
    settings = (first.settings if first is not None else None) or {}
    key = f"{run.path.resolve()}|{arm.label}|{run.items_sha256}"
    planned = [place.item for _, place in arm.places] + [item for item, _ in samples.missing]
    item_ids = list(dict.fromkeys(planned))
    spec = EvalSpec(
        eval_id=uuid.uuid5(_NAMESPACE, key).hex,
        run_id=uuid.uuid5(_NAMESPACE, str(run.path.resolve())).hex,
        created=run.started.isoformat(),
        task=run.dataset,
        task_display_name=f"{run.dataset} · {arm.label}",
        task_args={"results": str(run.path)},
        solver=f"debategraph/{arm.method}",
        solver_args=arm.settings,
        dataset=EvalDataset(name=run.dataset, samples=len(item_ids), sample_ids=item_ids),
        model=f"debategraph/{arm.label}",
        model_generate_config=GenerateConfig(**_generate_config(settings)),
        model_roles=_roles(first),
        config=EvalConfig(epochs=len(seeds)),
        packages={"debategraph": __version__},
        metadata={
            "arm": arm.label,
            "method": arm.method,
            "settings": arm.settings,
            "debate_settings": _given(first.settings, {}) if first is not None else {},
            "agents": _given(first.agent_names, []) if first is not None else [],
            "models": _given(first.agent_models, []) if first is not None else [],
            "seeds": seeds,
            "dataset": run.dataset,
            "results": str(run.path),
        },
    )
    return EvalLog(
        status="started",
        eval=spec,
        plan=EvalPlan(
            steps=[EvalPlanStep(solver=f"debategraph/{arm.method}", params=arm.settings)]
        ),
        stats=EvalStats(started_at=run.started.isoformat(), completed_at=""),
    )


def _finished_log(log: EvalLog, arm: StoredArm, tally: _Tally) -> EvalLog:
    """``log``'s header once every sample is counted: status, error, results and tokens."""
    run = arm.run
    status, error = _status(run, tally.samples, tally.failed, tally.missing)
    return log.model_copy(
        update={
            "status": status,
            "error": error,
            "results": _results(arm, tally),
            "stats": EvalStats(
                started_at=run.started.isoformat(),
                completed_at=run.finished.isoformat() if status != "started" else "",
                model_usage=dict(tally.usage),
            ),
            "samples": None,
        }
    )


@dataclass
class _Tally:
    """What an arm's log header says of its samples, counted as they are built.

    Attributes:
        samples: Samples built, the items not run included.
        failed: Samples of rows that failed, or that could not be read or exported.
        missing: Samples of planned items the run never reached.
        scored: Per item, 1.0 or 0.0 for each scored sample (one per epoch).
        usage: Tokens per model, over every sample.
    """

    samples: int = 0
    failed: int = 0
    missing: int = 0
    scored: dict[str, list[float]] = field(default_factory=dict)
    usage: defaultdict[str, ModelUsage] = field(default_factory=lambda: defaultdict(ModelUsage))

    def add(self, sample: EvalSample) -> None:
        """Count one sample built from a row (or from a row that could not be read)."""
        self.samples += 1
        if sample.error is not None:
            self.failed += 1
        if sample.scores:
            value = 1.0 if sample.scores[SCORER].value == CORRECT else 0.0
            self.scored.setdefault(str(sample.id), []).append(value)
        for model, used in sample.model_usage.items():
            self.usage[model] += used


class _ArmSamples(list[EvalSample]):
    """An arm's samples, built one at a time as they are iterated, none kept.

    ``inspect_ai``'s public writer takes a whole ``EvalLog`` and iterates its samples once
    (its recorders that take samples one by one are not public); this list gives it each
    sample as it is built, and counts each in :attr:`tally` as it passes. It answers
    ``len`` and truth; indexing raises, as its storage is empty by design.
    """

    def __init__(self, run: StoredRun, arm: StoredArm) -> None:
        super().__init__()
        self.run, self.arm, self.seeds = run, arm, arm.seeds
        self.missing = arm.missing()
        self.tally = _Tally()
        self.shared = _Shared()
        self._built: tuple[int, EvalSample] | None = None

    @cached_property
    def first(self) -> Row[Turn] | None:
        """The arm's first finished row that exports (``None`` where it has none).

        Its sample, built to see that it exports, is the one the next iteration yields.
        """
        for position, (index, place) in enumerate(self.arm.places):
            row = self.run.row(index, place)
            if row is None or row.error is not UNSET:
                continue
            try:
                sample = _sample(self.run, self.arm, row, _epoch(self.seeds, place), self.shared)
            except _UNEXPORTABLE:
                continue
            self._built = (position, sample)
            return row
        return None

    def __len__(self) -> int:
        return len(self.arm.places) + len(self.missing)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __getitem__(self, index: Any) -> Any:
        raise TypeError("an arm's samples are built as they are iterated, not indexed")

    def __iter__(self) -> Iterator[EvalSample]:
        self.tally = tally = _Tally()
        built, self._built = self._built, None
        for sample in _samples(self.run, self.arm, self.seeds, self.shared, built):
            tally.add(sample)
            yield sample
        for item, seed in self.missing:
            tally.samples += 1
            tally.missing += 1
            yield _not_run(self.run, self.arm, item, seed, self.seeds.index(seed) + 1)


class _Shared:
    """One object per value an arm's samples repeat: short strings and generation configs.

    The writer holds every sample of an arm until its log ends; the models, agents, turn ids,
    kinds and answers its events repeat, and the ``GenerateConfig`` of each settings, are then
    held once for the arm rather than once per event or per sample.
    """

    def __init__(self) -> None:
        self.strings: dict[str, str] = {}
        self.configs: dict[str, GenerateConfig] = {}

    def text(self, text: str) -> str:
        """``text``, as the one object that holds it where it is short."""
        return self.strings.setdefault(text, text) if len(text) <= 64 else text

    def value(self, value: object) -> object:
        """A turn's metadata value, its short strings (alone or in a list) shared."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.text(v) if isinstance(v, str) else v for v in value]
        return value

    def config(self, settings: dict[str, Any]) -> GenerateConfig:
        """The events' ``GenerateConfig`` of a row's settings, one object per distinct one."""
        config = _generate_config(settings)
        key = json.dumps(config, sort_keys=True, default=str)
        if key not in self.configs:
            self.configs[key] = GenerateConfig(**config)
        return self.configs[key]


_UNEXPORTABLE = (AttributeError, TypeError, ValueError, KeyError, IndexError)
"""What building a sample from a row of the wrong shape raises."""


def _epoch(seeds: list[int | None], place: RowPlace) -> int:
    """The epoch of a row's sample: its seed's place among the arm's seeds, from 1."""
    return seeds.index(place.seed) + 1 if place.seed in seeds else 1


def _samples(
    run: StoredRun,
    arm: StoredArm,
    seeds: list[int | None],
    shared: _Shared,
    built: tuple[int, EvalSample] | None = None,
) -> Iterator[EvalSample]:
    """The arm's rows as samples, read and built one at a time, in file order.

    A line that holds no row, or a row that cannot be exported (a field of the wrong shape),
    is a sample with an error that names its file and line. ``built`` is a sample built
    already, with its place in the arm's rows: it is yielded there, not built again.
    """
    for position, (index, place) in enumerate(arm.places):
        epoch = _epoch(seeds, place)
        if built is not None and position == built[0]:
            sample, built = built[1], None
            yield sample
            continue
        row = run.row(index, place)
        if row is not None:
            try:
                sample = _sample(run, arm, row, epoch, shared)
            except _UNEXPORTABLE as exc:
                reason = f"cannot be exported ({type(exc).__name__}: {str(exc)[:200]})"
                run.leave_out(index.path, place.line, reason)
            else:
                yield sample
                continue
        where = f"{index.path.name}, line {place.line}"
        problem = next((p for p in run.problems if p.startswith(where + ":")), where)
        yield _error_sample(run, place.item, epoch, arm.seed_at(place.seed), problem)


def _not_run(run: StoredRun, arm: StoredArm, item: str, seed: int | None, epoch: int) -> EvalSample:
    """A planned item the run never reached (it stopped early)."""
    return _error_sample(
        run, item, epoch, arm.seed_at(seed), "not run: the run stopped before this item"
    )


def _error_sample(
    run: StoredRun, item: str, epoch: int, seed: int | None, message: str
) -> EvalSample:
    inputs = run.inputs_of(item)
    return EvalSample(
        id=item,
        epoch=epoch,
        input=str(inputs.get("question") or item),
        choices=inputs.get("choices"),
        target="",
        metadata={"seed": seed, "dataset": run.dataset},
        error=EvalError(message=message, traceback="", traceback_ansi=""),
    )


def _status(
    run: StoredRun, total: int, failed: int, missing: int
) -> tuple[Literal["started", "success", "error"], EvalError | None]:
    """``error`` for failed items or a damaged ``run.json``, ``started`` for missing ones."""
    said = []
    if run.planned.damaged:
        said.append(run.planned.damaged)
    if failed:
        said.append(f"{failed} of {total} samples failed")
    if missing:
        said.append(f"{missing} planned item(s) not run (the run stopped early)")
    if run.planned.damaged or failed:
        message = "; ".join(said)
        return "error", EvalError(message=message, traceback="", traceback_ansi="")
    return ("started" if missing else "success"), None


def _sample(
    run: StoredRun, arm: StoredArm, row: Row[Turn], epoch: int, shared: _Shared
) -> EvalSample:
    item = str(row.id)
    question = str(row.question or (run.inputs_of(item) or {}).get("question") or "")
    reference = opt(row.reference)
    base: dict[str, Any] = dict(
        id=item,
        epoch=epoch,
        input=question or item,
        choices=list(row.choices) if row.choices else None,
        target="" if reference is None else str(reference),
        total_time=opt(row.wall_s),
        working_time=opt(row.wall_s),
    )
    seed = arm.seed_of(row)
    dataset = _given(row.dataset, run.dataset)
    if row.error is not UNSET:
        return EvalSample(
            **base,
            metadata={"seed": seed, "dataset": dataset},
            error=EvalError(message=str(row.error), traceback="", traceback_ansi=""),
        )
    answer = opt(row.answer)
    label = f"debategraph/{arm.label}"
    score = Score(
        value=NOANSWER if answer is None else CORRECT if row.correct else INCORRECT,
        answer=answer,
        explanation="no answer (abstention): counted as wrong"
        if answer is None
        else f"{answer} vs {reference}",
    )
    turns = list(row.turns or [])
    events = _events(row, turns, run.started, shared)
    last = events[-1] if events else None
    events.append(
        ScoreEvent(
            score=score,
            target=base["target"],
            scorer=SCORER,
            timestamp=last.timestamp if last else run.started,
            working_start=last.working_start if last else 0.0,
        )
    )
    by_model: dict[str, list[int | None]] = {}
    by_role: dict[str, list[int | None]] = {}
    for turn in turns:
        counts = _usage_counts(turn)
        _add_counts(by_model, str(turn.model or "?"), counts)
        _add_counts(by_role, str(turn.agent or "?"), counts)
    return EvalSample(
        **base,
        messages=[
            ChatMessageUser(content=question),
            ChatMessageAssistant(content=answer or "(no answer)", model=label),
        ],
        output=ModelOutput.from_content(model=label, content=answer or ""),
        scores={SCORER: score},
        metadata={
            "seed": seed,
            "dataset": dataset,
            "source": opt(row.source),
            "task": opt(row.task),
            "abstained": answer is None,
            "rounds": opt(row.rounds),
            "calls": opt(row.calls),
            "ncomm": opt(row.ncomm),
            "input_tokens": opt(row.input_tokens),
            "output_tokens": opt(row.output_tokens),
            "decision": opt(row.decision),
            "round_answers": opt(row.round_answers),
            "agents": opt(row.agent_names),
            "models": opt(row.agent_models),
        },
        events=events,
        model_usage={model: _model_usage(*c) for model, c in by_model.items()},
        role_usage={role: _model_usage(*c) for role, c in by_role.items()},
    )


def _given(value: V | UnsetType, default: D) -> V | D:
    """A field's value, ``default`` where the row lacks it (a field set to ``None`` stays so)."""
    return default if isinstance(value, UnsetType) else value


def _events(row: Row[Turn], turns: list[Turn], start: datetime, shared: _Shared) -> list[Any]:
    """A span per round holding that round's model calls, in the order they were made."""
    question = str(row.question or "")
    config = shared.config(row.settings or {})
    by_id = {str(opt(t.id)): t for t in turns}
    said: dict[str, ChatMessage] = {}
    events: list[Any] = []
    open_round: int | None = None
    clock = start
    for turn in turns:
        round_ = int(turn.round or 0)
        if round_ != open_round:
            if open_round is not None:
                events.append(_span_end(open_round, clock, start))
            events.append(
                SpanBeginEvent(
                    id=f"round-{round_}",
                    name=f"round {round_}",
                    timestamp=clock,
                    working_start=(clock - start).total_seconds(),
                )
            )
            open_round = round_
        latency = float(turn.latency_s or 0.0)
        done = clock + timedelta(seconds=latency)
        model = shared.text(str(turn.model or "?"))
        text = turn.text
        reply = text if isinstance(text, str) else _answer_line(turn)
        output = _output(model, reply, turn.reasoning, _model_usage(*_usage_counts(turn)))
        attempts = turn.attempts
        event = ModelEvent(
            model=model,
            role=shared.text(str(opt(turn.agent))),
            input=_input(question, turn, by_id, said),
            tools=[],
            tool_choice="none",
            config=config,
            output=output,
            timestamp=clock,
            working_start=(clock - start).total_seconds(),
            completed=done,
            working_time=latency,
            span_id=shared.text(f"round-{round_}"),
            metadata=_turn_metadata(turn, shared),
        )
        if isinstance(attempts, int) and attempts > 1:
            event.retries = attempts - 1  # only here: each field set costs every event memory
        events.append(event)
        clock = done
    if open_round is not None:
        events.append(_span_end(open_round, clock, start))
    return events


def _turn_metadata(turn: Turn, shared: _Shared) -> dict[str, Any]:
    """What a model event's metadata keeps of its turn: the fields it has of these."""
    kept = {
        "id": turn.id,
        "agent": turn.agent,
        "round": turn.round,
        "kind": turn.kind,
        "answer": turn.answer,
        "answer_source": turn.answer_source,
        "confidence": turn.confidence,
        "reads": turn.reads,
        "label": turn.label,
        "usage_estimated": turn.usage_estimated,
        "logprobs": turn.logprobs,
        "attempts": turn.attempts,
    }
    return {name: shared.value(value) for name, value in kept.items() if value is not UNSET}


def _output(model: str, reply: str, reasoning: object, usage: ModelUsage) -> ModelOutput:
    """A call's reply; where the turn kept the model's thinking, it comes first, as reasoning."""
    content: str | list[Content] = reply
    if isinstance(reasoning, str) and reasoning:
        content = [ContentReasoning(reasoning=reasoning), ContentText(text=reply)]
    message = ChatMessageAssistant(content=content, model=model, source="generate")
    return ModelOutput(
        model=model,
        choices=[ChatCompletionChoice(message=message, stop_reason="stop")],
        usage=usage,
    )


def _generate_config(settings: dict[str, Any]) -> dict[str, Any]:
    """The generation settings a row's debate ran with, as ``GenerateConfig`` keywords.

    Rows nest them under ``settings["generation"]``; rows written before that kept them at the
    top of ``settings``, where the declared generation settings (those sent with every call)
    are picked. A setting ``GenerateConfig`` has no field for goes in its ``extra_body``, as
    an OpenAI-wire server is sent it.
    """
    nested = settings.get("generation")
    if isinstance(nested, dict):
        given = {k: v for k, v in nested.items() if v is not None}
    else:
        given = {k: settings[k] for k in sent_settings() if settings.get(k) is not None}
    fields = GenerateConfig.model_fields
    config: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for name, value in given.items():
        ours = _INSPECT_NAMES.get(name, name)
        if ours in fields and ours != "extra_body":
            config[ours] = value
        else:
            extra[name] = value
    if extra:
        config["extra_body"] = extra
    return config


@cache
def sent_settings() -> tuple[str, ...]:
    """The declared settings sent with every model call (:mod:`debategraph.state.setting`)."""
    from debategraph.state.settings_table import declared

    return tuple(s.name for s in declared() if s.sent and s.name)


def _span_end(round_: int, clock: datetime, start: datetime) -> SpanEndEvent:
    return SpanEndEvent(
        id=f"round-{round_}", timestamp=clock, working_start=(clock - start).total_seconds()
    )


def _input(
    question: str,
    turn: Turn,
    by_id: dict[str, Turn],
    said: dict[str, ChatMessage],
) -> list[ChatMessage]:
    """The call's prompt where the row kept it; else the question, then each reply it read.

    ``said`` keeps each message made for this debate, so that the calls that read the same
    reply share one message (as the calls of one conversation share its history).
    """
    prompt = turn.prompt
    if isinstance(prompt, str):
        return [ChatMessageUser(content=prompt)]
    if "" not in said:
        said[""] = ChatMessageUser(content=question)
    messages: list[ChatMessage] = [said[""]]
    for read in turn.reads or ():
        key = f"read:{read}"
        if key not in said:
            said[key] = _read_message(str(read), by_id.get(str(read)))
        messages.append(said[key])
    return messages


def _read_message(read: str, peer: Turn | None) -> ChatMessage:
    if peer is None:
        return ChatMessageUser(content=f"[{read}] (not in this row)")
    text = peer.text
    body = text if isinstance(text, str) else _answer_line(peer)
    heading = f"[{read}] {opt(peer.agent)}, round {opt(peer.round)}"
    return ChatMessageUser(content=f"{heading}:\n{body}")


def _answer_line(turn: Turn) -> str:
    """What a turn without its reply text still says: its parsed answer."""
    return f"(reply not stored; parsed answer: {opt(turn.answer)})"


def _usage_counts(turn: Turn) -> list[int | None]:
    """A call's input, output and total tokens, then its cached input and reasoning tokens.

    Inspect counts cache reads apart from ``input_tokens``; our turns count them inside it (as
    OpenAI's ``prompt_tokens`` does), so they move from one to the other. The last two are
    ``None`` where the provider did not state them.
    """
    read, wrote = int(turn.input_tokens or 0), int(turn.output_tokens or 0)
    cached, reasoning = opt(turn.cached_input_tokens), opt(turn.reasoning_tokens)
    return [
        read - int(cached or 0),
        wrote,
        read + wrote,
        int(cached) if cached is not None else None,
        int(reasoning) if reasoning is not None else None,
    ]


def _add_counts(totals: dict[str, list[int | None]], key: str, counts: list[int | None]) -> None:
    """Add ``counts`` to ``totals[key]``; a count no call stated stays ``None``."""
    held = totals.setdefault(key, [0, 0, 0, None, None])
    for k, n in enumerate(counts):
        if n is not None:
            held[k] = (held[k] or 0) + n


def _model_usage(
    input_tokens: int | None,
    output_tokens: int | None,
    total_tokens: int | None,
    cache_read: int | None,
    reasoning: int | None,
) -> ModelUsage:
    """A ``ModelUsage`` given only the counts that were stated (it is held per call, per sample)."""
    stated: dict[str, int] = {}
    if cache_read is not None:
        stated["input_tokens_cache_read"] = cache_read
    if reasoning is not None:
        stated["reasoning_tokens"] = reasoning
    return ModelUsage(
        input_tokens=input_tokens or 0,
        output_tokens=output_tokens or 0,
        total_tokens=total_tokens or 0,
        **stated,
    )


def _roles(row: Row[Turn] | None) -> dict[str, ModelConfig | list[ModelConfig]] | None:
    if row is None:
        return None
    names, models = row.agent_names, row.agent_models
    if not isinstance(names, list) or not isinstance(models, list) or not names:
        return None
    return {str(n): ModelConfig(model=str(m)) for n, m in zip(names, models, strict=False)}


def _results(arm: StoredArm, tally: _Tally) -> EvalResults:
    """Accuracy and its standard error as Inspect computes them: epochs averaged per item.

    An arm with no finished debate has no score at all (not an accuracy of 0).
    """
    values = [sum(v) / len(v) for v in tally.scored.values()]
    n = len(values)
    scored = sum(len(v) for v in tally.scored.values())
    if not n:
        return EvalResults(total_samples=tally.samples, completed_samples=0, scores=[])
    accuracy = sum(values) / n
    variance = sum((v - accuracy) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return EvalResults(
        total_samples=tally.samples,
        completed_samples=scored,
        scores=[
            EvalScore(
                name=SCORER,
                scorer=SCORER,
                reducer="mean" if len(arm.seeds) > 1 else None,
                scored_samples=scored,
                unscored_samples=tally.samples - scored,
                metrics={
                    "accuracy": EvalMetric(name="accuracy", value=accuracy),
                    "stderr": EvalMetric(name="stderr", value=(variance / n) ** 0.5),
                },
            )
        ],
    )


def _safe(text: str) -> str:
    """A file-name part: letters, digits, dots and dashes only."""
    return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-") or "run"
