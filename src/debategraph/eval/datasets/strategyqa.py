"""StrategyQA from the hub (yes/no answers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debategraph.eval.datasets.hub import hub_items, require_fields
from debategraph.eval.datasets.items import Item
from debategraph.eval.datasets.source import DatasetInfo, pooled


def strategyqa_row_to_item(row: Mapping[str, Any], index: int) -> Item:
    """Convert a StrategyQA row (``ChilleD/StrategyQA``): ``qid``, ``question``, ``answer``.

    Args:
        row: The hub row; ``answer`` is a bool (``"yes"``/``"true"`` strings are accepted).
        index: Position in the split (used when ``qid`` is missing).

    Returns:
        A ``text`` item with reference ``"yes"`` or ``"no"`` and id ``strategyqa-<qid>``;
        metadata holds ``qid`` and, when present, ``term``, ``description`` and ``facts``.

    Raises:
        ValueError: The row lacks a field or its answer is not yes/no.
    """
    where = f"StrategyQA row {index}"
    require_fields(row, ("question", "answer"), where)
    answer = row["answer"]
    if isinstance(answer, str) and answer.strip().lower() in {"yes", "true", "no", "false"}:
        answer = answer.strip().lower() in {"yes", "true"}
    if not isinstance(answer, bool):
        raise ValueError(f"{where}: answer {answer!r} is not a yes/no value")
    qid = row.get("qid", str(index))
    keep = ("term", "description", "facts")
    return Item(
        id=f"strategyqa-{qid}",
        question=row["question"],
        reference="yes" if answer else "no",
        task="text",
        metadata={"qid": qid, **{k: row[k] for k in keep if k in row}},
    )


STRATEGYQA_REVISION = "705562638fe1d8ca6bb98c66fc8f94d45fda8c83"
"""The ``ChilleD/StrategyQA`` commit read, as github.com/strands-labs/strands-decider pins it
(evaluation/unseen/build.py)."""


def load_strategyqa(
    split: str = "test", *, revision: str | None = STRATEGYQA_REVISION
) -> list[Item]:
    """StrategyQA yes/no questions (``ChilleD/StrategyQA``).

    Args:
        split: ``"test"`` or ``"train"``.
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    return hub_items("ChilleD/StrategyQA", None, split, strategyqa_row_to_item, revision=revision)


STRATEGYQA = DatasetInfo(
    "StrategyQA test, yes/no (ChilleD/StrategyQA)",
    "text",
    offline=False,
    load=pooled(load_strategyqa),
    source="hub ChilleD/StrategyQA, test",
    license="MIT",
    size="687",
    grader="yes/no",
    revision=STRATEGYQA_REVISION,
)
