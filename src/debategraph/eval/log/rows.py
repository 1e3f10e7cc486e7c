"""The JSONL row of one evaluated debate: a finished debate's, or a failed one's.

:func:`result_row` and :func:`error_row` make the row through its declaration
(:func:`~debategraph.eval.log.row.new_row`) as the JSON object ``eval`` writes: the form it
travels in from an executor (a Ray worker's too) to the writer, with the runner's own notes
beside the declared fields (the spend notes a row covers, a connection failure's mark), which
are never written. Whatever reads a field of it checks it into a
:class:`~debategraph.eval.log.row.Row` first (:func:`~debategraph.eval.log.row.as_row`) and
reads attributes; rows read back from ``results.jsonl`` are decoded into one.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel

from debategraph.eval.datasets import Item
from debategraph.eval.log.row import new_row
from debategraph.eval.log.spend import SpendMeter
from debategraph.eval.log.stored_debate import SHOWN_FIELDS as SHOWN_FIELDS
from debategraph.eval.log.stored_debate import result_from_row as result_from_row
from debategraph.models.oracle import REPLAY_SOURCES
from debategraph.models.simulated import SimulatedDebater
from debategraph.policies.accounting import DETAIL_FIELDS, usage_by_kind, usage_by_source
from debategraph.policies.failures import describe_error as _describe_error
from debategraph.policies.model_names import SIMULATED
from debategraph.policies.secrets import Redactor
from debategraph.result import DebateResult

if TYPE_CHECKING:
    from debategraph.eval.run.arms import Arm

REAL_DATASETS = frozenset({"gsm8k"})
"""Datasets whose items the simulated model answers with replayed real model solutions."""


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
    with the plain ``"simulated"`` spec (no overrides) and no adversary, in an arm that never
    goes past round 0. So a zero-round ``mav`` on ``gsm8k`` is real, and every row of a
    simulated debate is simulated, including an item it ended at round 0 (a settled gate,
    a skipping ``sid-et``, ``s2mad`` or ``svr`` that found consensus): one arm's rows are one
    group in the report.

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
        and not _may_debate(arm)
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


def _may_debate(arm: Arm) -> bool:
    """Whether ``arm``'s agents may read each other past round 0 on some item."""
    from debategraph.methods.registry import get_method

    method = arm.method if not isinstance(arm.method, str) else get_method(arm.method)
    return method.debates and arm.settings.get("rounds") != 0


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
    texts: bool = True,
    seed: int | None = None,
    prompts: bool = False,
) -> dict[str, Any]:
    """The JSONL row of one finished debate (schema in :mod:`debategraph.eval.analysis.metrics`).

    Besides the figures, a row keeps the debate itself, so that ``debategraph show`` can
    print it again: the question, every turn (what it read, its answer and how that was
    found, tokens; its reply text unless ``texts`` is off; its prompt if ``prompts`` is on),
    the decision with its evidence and the method's state.

    Args:
        arm: The arm (its label is the row's ``method``).
        item: The question.
        result: The debate's result.
        wall_s: Wall time of the debate, seconds.
        dataset: The dataset name.
        spend: What the debate's requests cost, failed and retried ones included.
        texts: Keep every turn's reply text (off for very large runs).
        seed: The debate's seed, recorded as the row's ``seed`` (``--seeds``); ``None``
            records none.
        prompts: Keep every turn's prompt, the last user message its model was sent.

    Returns:
        The row, made through :mod:`debategraph.eval.log.row`.
    """
    usage = result.usage
    by_source = usage_by_source(result.turns)
    row = {
        "method": arm.label,
        "id": item.id,
        **_seed_field(seed),
        "dataset": dataset,
        "source": row_source(dataset, arm, result),
        "answer": result.answer,
        "reference": item.reference,
        **_graded(item, result),
        "abstained": result.answer is None,
        "input_tokens": usage["input_tokens"],
        "output_tokens": usage["output_tokens"],
        "calls": usage["calls"],
        "cached_calls": usage["cached_calls"],
        **{field: usage[field] for field in DETAIL_FIELDS if field in usage},
        "usage_by_source": by_source,
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
        **_debate_fields(item, result, texts=texts, prompts=prompts),
    }
    if arm.budget_of is not None:
        row.update(budget_of=arm.budget_of, budget=arm.budget)
    if "gate" in result.method_state:  # whether the gate let the debate go on
        row["gate"] = result.method_state["gate"]
    if spend is not None:  # replayed turns made no request: only paid ones are used spend
        paid = by_source["paid"]
        row.update(spend.record(used_input=paid["input_tokens"], used_output=paid["output_tokens"]))
    return new_row(row)


def _debate_fields(
    item: Item, result: DebateResult, *, texts: bool, prompts: bool
) -> dict[str, Any]:
    """What a row keeps of the debate itself, for ``show``, exports and re-deciding."""
    return {
        "settings": result.settings,
        "question": item.question,
        "choices": list(item.choices) if item.choices else None,
        "agent_names": [a["name"] for a in result.agents],
        "cut_off": result.cut_off,
        "adversaries": result.adversaries,
        "decision": result.decision,
        "turns": result.turn_records(include_text=texts, include_prompts=prompts),
        "method_state": result.method_state,
    }


def _graded(item: Item, result: DebateResult) -> dict[str, Any]:
    """``correct``, and for span answers (SQuAD, LongBench) ``span_scores`` and ``accepted``.

    An item whose metadata lists its accepted ``answers`` (a reading-comprehension set) is
    graded as its benchmark grades it: exact match and token F1 of the normalised answer,
    each the best over the accepted answers (:mod:`debategraph.policies.spans`); ``correct``
    is the exact match. Every other item is right when its answer matches the reference.
    """
    golds = item.metadata.get("answers") if item.task == "text" else None
    if not (isinstance(golds, list) and golds and all(isinstance(g, str) for g in golds)):
        return {"correct": bool(result.correct)}
    from debategraph.policies.spans import span_grade

    scores = span_grade(result.answer, golds)
    return {"correct": scores["exact_match"] == 1.0, "span_scores": scores, "accepted": golds}


def error_row(
    arm: Arm,
    item: Item,
    error: str,
    *,
    wall_s: float,
    dataset: str,
    spend: SpendMeter | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """The row of a failed debate: counted as failed, run again on the next run.

    With ``spend`` it records what the failed debate's requests cost (every token of every
    reply that arrived counts as wasted); with ``seed``, the seed it ran under. ``failed_at``
    (UTC, microseconds) makes each attempt's line its own: two failures of one item on two
    resumes are two lines with two fingerprints, so the ledger keeps both spends.
    """
    row = {
        "method": arm.label,
        "id": item.id,
        **_seed_field(seed),
        "dataset": dataset,
        "reference": item.reference,
        "error": error,
        "wall_s": round(wall_s, 4),
        "failed_at": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    if spend is not None:
        row.update(spend.record())
    return new_row(row)


def _seed_field(seed: int | None) -> dict[str, int]:
    """A row's ``seed`` field: present only in a run of several seeds (``--seeds``)."""
    return {} if seed is None else {"seed": seed}
