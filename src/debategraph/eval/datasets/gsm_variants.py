"""GSM8K variants of the seed papers: GSM-IC (an irrelevant sentence added) and GSM-Ranges.

GSM-IC (Shi et al., 2023) keeps each GSM8K problem and adds one sentence that does not
change its answer; its 2-step file holds problems solved in two steps, its m-step file
problems of more steps. GSM-Ranges (Shrestha et al., 2025) replaces the numbers of 100
GSM8K problems by numbers of a chosen magnitude (levels 1 to 6), each level 50 draws of
each of the 100 problems (its file lists the 50 of problem 1, then those of problem 2, ...).

Both are read from the GitHub repositories that publish them, at a pinned commit, and each
file is checked by its digests (:mod:`debategraph.eval.datasets.pinned`): no public code
pins a commit of their hub copies, and neither repository has a licence file, so the
files are fetched, not bundled.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Mapping
from functools import partial
from typing import Any

from debategraph.errors import DataError
from debategraph.eval.datasets.hub import require_fields
from debategraph.eval.datasets.items import Item
from debategraph.eval.datasets.pinned import PinnedFile, pinned_bytes
from debategraph.eval.datasets.source import DatasetInfo, pooled
from debategraph.policies.answers import canonicalize

GSM_IC_REPO = "google-research-datasets/GSM-IC"
GSM_IC_COMMIT = "0c1da13552afcc5d995d6f1ad5288417cb110246"
"""The commit of github.com/google-research-datasets/GSM-IC read: "Upload the GSM-IC
dataset" (2023-02-13), the head of its main branch and its only commit."""

GSM_IC_FILES = {
    "2step": PinnedFile(
        GSM_IC_REPO, GSM_IC_COMMIT, "GSM-IC_2step.json",
        git_blob="68c09b96cb5d491c888d83adc90bc8069b33224f",
    ),
    "mstep": PinnedFile(
        GSM_IC_REPO, GSM_IC_COMMIT, "GSM-IC_mstep.json",
        git_blob="c6966bca803207dd188c669852de010e8b978f70",
    ),
}  # fmt: skip
"""GSM-IC's two variants and their files (34,220 and 23,832 problems; the papers sample),
checked by the git blob ids the commit's tree lists (the files' bytes were not seen when
they were pinned, so there is no SHA-256)."""

GSM_RANGES_REPO = "minwukim/GSM-Ranges"
GSM_RANGES_COMMIT = "4ee84658dbcda3a65227d81610f715cce54b9627"
"""The commit of github.com/minwukim/GSM-Ranges read: "update readme" (2025-02-10), the head
of its main branch; the level files are those of the commit before, "update files"."""

GSM_RANGES_FILES = {
    4: PinnedFile(
        GSM_RANGES_REPO, GSM_RANGES_COMMIT, "sample_dataset/level4.csv",
        git_blob="4d580ec82854b533b27472a5ac9b665bd12f4052",
        sha256="4824bfb5e73867cd54965788fa415b1a6548f2accd40cdfb08d9c6101ac6dcbb",
    ),
    6: PinnedFile(
        GSM_RANGES_REPO, GSM_RANGES_COMMIT, "sample_dataset/level6.csv",
        git_blob="b0c85bee12584467f82007dfb4440f7efeb9d815",
        sha256="a26d069da2a11a4cb354775a9d8b9c9c028d054f88ec6853b726a83f0f769d77",
    ),
}  # fmt: skip
"""The GSM-Ranges levels Free-MAD uses and their files (CSV: ``index``, ``question``,
``answer``; 5,000 rows each, 2,692,586 and 2,882,004 bytes)."""


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


def load_gsm_ic(variant: str = "2step", *, revision: str | None = None) -> list[Item]:
    """GSM-IC's ``"2step"`` or ``"mstep"`` file, in file order.

    Args:
        variant: Which file.
        revision: Another commit, tag or branch of the repository to read (``None``: the
            pinned commit, checked by its digest).

    Returns:
        The items.

    Raises:
        HubUnavailable: The file could not be fetched (one line says how to get it).
        DataError: The file is not the pinned one, or not a JSON array of records.
    """
    name = f"GSM-IC {variant}"
    data = pinned_bytes(GSM_IC_FILES[variant], name, revision=revision)
    try:
        records = json.loads(data)
    except (UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"{name}: the file is not JSON ({exc})") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise DataError(f"{name}: the file is not a JSON array of records")
    return [gsm_ic_row_to_item(row, i, variant=variant) for i, row in enumerate(records)]


def gsm_ranges_row_to_item(row: Mapping[str, Any], index: int, *, level: int = 4) -> Item:
    """Convert a GSM-Ranges row.

    Fields: ``index`` (the GSM8K problem, 1 to 100), ``question`` and ``answer`` (a
    GSM8K-style solution ending in ``#### N``, or a bare number).

    Args:
        row: The CSV row, with ``draw`` added (see :func:`gsm_ranges_rows`).
        index: Its position in the level's file, part of the id (``gsm-ranges-4-0000``).
        level: The perturbation level, part of the id.

    Returns:
        A ``number`` item; metadata holds the level, the ``problem`` number and the ``draw``.

    Raises:
        ValueError: The row lacks a field, or its answer is not a number.
    """
    where = f"GSM-Ranges level {level} row {index}"
    require_fields(row, ("question", "answer"), where)
    final = str(row["answer"]).rpartition("####")[2]
    reference = canonicalize(final, "number")
    if reference is None:
        raise ValueError(f"{where}: answer {row['answer']!r} ends in no number")
    extra = {key: row[key] for key in ("draw",) if key in row}
    if str(row.get("index", "")).strip().isdigit():
        extra["problem"] = int(row["index"])
    return Item(
        id=f"gsm-ranges-{level}-{index:04d}",
        question=str(row["question"]),
        reference=reference,
        task="number",
        metadata={"level": level, **extra},
    )


def gsm_ranges_rows(text: str, name: str) -> list[dict[str, Any]]:
    """A GSM-Ranges CSV's rows, each with ``draw`` added.

    ``draw`` is the how-manieth row of its problem (``index``) the row is, 1 to 50; each row
    of a problem is an independent draw of its numbers.
    """
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [k for k in ("index", "question", "answer") if k not in (reader.fieldnames or [])]
    if missing:
        raise DataError(f"{name}: the CSV lacks column(s) {missing}; has {reader.fieldnames}")
    seen: Counter[str] = Counter()
    rows: list[dict[str, Any]] = []
    for row in reader:
        seen[row["index"]] += 1
        rows.append({**row, "draw": seen[row["index"]]})
    return rows


def load_gsm_ranges(level: int = 4, *, revision: str | None = None) -> list[Item]:
    """One GSM-Ranges level (5,000 problems: 50 draws of each of the same 100), in file order.

    Args:
        level: 4 or 6, the levels Free-MAD uses.
        revision: Another commit, tag or branch of the repository to read (``None``: the
            pinned commit, checked by its digests).

    Returns:
        The items.

    Raises:
        HubUnavailable: The file could not be fetched (one line says how to get it).
        DataError: The file is not the pinned one, or not a CSV with the level's columns.
    """
    name = f"GSM-Ranges level {level}"
    data = pinned_bytes(GSM_RANGES_FILES[level], name, revision=revision)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{name}: the file is not UTF-8 text ({exc})") from None
    rows = gsm_ranges_rows(text, name)
    return [gsm_ranges_row_to_item(row, i, level=level) for i, row in enumerate(rows)]


GSM_IC = {
    f"gsm-ic-{variant}": DatasetInfo(
        f"GSM-IC {variant} (GSM8K problems with one irrelevant sentence added)",
        "number",
        offline=False,
        load=pooled(partial(load_gsm_ic, variant)),
        source=f"github {GSM_IC_REPO}, {file.path}",
        license="none stated (the repository has no licence file)",
        size="34,220" if variant == "2step" else "23,832",
        grader="number",
        revision=file.commit,
    )
    for variant, file in GSM_IC_FILES.items()
}
GSM_RANGES = {
    f"gsm-ranges-{level}": DatasetInfo(
        f"GSM-Ranges level {level} (GSM8K problems with numbers of a wider range)",
        "number",
        offline=False,
        load=pooled(partial(load_gsm_ranges, level)),
        source=f"github {GSM_RANGES_REPO}, {file.path}",
        license="none stated in the repository (its hub copy says MIT)",
        size="5,000",
        grader="number",
        revision=file.commit,
    )
    for level, file in GSM_RANGES_FILES.items()
}
