"""Reading comprehension of CortexDebate: SQuAD v1.1 and LongBench's English QA tasks.

The passage and the question make one question text. Every accepted answer is kept in the
metadata (``answers``); :mod:`debategraph.policies.spans` scores a reply against them the
way the benchmarks do (exact match and token F1, the best over the answers). A debate's
own ``correct`` compares normalised text with the first accepted answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from debategraph.eval.datasets.hub import hub_items, hub_rows, require_fields
from debategraph.eval.datasets.items import Item
from debategraph.eval.datasets.source import DatasetInfo, pooled
from debategraph.policies.answers import canonicalize

SQUAD_HUB = "rajpurkar/squad"
SQUAD_REVISION = "7b6d24c440a36b6815f21b70d25016731768db1f"
"""The SQuAD commit read, as eval-framework 0.15.4 pins it
(eval_framework/tasks/hf-dataset-revisions.json)."""
LONGBENCH_HUB = "THUDM/LongBench"
LONGBENCH_REVISION = "5e628be450b7e67fb7ae6e201bd6d8f7056f7672"
"""The LongBench commit read (its data.zip and loading script), as
github.com/youssef-Araby/AdaptiveServe pins it (scripts/longbench16_protocol.py)."""

LONGBENCH_SCRIPT = (
    "use a `datasets` release that still runs loading scripts (`pip install 'datasets<4'`) "
    "and allow it with HF_DATASETS_TRUST_REMOTE_CODE=1"
)
"""What the ``datasets`` library needs to read LongBench, whose hub copy is a loading script."""

LONGBENCH_QA = ("narrativeqa", "qasper", "multifieldqa_en", "hotpotqa", "2wikimqa", "musique")
"""LongBench's English single- and multi-document QA tasks, scored by token F1."""


def _reference(answers: list[str], where: str) -> str:
    for answer in answers:
        canonical = canonicalize(answer, "text")
        if canonical is not None:
            return canonical
    raise ValueError(f"{where}: no non-empty answer")


def squad_row_to_item(row: Mapping[str, Any], index: int) -> Item:
    """Convert a SQuAD row: ``id``, ``title``, ``context``, ``question``, ``answers``.

    Args:
        row: The hub row (``answers`` is ``{"text": [...], "answer_start": [...]}``).
        index: Its position in the split.

    Returns:
        A ``text`` item with id ``squad-<id>``; metadata holds every accepted answer.

    Raises:
        ValueError: The row lacks a field or has no answer.
    """
    where = f"SQuAD row {index}"
    require_fields(row, ("context", "question", "answers"), where)
    answers = [str(a) for a in row["answers"]["text"]]
    question = f"{str(row['context']).strip()}\n\nQuestion: {str(row['question']).strip()}"
    return Item(
        id=f"squad-{row.get('id', index)}",
        question=question,
        reference=_reference(answers, where),
        task="text",
        metadata={"answers": answers, "title": row.get("title", "")},
    )


def load_squad(*, revision: str | None = SQUAD_REVISION) -> list[Item]:
    """SQuAD v1.1's development set (10,570 questions).

    Args:
        revision: The hub commit to read (``None``: the default branch).


    Returns:
        The items.
    """
    return hub_items(SQUAD_HUB, None, "validation", squad_row_to_item, revision=revision)


def longbench_row_to_item(row: Mapping[str, Any], index: int, *, subset: str = "") -> Item:
    """Convert a LongBench row: ``input``, ``context``, ``answers``, ``dataset``, ``_id``.

    Args:
        row: The hub row.
        index: Its position in the task.
        subset: The task name, part of the id (``longbench-hotpotqa-<_id>``).

    Returns:
        A ``text`` item; metadata holds every accepted answer, the task and ``length``.

    Raises:
        ValueError: The row lacks a field or has no answer.
    """
    task = subset or str(row.get("dataset", ""))
    where = f"LongBench {task} row {index}"
    require_fields(row, ("input", "context", "answers"), where)
    answers = [str(a) for a in row["answers"]]
    question = f"{str(row['context']).strip()}\n\nQuestion: {str(row['input']).strip()}"
    return Item(
        id=f"longbench-{task}-{row.get('_id', index)}",
        question=question,
        reference=_reference(answers, where),
        task="text",
        metadata={"answers": answers, "subset": task, "length": row.get("length")},
    )


def load_longbench(
    subsets: tuple[str, ...] = LONGBENCH_QA, *, revision: str | None = LONGBENCH_REVISION
) -> list[Item]:
    """LongBench's tasks in ``subsets``, one after another (test split).

    Args:
        subsets: LongBench task names.
        revision: The hub commit to read (``None``: the default branch).

    Returns:
        The items.
    """
    items: list[Item] = []
    for subset in subsets:
        rows = hub_rows(LONGBENCH_HUB, subset, "test", revision=revision, script=LONGBENCH_SCRIPT)
        items += [longbench_row_to_item(row, i, subset=subset) for i, row in enumerate(rows)]
    return items


SQUAD = DatasetInfo(
    "SQuAD v1.1 dev (passage and question; exact match / F1 over the accepted answers)",
    "text",
    offline=False,
    load=pooled(load_squad),
    source=f"hub {SQUAD_HUB}, validation",
    license="CC BY-SA 4.0",
    size="10,570",
    grader="SQuAD exact match / token F1",
    revision=SQUAD_REVISION,
)
LONGBENCH = {
    "longbench": DatasetInfo(
        "LongBench English QA tasks (" + ", ".join(LONGBENCH_QA) + "; token F1)",
        "text",
        offline=False,
        load=pooled(load_longbench),
        source=f"hub {LONGBENCH_HUB}, six QA tasks, test",
        license="MIT",
        size="1,150",
        grader="LongBench QA token F1",
        revision=LONGBENCH_REVISION,
    ),
    **{
        f"longbench-{subset}": DatasetInfo(
            f"LongBench {subset} (token F1)",
            "text",
            offline=False,
            load=pooled(partial(load_longbench, (subset,))),
            source=f"hub {LONGBENCH_HUB}, {subset}, test",
            license="MIT",
            size="200" if subset not in {"multifieldqa_en"} else "150",
            grader="LongBench QA token F1",
            revision=LONGBENCH_REVISION,
        )
        for subset in LONGBENCH_QA
    },
}
