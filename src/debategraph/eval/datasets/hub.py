"""Reading a question set from the Hugging Face hub (the ``datasets`` extra, with network)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from debategraph.errors import DataError
from debategraph.eval.datasets.items import LETTERS, Item

INSTALL_HINT = "pip install 'debategraph[datasets]'"


class HubUnavailable(DataError):
    """A hub dataset could not be fetched: no network, or a gated set without access."""


def hub_items(
    path: str,
    config: str | None,
    split: str,
    to_item: Callable[[dict[str, Any], int], Item],
    **options: Any,
) -> list[Item]:
    """The items of a Hugging Face dataset split: ``to_item(row, index)`` of each row."""
    return [to_item(row, i) for i, row in enumerate(hub_rows(path, config, split, **options))]


def hub_rows(
    path: str,
    config: str | None,
    split: str,
    *,
    revision: str | None = None,
    data_files: str | None = None,
    gated: str | None = None,
    script: str | None = None,
) -> list[dict[str, Any]]:
    """Rows of a Hugging Face dataset split (needs the ``datasets`` extra and network).

    Args:
        path: The hub dataset, e.g. ``"Idavidrein/gpqa"``.
        config: Its configuration (subset), or ``None``.
        split: The split.
        revision: The commit, tag or branch to read (``None``: the default branch).
        data_files: One file of the repository to read instead of its configurations.
        gated: The dataset's page where its terms are accepted, for a gated set.
        script: For a set the hub serves through a loading script, what makes the
            ``datasets`` library run it; said when the library refuses to.

    Raises:
        ImportError: The ``datasets`` extra is not installed.
        HubUnavailable: The fetch failed (no network, or no access to a gated set); one
            line names the dataset and the step that fixes it.
    """
    try:
        import datasets as hf
    except ImportError as exc:
        raise ImportError(
            f"Loading {path!r} needs the Hugging Face 'datasets' library: {INSTALL_HINT} "
            "(offline, use the bundled 'gsm8k', 'arithmetic' or your own 'jsonl' file)"
        ) from exc
    options: dict[str, Any] = {}
    if revision is not None:
        options["revision"] = revision
    if data_files is not None:
        options["data_files"] = data_files
    try:
        data = hf.load_dataset(path, config, split=split, **options)
    except (OSError, ConnectionError, TimeoutError) as exc:
        raise HubUnavailable(unavailable_message(path, exc, gated=gated)) from None
    except Exception as exc:
        if type(exc).__name__ in _FETCH_FAILURES:
            raise HubUnavailable(unavailable_message(path, exc, gated=gated)) from None
        if script is not None and isinstance(exc, RuntimeError | ValueError):
            raise HubUnavailable(
                f"could not load the hub dataset {path!r} ({_first_line(exc)[:160]}): it is "
                f"served by a loading script: {script}"
            ) from None
        raise
    return [dict(row) for row in data]


_FETCH_FAILURES = frozenset(
    {"DatasetNotFoundError", "GatedRepoError", "HfHubHTTPError", "ConnectionError"}
)


def unavailable_message(path: str, exc: BaseException, *, gated: str | None = None) -> str:
    """The one line that names a hub dataset that could not be fetched and how to get it."""
    reason = _first_line(exc)
    if gated is not None:
        fix = (
            f"accept its terms at {gated} and log in with `huggingface-cli login` "
            "(or set HF_TOKEN), with network access"
        )
    else:
        fix = "connect to the network (and unset HF_HUB_OFFLINE / HF_DATASETS_OFFLINE)"
    return f"could not fetch the hub dataset {path!r} ({reason[:160]}): {fix}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


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
