"""Multiple-choice sets of the seed papers: GPQA, a filtered HLE subset and AICrypto.

GPQA and HLE are gated on the hub: accept their terms on their pages and log in
(``huggingface-cli login``) before loading them; without access the load stops with one
line that says so.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from functools import partial
from typing import Any

from debategraph.eval.datasets.hub import hub_rows, letter_of, require_fields
from debategraph.eval.datasets.items import LETTERS, Item
from debategraph.eval.datasets.source import DatasetInfo, pooled

GPQA_HUB = "Idavidrein/gpqa"
GPQA_PAGE = "https://huggingface.co/datasets/Idavidrein/gpqa"
GPQA_REVISION = "5233cd1db58884ed0bf678c7c6be731722a23f84"
"""The GPQA commit read, as inspect-evals 0.28.0 pins it
(inspect_evals/abstention_bench/recipe/abstention_datasets/gpqa.py)."""
HLE_HUB = "cais/hle"
HLE_PAGE = "https://huggingface.co/datasets/cais/hle"
HLE_REVISION = "5a81a4c7271a2a2a312b9a690f0c2fde837e4c29"
"""The HLE commit read, as inspect-evals 0.28.0 pins it (inspect_evals/hle/dataset.py)."""
AICRYPTO_HUB = "yuuwwang/aicrypto"
AICRYPTO_REVISION: str | None = None
"""None: it reads the default branch. No public code that we found pins an AICrypto hub
commit, and the authors' repository (github.com/wangyu-ovo/aicrypto-agent) holds no copy of
the questions to pin instead: its README sends users to the hub for them."""

GPQA_SUBSETS = {"main": "gpqa_main", "diamond": "gpqa_diamond"}
"""GPQA's subsets by our name: main (448 questions) and diamond (198)."""

_GPQA_WRONG = ("Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3")


def gpqa_row_to_item(row: Mapping[str, Any], index: int, *, subset: str = "main") -> Item:
    """Convert a GPQA row, shuffling its four options with a seed fixed per question.

    GPQA lists the correct answer apart from three incorrect ones. The options are put in
    the order of ``random.Random("gpqa:<Record ID>")``, so a question always shows the same
    order, whatever sample or run it is in, and the right letter is spread evenly.

    Args:
        row: The hub row: ``Question``, ``Correct Answer``, ``Incorrect Answer 1``-``3``,
            ``Record ID``, ``High-level domain``, ``Subdomain``.
        index: Its position in the subset (used when ``Record ID`` is missing).
        subset: ``"main"`` or ``"diamond"``, part of the id.

    Returns:
        A ``choice`` item with id ``gpqa-<subset>-<Record ID>``.

    Raises:
        ValueError: The row lacks a field.
    """
    where = f"GPQA {subset} row {index}"
    require_fields(row, ("Question", "Correct Answer", *_GPQA_WRONG), where)
    record = str(row.get("Record ID") or f"{index:03d}")
    options = [str(row["Correct Answer"]).strip()] + [str(row[k]).strip() for k in _GPQA_WRONG]
    order = list(range(len(options)))
    random.Random(f"gpqa:{record}").shuffle(order)
    return Item(
        id=f"gpqa-{subset}-{record}",
        question=str(row["Question"]).strip(),
        reference=LETTERS[order.index(0)],
        task="choice",
        choices=tuple(options[i] for i in order),
        metadata={
            "record_id": record,
            "domain": row.get("High-level domain", ""),
            "subdomain": row.get("Subdomain", ""),
        },
    )


def load_gpqa(subset: str = "main", *, revision: str | None = GPQA_REVISION) -> list[Item]:
    """GPQA ``"main"`` (448) or ``"diamond"`` (198); gated: accept its terms and log in.

    Args:
        subset: Which subset.
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    config = GPQA_SUBSETS[subset]
    rows = hub_rows(GPQA_HUB, config, "train", revision=revision, gated=GPQA_PAGE)
    return [gpqa_row_to_item(row, i, subset=subset) for i, row in enumerate(rows)]


_CHOICES_HEADER = re.compile(r"\n\s*Answer Choices:\s*\n", re.I)
_CHOICE_LINE = re.compile(r"^\s*([A-Z])[.)]\s+(.*\S)\s*$")


def hle_choices(question: str) -> tuple[str, tuple[str, ...]] | None:
    """Split an HLE multiple-choice question into its stem and its lettered options.

    HLE writes the options into the question after an ``Answer Choices:`` line, one
    ``A. text`` per line. ``None`` when there is no such block, the letters do not run
    A, B, C, ... or there are more than ten options.
    """
    parts = _CHOICES_HEADER.split(question, maxsplit=1)
    if len(parts) != 2:
        return None
    stem, block = parts
    options: list[str] = []
    for line in block.strip().splitlines():
        match = _CHOICE_LINE.match(line)
        if match and match.group(1) == LETTERS[len(options) : len(options) + 1]:
            options.append(match.group(2))
        elif options and line.strip():
            options[-1] += "\n" + line.strip()
        else:
            return None
    if not 2 <= len(options) <= len(LETTERS):
        return None
    return stem.strip(), tuple(options)


def hle_row_to_item(row: Mapping[str, Any], index: int) -> Item | None:
    """Convert an HLE row if it is in the subset SVR-MAD uses, else ``None``.

    Kept: no image, not in the ``Math`` category, ``answer_type`` ``multipleChoice`` with
    options :func:`hle_choices` can read and a letter answer among them.

    Args:
        row: The hub row: ``id``, ``question``, ``image``, ``answer``, ``answer_type``,
            ``category``, ``raw_subject``.
        index: Its position in the split.

    Returns:
        A ``choice`` item with id ``hle-<id>``, or ``None``.
    """
    require_fields(row, ("question", "answer", "answer_type"), f"HLE row {index}")
    if row.get("image") or row.get("category") == "Math":
        return None
    if row["answer_type"] != "multipleChoice":
        return None
    split = hle_choices(str(row["question"]))
    answer = str(row["answer"]).strip().upper()
    if split is None or len(answer) != 1 or answer not in LETTERS[: len(split[1])]:
        return None
    stem, options = split
    return Item(
        id=f"hle-{row.get('id', index)}",
        question=stem,
        reference=answer,
        task="choice",
        choices=options,
        metadata={"category": row.get("category", ""), "subject": row.get("raw_subject", "")},
    )


def load_hle_filtered(*, revision: str | None = HLE_REVISION) -> list[Item]:
    """HLE's text-only, non-math, multiple-choice questions; gated: accept terms, log in.

    Args:
        revision: The hub commit to read (``None``: the default branch).


    Returns:
        The items, in the split's order.
    """
    rows = hub_rows(HLE_HUB, None, "test", revision=revision, gated=HLE_PAGE)
    items = (hle_row_to_item(row, i) for i, row in enumerate(rows))
    return [item for item in items if item is not None]


def aicrypto_row_to_item(row: Mapping[str, Any], index: int) -> Item | None:
    """Convert an AICrypto multiple-choice row; ``None`` for a question with several answers.

    Args:
        row: The hub row: ``id``, ``question``, ``choice`` (4 to 7 options), ``answer``
            (a list of 0-based indices) and ``label`` (the topic).
        index: Its position in the split.

    Returns:
        A ``choice`` item with id ``aicrypto-<id>``, or ``None`` when ``answer`` lists
        more than one option (a single letter cannot grade it).

    Raises:
        ValueError: The row lacks a field or an answer index is out of range.
    """
    where = f"AICrypto row {index}"
    require_fields(row, ("question", "choice", "answer"), where)
    choices = tuple(str(c) for c in row["choice"])
    answer = row["answer"]
    indices = list(answer) if isinstance(answer, list | tuple) else [answer]
    if len(indices) != 1:
        return None
    return Item(
        id=f"aicrypto-{row.get('id', index)}",
        question=str(row["question"]),
        reference=letter_of(int(indices[0]), len(choices), where),
        task="choice",
        choices=choices,
        metadata={"topic": row.get("label", "")},
    )


def load_aicrypto(*, revision: str | None = AICRYPTO_REVISION) -> list[Item]:
    """AICrypto's multiple-choice questions with one right option (135 questions in all).

    Args:
        revision: The hub commit to read (``None``: the default branch).


    Returns:
        The items.
    """
    rows = hub_rows(AICRYPTO_HUB, None, "train", revision=revision)
    items = (aicrypto_row_to_item(row, i) for i, row in enumerate(rows))
    return [item for item in items if item is not None]


GPQA = {
    f"gpqa-{subset}": DatasetInfo(
        f"GPQA {subset} (gated; options shuffled with a seed fixed per question)",
        "choice",
        offline=False,
        load=pooled(partial(load_gpqa, subset)),
        source=f"hub {GPQA_HUB}, {config}, train",
        license="CC BY 4.0 (gated)",
        size="448" if subset == "main" else "198",
        grader="letter",
        revision=GPQA_REVISION,
    )
    for subset, config in GPQA_SUBSETS.items()
}
HLE = DatasetInfo(
    "Humanity's Last Exam: text-only, non-math, multiple-choice questions (gated)",
    "choice",
    offline=False,
    load=pooled(load_hle_filtered),
    source=f"hub {HLE_HUB}, test, filtered",
    license="MIT (gated)",
    size="the filtered part of 2,500",
    grader="letter",
    revision=HLE_REVISION,
)
AICRYPTO = DatasetInfo(
    "AICrypto multiple-choice questions with one right option",
    "choice",
    offline=False,
    load=pooled(load_aicrypto),
    source=f"hub {AICRYPTO_HUB}, train",
    license="see the AICrypto repository",
    size="135 (single-answer ones kept)",
    grader="letter",
    revision=AICRYPTO_REVISION,
)
