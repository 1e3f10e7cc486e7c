"""MMLU and MMLU-Pro from the hub (multiple choice)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from debategraph.eval.datasets.hub import hub_items, letter_of, require_fields
from debategraph.eval.datasets.items import LETTERS, Item
from debategraph.eval.datasets.source import DatasetInfo, pooled


def mmlu_row_to_item(row: Mapping[str, Any], index: int, *, split: str = "test") -> Item:
    """Convert a ``cais/mmlu`` row: ``question``, ``subject``, ``choices``, ``answer`` (0-3).

    Args:
        row: The hub row (``answer`` is the class index; a letter is accepted too).
        index: Position in the split, part of the id (``mmlu-test-00000``).
        split: The split name, part of the id.

    Returns:
        A ``choice`` item; metadata holds ``subject``.

    Raises:
        ValueError: The row lacks a field or its answer is out of range.
    """
    where = f"MMLU row {index}"
    require_fields(row, ("question", "choices", "answer"), where)
    choices = tuple(str(c) for c in row["choices"])
    answer = row["answer"]
    position = LETTERS.index(answer.upper()) if isinstance(answer, str) else int(answer)
    return Item(
        id=f"mmlu-{split}-{index:05d}",
        question=row["question"],
        reference=letter_of(position, len(choices), where),
        task="choice",
        choices=choices,
        metadata={"subject": row.get("subject", "")},
    )


def mmlu_pro_row_to_item(row: Mapping[str, Any], index: int) -> Item:
    """Convert a ``TIGER-Lab/MMLU-Pro`` row.

    Fields: ``question_id``, ``question``, ``options`` (up to 10), ``answer`` (a letter),
    ``answer_index``, ``cot_content``, ``category``, ``src``.

    Args:
        row: The hub row.
        index: Position in the split (used when ``question_id`` is missing).

    Returns:
        A ``choice`` item with id ``mmlu-pro-<question_id>``; metadata holds ``category``,
        ``src`` and ``question_id``.

    Raises:
        ValueError: The row lacks a field, or ``answer`` and ``answer_index`` disagree.
    """
    where = f"MMLU-Pro row {index}"
    require_fields(row, ("question", "options", "answer"), where)
    choices = tuple(str(c) for c in row["options"])
    reference = letter_of(LETTERS.index(str(row["answer"]).strip().upper()), len(choices), where)
    answer_index = row.get("answer_index")
    if answer_index is not None and LETTERS[int(answer_index)] != reference:
        raise ValueError(
            f"{where}: answer {reference!r} disagrees with answer_index {answer_index}"
        )
    question_id = row.get("question_id", index)
    return Item(
        id=f"mmlu-pro-{question_id}",
        question=row["question"],
        reference=reference,
        task="choice",
        choices=choices,
        metadata={
            "question_id": question_id,
            "category": row.get("category", ""),
            "src": row.get("src", ""),
        },
    )


MMLU_REVISION = "c30699e8356da336a370243923dbaf21066bb9fe"
"""The ``cais/mmlu`` commit read, as inspect-evals 0.28.0 pins it (inspect_evals/mmlu/mmlu.py)."""

MMLU_PRO_REVISION = "527feea0afed1de15a8c115abf7be4c912123315"
"""The ``TIGER-Lab/MMLU-Pro`` commit read, as inspect-evals 0.28.0 pins it
(inspect_evals/mmlu_pro/mmlu_pro.py)."""


def load_mmlu(
    split: str = "test", subject: str = "all", *, revision: str | None = MMLU_REVISION
) -> list[Item]:
    """MMLU, all 57 subjects (``cais/mmlu``, ``all``) or one (e.g. ``logical_fallacies``).

    Args:
        split: ``"test"``, ``"validation"`` or ``"dev"``.
        subject: ``"all"`` or one subject's configuration name; a subject's ids carry it
            (``mmlu-logical_fallacies-test-00000``).
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    id_split = split if subject == "all" else f"{subject}-{split}"
    to_item = partial(mmlu_row_to_item, split=id_split)
    return hub_items("cais/mmlu", subject, split, to_item, revision=revision)


def load_mmlu_pro(split: str = "test", *, revision: str | None = MMLU_PRO_REVISION) -> list[Item]:
    """MMLU-Pro (``TIGER-Lab/MMLU-Pro``), up to ten options per question.

    Args:
        split: ``"test"`` or ``"validation"``.
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    return hub_items("TIGER-Lab/MMLU-Pro", None, split, mmlu_pro_row_to_item, revision=revision)


MMLU = DatasetInfo(
    "MMLU test, all subjects (cais/mmlu, all)",
    "choice",
    offline=False,
    load=pooled(load_mmlu),
    source="hub cais/mmlu, all, test",
    license="MIT",
    size="14,042",
    grader="letter",
    revision=MMLU_REVISION,
)
MMLU_LOGICAL_FALLACIES = DatasetInfo(
    "MMLU test, the logical_fallacies subject (cais/mmlu, logical_fallacies)",
    "choice",
    offline=False,
    load=pooled(partial(load_mmlu, "test", "logical_fallacies")),
    source="hub cais/mmlu, logical_fallacies, test",
    license="MIT",
    size="163",
    grader="letter",
    revision=MMLU_REVISION,
)
MMLU_PRO = DatasetInfo(
    "MMLU-Pro test (TIGER-Lab/MMLU-Pro)",
    "choice",
    offline=False,
    load=pooled(load_mmlu_pro),
    source="hub TIGER-Lab/MMLU-Pro, test",
    license="MIT",
    size="12,032",
    grader="letter",
    revision=MMLU_PRO_REVISION,
)
