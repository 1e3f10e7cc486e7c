"""Competition mathematics of the seed papers: AIME 2024, AIME 2025 and IMO-AnswerBench.

AIME answers are integers from 0 to 999, graded as numbers (``"033"`` and ``33`` agree).
IMO-AnswerBench answers are short mathematical expressions, graded by symbolic
equivalence (the ``math`` task: a boxed answer is read from its box).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from debategraph.eval.datasets.hub import hub_items, require_fields
from debategraph.eval.datasets.items import Item, strip_boxed
from debategraph.eval.datasets.source import DatasetInfo, pooled
from debategraph.policies.answers import canonicalize

AIME_2024_HUB = "HuggingFaceH4/aime_2024"
AIME_2024_REVISION = "2fe88a2f1091d5048c0f36abc874fb997b3dd99a"
"""The AIME 2024 commit read, as eval-framework 0.15.4 pins it
(eval_framework/tasks/hf-dataset-revisions.json)."""
AIME_2025_HUB = "opencompass/AIME2025"
AIME_2025_REVISION = "a6ad95f611d72cf628a80b58bd0432ef6638f958"
"""The AIME 2025 commit read, as github.com/stochi0/research-environments pins it
(environments/aime2025/aime2025.py)."""
AIME_2025_CONFIGS = ("AIME2025-I", "AIME2025-II")
IMO_ANSWERBENCH_HUB = "Hwilner/imo-answerbench"
IMO_ANSWERBENCH_REVISION = "0258becbd00fc07d34862bc8539e61c8742f0d14"
"""The IMO-AnswerBench commit read, as github.com/Asap7772/value_as_tool pins it
(src/value_as_tool/benchmarks.py)."""


def aime_reference(value: Any, where: str) -> str:
    """An AIME answer as its canonical integer; a ValueError unless it is 0 to 999."""
    text = str(value).strip()
    if not text.isdigit() or not 0 <= int(text) <= 999:
        raise ValueError(f"{where}: answer {value!r} is not an AIME answer (an integer 0-999)")
    return str(int(text))


def aime_row_to_item(row: Mapping[str, Any], index: int, *, prefix: str = "aime2024") -> Item:
    """Convert an AIME row: ``problem`` or ``question``, and ``answer``.

    Args:
        row: The hub row (``HuggingFaceH4/aime_2024`` has ``id``, ``problem``, ``solution``,
            ``answer``, ``url``, ``year``; ``opencompass/AIME2025`` has ``question`` and
            ``answer``).
        index: Its position, part of the id (``aime2024-00``).
        prefix: Id prefix, naming the set (and the exam of 2025).

    Returns:
        A ``number`` item whose reference is an integer 0-999.

    Raises:
        ValueError: No problem text, or an answer outside 0-999.
    """
    where = f"{prefix} row {index}"
    text = row.get("problem") or row.get("question")
    if not text:
        raise ValueError(f"{where}: row lacks field(s) ['problem']; has {sorted(row)}")
    require_fields(row, ("answer",), where)
    keep = {k: row[k] for k in ("id", "url", "year", "solution") if k in row}
    return Item(
        id=f"{prefix}-{index:02d}",
        question=str(text),
        reference=aime_reference(row["answer"], where),
        task="number",
        metadata=keep,
    )


def load_aime_2024(*, revision: str | None = AIME_2024_REVISION) -> list[Item]:
    """AIME 2024, both exams (30 problems).

    Args:
        revision: The hub commit to read (``None``: the default branch).


    Returns:
        The items.
    """
    return hub_items(AIME_2024_HUB, None, "train", aime_row_to_item, revision=revision)


def load_aime_2025(*, revision: str | None = AIME_2025_REVISION) -> list[Item]:
    """AIME 2025: exam I then exam II (15 problems each), ids ``aime2025-I-00``, ...

    Args:
        revision: The hub commit to read (``None``: the default branch).


    Returns:
        The items.
    """
    items: list[Item] = []
    for config in AIME_2025_CONFIGS:
        exam = config.rpartition("-")[2]
        to_item = partial(aime_row_to_item, prefix=f"aime2025-{exam}")
        items += hub_items(AIME_2025_HUB, config, "test", to_item, revision=revision)
    return items


def imo_row_to_item(row: Mapping[str, Any], index: int) -> Item:
    """Convert an IMO-AnswerBench row.

    Args:
        row: The hub row: ``Problem ID``, ``Problem``, ``Short Answer``, ``Category``,
            ``Subcategory``, ``Source``.
        index: Its position (used when ``Problem ID`` is missing).

    Returns:
        A ``math`` item with id ``imo-<Problem ID>``.

    Raises:
        ValueError: The row lacks a field or its answer is empty.
    """
    where = f"IMO-AnswerBench row {index}"
    require_fields(row, ("Problem", "Short Answer"), where)
    raw = str(row["Short Answer"])
    reference = canonicalize(strip_boxed(raw), "math")
    if reference is None:
        raise ValueError(f"{where}: empty short answer")
    problem_id = str(row.get("Problem ID") or f"{index:03d}")
    return Item(
        id=f"imo-{problem_id}",
        question=str(row["Problem"]),
        reference=reference,
        task="math",
        metadata={
            "answer_raw": raw,
            **{k.lower(): row[k] for k in ("Category", "Subcategory", "Source") if k in row},
        },
    )


def load_imo_answerbench(*, revision: str | None = IMO_ANSWERBENCH_REVISION) -> list[Item]:
    """IMO-AnswerBench (400 short-answer olympiad problems).

    Args:
        revision: The hub commit to read (``None``: the default branch).


    Returns:
        The items.
    """
    return hub_items(IMO_ANSWERBENCH_HUB, None, "train", imo_row_to_item, revision=revision)


AIME_2024 = DatasetInfo(
    "AIME 2024, exams I and II (answers are integers 0-999)",
    "number",
    offline=False,
    load=pooled(load_aime_2024),
    source=f"hub {AIME_2024_HUB}, train",
    license="see the hub card (problems by the MAA)",
    size="30",
    grader="integer 0-999",
    revision=AIME_2024_REVISION,
)
AIME_2025 = DatasetInfo(
    "AIME 2025, exams I and II (answers are integers 0-999)",
    "number",
    offline=False,
    load=pooled(load_aime_2025),
    source=f"hub {AIME_2025_HUB}, AIME2025-I + AIME2025-II, test",
    license="MIT (hub card; problems by the MAA)",
    size="30",
    grader="integer 0-999",
    revision=AIME_2025_REVISION,
)
IMO_ANSWERBENCH = DatasetInfo(
    "IMO-AnswerBench short-answer olympiad problems (boxed or short answers)",
    "math",
    offline=False,
    load=pooled(load_imo_answerbench),
    source=f"hub {IMO_ANSWERBENCH_HUB}, train",
    license="CC BY 4.0",
    size="400",
    grader="math equivalence (boxed or short answer)",
    revision=IMO_ANSWERBENCH_REVISION,
)
