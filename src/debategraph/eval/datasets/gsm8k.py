"""GSM8K: the test split bundled with the package, and the hub copy."""

from __future__ import annotations

import gzip
import re
from collections.abc import Mapping
from functools import cache, partial
from importlib import resources
from typing import Any

from debategraph.eval.datasets.hub import hub_items, require_fields
from debategraph.eval.datasets.items import Item, read_records
from debategraph.eval.datasets.source import DatasetInfo, pooled
from debategraph.policies.answers import canonicalize

GSM8K_RESOURCE = "gsm8k_test.jsonl.gz"

GSM8K_REVISION = "cc7b047b6e5bb11b4f1af84efc572db110a51b3c"
"""The ``openai/gsm8k`` commit read, as inspect-evals 0.28.0 pins it
(inspect_evals/gsm8k/gsm8k.py)."""


@cache
def _bundled_gsm8k() -> tuple[Item, ...]:
    resource = resources.files("debategraph.data").joinpath(GSM8K_RESOURCE)
    with resource.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        return tuple(
            read_records(lines, f"debategraph/data/{GSM8K_RESOURCE}", require_reference=True)
        )


def load_gsm8k_bundled() -> list[Item]:
    """The GSM8K test split vendored with the package (1,319 items, MIT licence).

    Ids are ``gsm8k-test-0000`` ... in the split's order. The metadata holds the worked
    ``rationale`` and ``model_solutions``: four real GPT-3 solutions (6B and 175B,
    fine-tuned and verifier-selected) with ``is_correct`` labels.

    Returns:
        The items, task ``"number"``.
    """
    return list(_bundled_gsm8k())


def gsm8k_row_to_item(row: Mapping[str, Any], index: int, *, split: str = "test") -> Item:
    """Convert an ``openai/gsm8k`` (``main``) row: ``question``, ``answer`` (``"... #### 18"``).

    Args:
        row: The hub row.
        index: Position in the split; ids match the bundled split (``gsm8k-test-0000``).
        split: The split name, part of the id.

    Returns:
        A ``number`` item; metadata holds the worked ``rationale`` (calculator marks removed).

    Raises:
        ValueError: The row lacks a field or a ``#### <number>`` final answer.
    """
    where = f"GSM8K row {index}"
    require_fields(row, ("question", "answer"), where)
    rationale, marker, final = str(row["answer"]).rpartition("####")
    reference = canonicalize(final, "number") if marker else None
    if reference is None:
        raise ValueError(f"{where}: answer has no final '#### <number>'")
    return Item(
        id=f"gsm8k-{split}-{index:04d}",
        question=row["question"],
        reference=reference,
        task="number",
        metadata={"rationale": re.sub(r"<<[^>]*>>", "", rationale).strip()},
    )


def load_gsm8k_hub(split: str = "test", *, revision: str | None = GSM8K_REVISION) -> list[Item]:
    """GSM8K from the hub (``openai/gsm8k``, ``main``). Offline, use :func:`load_gsm8k_bundled`.

    Args:
        split: ``"test"`` or ``"train"``.
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    to_item = partial(gsm8k_row_to_item, split=split)
    return hub_items("openai/gsm8k", "main", split, to_item, revision=revision)


GSM8K = DatasetInfo(
    "GSM8K test split bundled with the package (1,319 items, MIT)",
    "number",
    offline=True,
    load=pooled(load_gsm8k_bundled),
    source="bundled",
    license="MIT",
    size="1,319",
    grader="number",
)
GSM8K_HUB = DatasetInfo(
    "GSM8K test from the hub (openai/gsm8k, main)",
    "number",
    offline=False,
    load=pooled(load_gsm8k_hub),
    source="hub openai/gsm8k, main, test",
    license="MIT",
    size="1,319",
    grader="number",
    revision=GSM8K_REVISION,
)
