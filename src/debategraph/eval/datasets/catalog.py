"""Every named question set, and :func:`load_dataset`, which picks an evaluation's items."""

from __future__ import annotations

import os
from collections.abc import Sequence

from debategraph.eval.datasets.arc import ARC_CHALLENGE
from debategraph.eval.datasets.arithmetic import ARITHMETIC
from debategraph.eval.datasets.choice_sets import AICRYPTO, GPQA, HLE
from debategraph.eval.datasets.gsm8k import GSM8K, GSM8K_HUB
from debategraph.eval.datasets.gsm_variants import GSM_IC, GSM_RANGES
from debategraph.eval.datasets.items import Item, load_jsonl
from debategraph.eval.datasets.math500 import MATH500
from debategraph.eval.datasets.mmlu import MMLU, MMLU_LOGICAL_FALLACIES, MMLU_PRO
from debategraph.eval.datasets.olympiad import AIME_2024, AIME_2025, IMO_ANSWERBENCH
from debategraph.eval.datasets.reading import LONGBENCH, SQUAD
from debategraph.eval.datasets.source import DatasetInfo, Selection, read_ids, select_items
from debategraph.eval.datasets.strategyqa import STRATEGYQA


def load_own_jsonl(selection: Selection) -> list[Item]:
    """Your own question set: the JSONL file at ``path``, then the selection."""
    if selection.path is None:
        raise ValueError("dataset 'jsonl' needs path=<your question set .jsonl>")
    items = load_jsonl(selection.path)
    return select_items(items, limit=selection.limit, seed=selection.seed, ids=selection.ids)


JSONL = DatasetInfo(
    "your own question set in the JSONL format (needs path)", "number", offline=True,
    load=load_own_jsonl, source="your file", license="yours", size="your file's",
    grader="by each item's task",
)  # fmt: skip

DATASETS: dict[str, DatasetInfo] = {
    "gsm8k": GSM8K,
    "arithmetic": ARITHMETIC,
    "jsonl": JSONL,
    "gsm8k-hub": GSM8K_HUB,
    "mmlu": MMLU,
    "mmlu-pro": MMLU_PRO,
    "arc-challenge": ARC_CHALLENGE,
    "math500": MATH500,
    "strategyqa": STRATEGYQA,
    **GSM_IC,
    **GPQA,
    **LONGBENCH,
    "squad": SQUAD,
    "aime2024": AIME_2024,
    "aime2025": AIME_2025,
    **GSM_RANGES,
    "mmlu-logical-fallacies": MMLU_LOGICAL_FALLACIES,
    "aicrypto": AICRYPTO,
    "imo-answerbench": IMO_ANSWERBENCH,
    "hle": HLE,
}
"""Every dataset name :func:`load_dataset` accepts."""

DATASET_COLUMNS = ("dataset", "source", "revision", "license", "size", "answer type", "grader")
"""The columns of :func:`dataset_table` (``debategraph datasets``, docs/evaluation.md)."""

DEFAULT_BRANCH = "default branch"
"""The revision column of a hub set that no public pin was found for."""


def revision_shown(info: DatasetInfo) -> str:
    """A dataset's revision column: the pinned commit, the default branch, or ``-`` offline."""
    if info.revision is not None:
        return info.revision
    return "-" if info.offline else DEFAULT_BRANCH


def dataset_rows() -> list[tuple[str, ...]]:
    """One row per dataset, in :data:`DATASETS` order, with :data:`DATASET_COLUMNS`."""
    return [
        (name, info.source, revision_shown(info), info.license, info.size, info.task, info.grader)
        for name, info in DATASETS.items()
    ]


def dataset_table() -> str:
    """Every dataset as a Markdown table (``debategraph datasets``; docs/evaluation.md).

    Returns:
        The header, the rule and one line per dataset, names in backticks.
    """
    lines = [
        "| " + " | ".join(DATASET_COLUMNS) + " |",
        "|" + "---|" * len(DATASET_COLUMNS),
    ]
    for name, *rest in dataset_rows():
        lines.append("| " + " | ".join([f"`{name}`", *rest]) + " |")
    return "\n".join(lines)


def load_dataset(
    name: str,
    *,
    limit: int | None = None,
    seed: int = 0,
    ids: Sequence[str] | str | os.PathLike[str] | None = None,
    path: str | os.PathLike[str] | None = None,
    revision: str | None = None,
) -> list[Item]:
    """Load a named dataset and pick the evaluation subset (see :func:`select_items`).

    For ``arithmetic`` the items are generated: ``limit`` (default 100) items from ``seed``;
    ``ids`` such as ``"arith-3-7"`` regenerate exactly those items. A hub set reads the
    commit its ``revision`` pins (``debategraph datasets`` shows it) unless ``revision``
    names another commit, tag or branch (``"main"`` follows the default branch); so does a
    set read from a GitHub repository (GSM-IC, GSM-Ranges), whose pinned file is checked by
    its digests (:mod:`debategraph.eval.datasets.pinned`).

    Args:
        name: A key of :data:`DATASETS`.
        limit: Sample size (all items when ``None``).
        seed: Sample seed; the same seed gives every method the same items.
        ids: Exactly these ids in this order (a list, or a file with one id per line).
        path: The question-set file, for ``jsonl`` only.
        revision: The commit, tag or branch to read instead of the pinned one (hub and
            GitHub sets only).

    Returns:
        The selected items.

    Raises:
        ValueError: An empty or unknown dataset name, a missing, empty or misplaced ``path``,
            an empty id list or id file, unknown ids, an empty ``revision`` or one given
            for a set that loads offline.
        DatasetFormatError: The ``jsonl`` file or the id file is malformed or not UTF-8.
        OSError: The ``jsonl`` file or the id file cannot be read.
        ImportError: A hub dataset without the ``datasets`` extra installed.
    """
    if not name.strip():
        raise ValueError(f"the dataset name is empty: give one of {', '.join(DATASETS)}")
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; valid names: {', '.join(DATASETS)}")
    if ids is not None and limit is not None:
        raise ValueError("give either ids or limit, not both")
    if path is not None and name != "jsonl":
        raise ValueError(f"path is only used by dataset 'jsonl', not {name!r}")
    if path is not None and not str(path).strip():
        raise ValueError("path is empty: give your question set's .jsonl file")
    if revision is not None and not revision.strip():
        raise ValueError("revision is empty: give a hub commit, tag or branch, or none")
    if revision is not None and DATASETS[name].offline:
        raise ValueError(f"revision is only for hub datasets; {name!r} loads offline")
    wanted = None
    if ids is not None:
        wanted = read_ids(ids) if isinstance(ids, str | os.PathLike) else list(ids)
        if not wanted:
            raise ValueError(
                f"the id file {ids} lists no ids: put one id per line (# starts a comment)"
                if isinstance(ids, str | os.PathLike)
                else "the id list is empty: give at least one id, or no ids for every item"
            )
    selection = Selection(limit=limit, seed=seed, ids=wanted, path=path, revision=revision)
    return DATASETS[name].load(selection)
