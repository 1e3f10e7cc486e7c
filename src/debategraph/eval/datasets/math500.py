"""MATH-500 from the hub, graded by symbolic equivalence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debategraph.eval.datasets.hub import hub_items, require_fields
from debategraph.eval.datasets.items import Item, strip_boxed
from debategraph.eval.datasets.source import DatasetInfo, pooled
from debategraph.policies.answers import canonicalize


def math_row_to_item(row: Mapping[str, Any], index: int, *, prefix: str = "math500") -> Item:
    r"""Convert a MATH row (``HuggingFaceH4/MATH-500`` or the original MATH layout).

    MATH-500 rows have ``problem``, ``solution``, ``answer``, ``subject``, ``level`` and
    ``unique_id``; original MATH rows have no ``answer``, so the last ``\boxed{}`` of the
    solution is used. The reference is the ``math`` canonical key of the answer (signs,
    operators and structure kept), and answers are graded against it by symbolic
    equivalence (:func:`debategraph.policies.answers.answers_match`).

    Args:
        row: The hub row.
        index: Position in the split, part of the id (``math500-000``).
        prefix: Id prefix.

    Returns:
        A ``math`` item; metadata holds ``answer_raw``, ``solution``, ``subject``, ``level``
        and ``unique_id`` when present.

    Raises:
        ValueError: The row lacks a problem or an answer.
    """
    where = f"MATH row {index}"
    require_fields(row, ("problem",), where)
    raw = row.get("answer") or strip_boxed(str(row.get("solution", "")))
    reference = canonicalize(strip_boxed(str(raw)), "math")
    if reference is None:
        raise ValueError(f"{where}: no answer (neither 'answer' nor a boxed solution)")
    keep = ("solution", "subject", "level", "type", "unique_id")
    return Item(
        id=f"{prefix}-{index:03d}",
        question=row["problem"],
        reference=reference,
        task="math",
        metadata={"answer_raw": raw, **{k: row[k] for k in keep if k in row}},
    )


MATH500_REVISION = "6e4ed1a2a79af7d8630a6b768ec859cb5af4d3be"
"""The ``HuggingFaceH4/MATH-500`` commit read, as eval-framework 0.15.4 pins it
(eval_framework/tasks/hf-dataset-revisions.json)."""


def load_math500(split: str = "test", *, revision: str | None = MATH500_REVISION) -> list[Item]:
    """MATH-500 (``HuggingFaceH4/MATH-500``), graded by symbolic equivalence (``math`` task).

    Args:
        split: ``"test"`` (the only split).
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    return hub_items("HuggingFaceH4/MATH-500", None, split, math_row_to_item, revision=revision)


MATH500 = DatasetInfo(
    "MATH-500 (HuggingFaceH4/MATH-500)",
    "math",
    offline=False,
    load=pooled(load_math500),
    source="hub HuggingFaceH4/MATH-500, test",
    license="MIT",
    size="500",
    grader="math equivalence",
    revision=MATH500_REVISION,
)
