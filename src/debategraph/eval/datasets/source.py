"""What every question set offers: a :class:`DatasetInfo` that loads a :class:`Selection`.

Sampling
--------
:func:`load_dataset` picks items the same way for every method: ``ids`` selects exactly
those items in that order; otherwise ``limit`` with ``seed`` draws a seeded sample without
replacement (the first ``limit`` items of a ``random.Random(seed)`` permutation), returned in
the dataset's original order. With the same dataset, ``limit`` and ``seed``, every method is
evaluated on the same items; raising ``limit`` keeps the items of a smaller sample.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from debategraph.eval.datasets.errors import text_lines
from debategraph.eval.datasets.items import Item
from debategraph.policies.types import TaskKind

_MAX_SHOWN = 20


@dataclass(frozen=True)
class Selection:
    """Which items of a dataset an evaluation asks for.

    Attributes:
        limit: Sample size (every item when ``None``).
        seed: Sample seed; the same seed gives every method the same items.
        ids: Exactly these ids, in this order (excludes ``limit``).
        path: The question-set file (``jsonl`` only).
        revision: The commit, tag or branch to read instead of the set's pinned revision
            (sets read from the hub or from GitHub only; ``None``: the pinned one).
    """

    limit: int | None = None
    seed: int = 0
    ids: list[str] | None = None
    path: str | os.PathLike[str] | None = None
    revision: str | None = None


@dataclass(frozen=True)
class DatasetInfo:
    """A named question set of :func:`~debategraph.eval.datasets.load_dataset`.

    Attributes:
        description: One line for ``--help`` and docs.
        task: The answer kind of its items.
        offline: Whether it loads without network access.
        load: The items a selection picks (the one loader contract of every source).
        source: Where the items come from (``"bundled"``, ``"generated"``, ``"your file"``,
            the hub dataset, config and split, or the GitHub repository and file).
        license: The data's licence, as its publisher states it.
        size: How many items the set holds (the paper's selection, where it differs).
        grader: How an answer is graded (see ``debategraph datasets``).
        revision: The full commit hash it reads: of the hub dataset, pinned where public
            code pins the same hub dataset to a commit, or of the GitHub repository whose
            file it reads; ``None`` for an offline set or a hub set that reads its default
            branch.
    """

    description: str
    task: TaskKind
    offline: bool
    load: Callable[[Selection], list[Item]]
    source: str = ""
    license: str = ""
    size: str = ""
    grader: str = ""
    revision: str | None = None


def pooled(pool: Callable[..., list[Item]]) -> Callable[[Selection], list[Item]]:
    """The loader of a fixed question set: every item, then :func:`select_items`.

    A selection's ``revision`` reaches ``pool`` as its ``revision`` keyword (hub and GitHub
    sets).
    """

    def load(selection: Selection) -> list[Item]:
        items = pool() if selection.revision is None else pool(revision=selection.revision)
        return select_items(items, limit=selection.limit, seed=selection.seed, ids=selection.ids)

    return load


def read_ids(path: str | os.PathLike[str]) -> list[str]:
    """Read an id list: one id per line; blank lines and ``#`` comments are skipped.

    Args:
        path: The id file.

    Returns:
        The ids, in file order.

    Raises:
        DatasetFormatError: The file is not UTF-8 text (the message gives the byte offset).
        OSError: The file cannot be opened.
    """
    lines = [line.strip() for line in text_lines(path)]
    return [line for line in lines if line and not line.startswith("#")]


def select_items(
    items: Sequence[Item],
    *,
    limit: int | None = None,
    seed: int = 0,
    ids: Sequence[str] | str | os.PathLike[str] | None = None,
) -> list[Item]:
    """Pick the evaluation subset, identically for every method.

    Args:
        items: The whole dataset, in its original order.
        limit: Sample size; ``None`` (or at least ``len(items)``) keeps every item.
        seed: Seed of the sample: the first ``limit`` entries of a ``random.Random(seed)``
            permutation, returned in original order.
        ids: Exactly these items, in this order: a list of ids, or the path of a file with
            one id per line. Excludes ``limit``.

    Returns:
        The selected items.

    Raises:
        ValueError: Unknown or repeated ids, both ``ids`` and ``limit``, or a negative limit.
    """
    if ids is not None:
        if limit is not None:
            raise ValueError("give either ids or limit, not both")
        wanted = read_ids(ids) if isinstance(ids, str | os.PathLike) else list(ids)
        return select_ids(items, wanted)
    if limit is None or limit >= len(items):
        return list(items)
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    return [items[i] for i in sorted(order[:limit])]


def select_ids(items: Sequence[Item], wanted: list[str]) -> list[Item]:
    """Exactly the ``wanted`` items, in that order; unknown or repeated ids are refused."""
    by_id = {item.id: item for item in items}
    repeated = sorted(i for i, count in Counter(wanted).items() if count > 1)
    if repeated:
        raise ValueError(f"ids repeated in the id list: {', '.join(repeated)}")
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        shown = ", ".join(repr(i) for i in unknown[:_MAX_SHOWN])
        extra = len(unknown) - _MAX_SHOWN
        more = f" and {extra} more" if extra > 0 else ""
        example = f" (ids look like {items[0].id!r})" if items else ""
        raise ValueError(f"{len(unknown)} unknown id(s): {shown}{more}{example}")
    return [by_id[i] for i in wanted]
