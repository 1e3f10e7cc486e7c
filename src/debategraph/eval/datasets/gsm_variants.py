"""GSM8K variants of the seed papers: GSM-IC (an irrelevant sentence added) and GSM-Ranges.

GSM-IC (Shi et al., 2023) keeps each GSM8K problem and adds one sentence that does not
change its answer; its 2-step file holds problems solved in two steps, its m-step file
problems of more steps. GSM-Ranges (Shrestha et al., 2025) replaces the numbers of 100
GSM8K problems by numbers of a chosen magnitude (levels 1 to 6), each level 50 sets of the
100 problems.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from debategraph.eval.datasets.hub import hub_items, require_fields
from debategraph.eval.datasets.items import Item
from debategraph.eval.datasets.source import DatasetInfo, pooled
from debategraph.policies.answers import canonicalize

GSM_IC_HUB = "voidful/GSM-IC"
"""A hub copy of the files of github.com/google-research-datasets/GSM-IC."""

GSM_IC_REVISION: str | None = None
"""None: no public code pins a GSM-IC hub commit that we found, so it reads the default branch."""

GSM_IC_FILES = {"2step": "GSM-IC_2step.json", "mstep": "GSM-IC_mstep.json"}
"""GSM-IC's two variants and their files (34,220 and 23,832 problems; the papers sample)."""

GSM_RANGES_HUB = "guactastesgood/GSM-Ranges"
"""GSM-Ranges on the hub (MIT), one configuration per perturbation level."""

GSM_RANGES_REVISION: str | None = None
"""None: no public code pins a GSM-Ranges commit that we found, so it reads the default branch."""


def gsm_ic_row_to_item(row: Mapping[str, Any], index: int, *, variant: str = "2step") -> Item:
    """Convert a GSM-IC record.

    Fields: ``new_question`` (the problem with the irrelevant sentence), ``answer``,
    ``original_question``, ``n_steps`` and the labels of the added sentence (``role_label``,
    ``number_label``, ``sentence_label``).

    Args:
        row: The record.
        index: Its position in the file, part of the id (``gsm-ic-2step-0000``).
        variant: ``"2step"`` or ``"mstep"``, part of the id.

    Returns:
        A ``number`` item; metadata holds the original question, the step count and the
        added sentence's labels.

    Raises:
        ValueError: The record lacks a field, or its answer is not a number.
    """
    where = f"GSM-IC {variant} record {index}"
    require_fields(row, ("new_question", "answer"), where)
    reference = canonicalize(str(row["answer"]), "number")
    if reference is None:
        raise ValueError(f"{where}: answer {row['answer']!r} is not a number")
    keep = ("original_question", "n_steps", "role_label", "number_label", "sentence_label")
    return Item(
        id=f"gsm-ic-{variant}-{index:04d}",
        question=str(row["new_question"]),
        reference=reference,
        task="number",
        metadata={"variant": variant, **{k: row[k] for k in keep if k in row}},
    )


def load_gsm_ic(variant: str = "2step", *, revision: str | None = GSM_IC_REVISION) -> list[Item]:
    """GSM-IC's ``"2step"`` or ``"mstep"`` file, in file order.

    Args:
        variant: Which file.
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    return hub_items(
        GSM_IC_HUB,
        None,
        "train",
        partial(gsm_ic_row_to_item, variant=variant),
        revision=revision,
        data_files=GSM_IC_FILES[variant],
    )


def gsm_ranges_row_to_item(row: Mapping[str, Any], index: int, *, level: int = 4) -> Item:
    """Convert a GSM-Ranges row: ``question`` and ``answer``.

    The answer is a number, or a GSM8K-style solution ending in ``#### N``.

    Args:
        row: The hub row.
        index: Its position in the level, part of the id (``gsm-ranges-4-0000``).
        level: The perturbation level, part of the id.

    Returns:
        A ``number`` item; metadata holds the level and any ``original_question``.

    Raises:
        ValueError: The row lacks a field, or its answer is not a number.
    """
    where = f"GSM-Ranges level {level} row {index}"
    require_fields(row, ("question", "answer"), where)
    final = str(row["answer"]).rpartition("####")[2]
    reference = canonicalize(final, "number")
    if reference is None:
        raise ValueError(f"{where}: answer {row['answer']!r} ends in no number")
    extra = {k: row[k] for k in ("original_question", "set", "id") if k in row}
    return Item(
        id=f"gsm-ranges-{level}-{index:04d}",
        question=str(row["question"]),
        reference=reference,
        task="number",
        metadata={"level": level, **extra},
    )


def load_gsm_ranges(level: int = 4, *, revision: str | None = GSM_RANGES_REVISION) -> list[Item]:
    """One GSM-Ranges level (5,000 problems: 50 sets of the same 100).

    Args:
        level: 1 to 6; Free-MAD uses 4 and 6.
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    return hub_items(
        GSM_RANGES_HUB,
        f"level_{level}",
        "test",
        partial(gsm_ranges_row_to_item, level=level),
        revision=revision,
    )


GSM_IC = {
    f"gsm-ic-{variant}": DatasetInfo(
        f"GSM-IC {variant} (GSM8K problems with one irrelevant sentence added)",
        "number",
        offline=False,
        load=pooled(partial(load_gsm_ic, variant)),
        source=f"hub {GSM_IC_HUB}, {GSM_IC_FILES[variant]}",
        license="see github.com/google-research-datasets/GSM-IC",
        size="34,220" if variant == "2step" else "23,832",
        grader="number",
        revision=GSM_IC_REVISION,
    )
    for variant in GSM_IC_FILES
}
GSM_RANGES = {
    f"gsm-ranges-{level}": DatasetInfo(
        f"GSM-Ranges level {level} (GSM8K problems with numbers of a wider range)",
        "number",
        offline=False,
        load=pooled(partial(load_gsm_ranges, level)),
        source=f"hub {GSM_RANGES_HUB}, level_{level}",
        license="MIT",
        size="5,000",
        grader="number",
        revision=GSM_RANGES_REVISION,
    )
    for level in (4, 6)
}
