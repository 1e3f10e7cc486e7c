"""Any method as a LangSmith experiment: a debate target, a correctness evaluator, examples.

::

    from langsmith import aevaluate
    from debategraph.integrations.langsmith import correct, debate_target

    target = debate_target("du", agents=3, rounds=2, models="openai:gpt-4o-mini", seed=0)
    await aevaluate(target, data="gsm8k-100", evaluators=[correct],
                    experiment_prefix="du", metadata=target.metadata)

An example's inputs are ``question`` and optionally ``task``, ``choices`` and ``item_id``
(what :func:`examples` writes); its reference outputs hold ``reference``. The reference is
read with the question-set rules (:mod:`debategraph.eval.datasets.items`), and an answer is
graded as ``debategraph eval`` grades it: an abstention is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, cast

from debategraph.api import arun
from debategraph.eval.datasets.items import Item, record_to_item
from debategraph.integrations._common import checked, describe, outcome
from debategraph.policies.canonical import answers_match
from debategraph.policies.types import TaskKind

__all__ = ["DebateTarget", "correct", "debate_target", "examples"]


class DebateTarget(Protocol):
    """An async LangSmith target that runs one debate per example.

    Attributes:
        metadata: The experiment's metadata: method, agents, models, seed and every setting
            (pass it as ``aevaluate(..., metadata=target.metadata)``).
    """

    metadata: dict[str, Any]

    async def __call__(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Run the debate on one example's inputs and return its outcome."""
        ...


def debate_target(
    method: str | Any = "du", *, task: TaskKind = "number", **settings: Any
) -> DebateTarget:
    """A LangSmith target that debates each example's question with ``method``.

    Args:
        method: A registered method name or a ``Method``.
        task: The answer kind of examples whose inputs name none.
        **settings: What :func:`debategraph.arun` takes besides the question: ``agents``,
            ``models``, ``rounds``, ``seed``, ``options``, generation settings, ``cache``...

    Returns:
        An async function of an example's inputs; its outputs are the debate's ``answer``,
        ``abstained``, ``task``, ``decision``, ``rounds``, ``usage`` and ``ncomm``. Its
        ``metadata`` records the experiment's settings.

    Raises:
        DebateConfigError: Bad settings, found here, before any example runs.
    """
    prepared = checked(method, settings)

    async def target(inputs: dict[str, Any]) -> dict[str, Any]:
        item = _item(inputs, task)
        result = await arun(
            item.question,
            method=prepared.method,
            task=item.task,
            choices=item.choices,
            item_id=inputs.get("item_id"),
            **settings,
        )
        return outcome(result)

    target.__dict__["metadata"] = describe(prepared)
    return cast(DebateTarget, target)


def correct(
    inputs: dict[str, Any], outputs: dict[str, Any], reference_outputs: dict[str, Any]
) -> dict[str, Any]:
    """LangSmith evaluator: 1 when the debate's answer is the reference, else 0.

    An abstention (no answer) scores 0. ``math`` answers are graded by symbolic equivalence
    (the ``math`` extra).

    Raises:
        ValueError: The example has no ``reference`` (or ``answer``) output, or it cannot be
            read for the example's task.
    """
    reference = reference_outputs.get("reference", reference_outputs.get("answer"))
    if reference is None:
        raise ValueError(
            "the example's reference outputs hold no 'reference' (or 'answer'): got "
            f"{sorted(reference_outputs)}"
        )
    item = _item({**inputs, "reference": reference}, outputs.get("task", "number"))
    answer = outputs.get("answer")
    score = answers_match(answer, item.reference, item.task)
    comment = "no answer (abstention)" if answer is None else f"{answer} vs {item.reference}"
    return {"key": "correct", "score": int(score), "comment": comment}


def examples(items: Iterable[Item]) -> list[dict[str, Any]]:
    """Question-set items as LangSmith examples (``client.create_examples(examples=...)``).

    Inputs hold the question, task, choices and item id; outputs hold the reference.
    """
    rows = []
    for item in items:
        inputs: dict[str, Any] = {"question": item.question, "task": item.task, "item_id": item.id}
        if item.choices:
            inputs["choices"] = list(item.choices)
        rows.append({"inputs": inputs, "outputs": {"reference": item.reference}})
    return rows


def _item(inputs: Mapping[str, Any], task: str) -> Item:
    """An example's inputs read as a question-set record (its reference, if any, canonical)."""
    if "question" not in inputs:
        raise ValueError(f"an example's inputs need a 'question'; got {sorted(inputs)}")
    record = {
        "id": str(inputs.get("item_id") or "example"),
        "task": task,
        **{k: v for k, v in inputs.items() if k in ("question", "task", "choices", "reference")},
    }
    return record_to_item(record, require_reference=False)
