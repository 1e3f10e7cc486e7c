"""ARC-Challenge from the hub (multiple choice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debategraph.eval.datasets.hub import hub_items, letter_of, require_fields
from debategraph.eval.datasets.items import Item
from debategraph.eval.datasets.source import DatasetInfo, pooled


def arc_row_to_item(row: Mapping[str, Any], index: int) -> Item:
    """Convert an ``allenai/ai2_arc`` row: ``id``, ``question``, ``choices``, ``answerKey``.

    ``choices`` is ``{"text": [...], "label": [...]}``. Labels are usually ``A``-``E`` but
    some rows use ``1``-``4``; the key is looked up among the labels and re-lettered by
    position, so agents always see options A, B, C, ...

    Args:
        row: The hub row.
        index: Position in the split (used when ``id`` is missing).

    Returns:
        A ``choice`` item with id ``arc-<id>``; metadata holds the original ``labels`` and
        ``answer_key``.

    Raises:
        ValueError: The row lacks a field or its answer key is not among the labels.
    """
    where = f"ARC row {index}"
    require_fields(row, ("question", "choices", "answerKey"), where)
    labels = [str(label).strip() for label in row["choices"]["label"]]
    texts = tuple(str(t) for t in row["choices"]["text"])
    key = str(row["answerKey"]).strip()
    if key not in labels or len(labels) != len(texts):
        raise ValueError(f"{where}: answerKey {key!r} is not one of the labels {labels}")
    arc_id = row.get("id", str(index))
    return Item(
        id=f"arc-{arc_id}",
        question=row["question"],
        reference=letter_of(labels.index(key), len(texts), where),
        task="choice",
        choices=texts,
        metadata={"arc_id": arc_id, "labels": labels, "answer_key": key},
    )


ARC_REVISION = "210d026faf9955653af8916fad021475a3f00453"
"""The ``allenai/ai2_arc`` commit read, as inspect-evals 0.28.0 pins it
(inspect_evals/arc/arc.py)."""


def load_arc_challenge(split: str = "test", *, revision: str | None = ARC_REVISION) -> list[Item]:
    """ARC-Challenge (``allenai/ai2_arc``, ``ARC-Challenge``).

    Args:
        split: ``"test"``, ``"validation"`` or ``"train"``.
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    return hub_items("allenai/ai2_arc", "ARC-Challenge", split, arc_row_to_item, revision=revision)


ARC_CHALLENGE = DatasetInfo(
    "ARC-Challenge test (allenai/ai2_arc)",
    "choice",
    offline=False,
    load=pooled(load_arc_challenge),
    source="hub allenai/ai2_arc, ARC-Challenge, test",
    license="CC BY-SA 4.0",
    size="1,172",
    grader="letter",
    revision=ARC_REVISION,
)
