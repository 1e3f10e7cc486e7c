"""Reading a question set from the Hugging Face hub (the ``datasets`` extra, with network)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from debategraph.eval.datasets.items import LETTERS, Item

INSTALL_HINT = "pip install 'debategraph[datasets]'"


def hub_items(
    path: str, config: str | None, split: str, to_item: Callable[[dict[str, Any], int], Item]
) -> list[Item]:
    """The items of a Hugging Face dataset split: ``to_item(row, index)`` of each row."""
    return [to_item(row, i) for i, row in enumerate(hub_rows(path, config, split))]


def hub_rows(path: str, config: str | None, split: str) -> list[dict[str, Any]]:
    """Rows of a Hugging Face dataset split (needs the ``datasets`` extra and network)."""
    try:
        import datasets as hf
    except ImportError as exc:
        raise ImportError(
            f"Loading {path!r} needs the Hugging Face 'datasets' library: {INSTALL_HINT} "
            "(offline, use the bundled 'gsm8k', 'arithmetic' or your own 'jsonl' file)"
        ) from exc
    data = hf.load_dataset(path, config, split=split)
    return [dict(row) for row in data]


def letter_of(index: int, num_choices: int, where: str) -> str:
    """The letter of option ``index`` (0-based); a ValueError names ``where`` if out of range."""
    if not 0 <= index < num_choices:
        raise ValueError(f"{where}: answer index {index} is outside the {num_choices} options")
    return LETTERS[index]


def require_fields(row: Mapping[str, Any], keys: Sequence[str], where: str) -> None:
    """Raise a ValueError naming ``where`` and the missing fields, if any of ``keys`` is."""
    missing = [k for k in keys if k not in row]
    if missing:
        raise ValueError(f"{where}: row lacks field(s) {missing}; has {sorted(row)}")
