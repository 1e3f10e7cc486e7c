"""Reading a results directory: its rows, and their summaries per (source, dataset) group."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debategraph.eval.metrics import MethodSummary, Row, group_by, summarize

SOURCE_TITLES = {
    "simulated": "Simulated models",
    "real": "Real model outputs",
    "": "Source not recorded",
}


SIMULATED_NOTE = (
    "Simulated rows come from the simulated chat model, a test double: they show that the "
    "pipeline runs and what it measures, not how accurate a method is."
)


@dataclass(frozen=True)
class Group:
    """Rows of one (source, dataset) pair and their per-method summaries.

    Attributes:
        source: ``simulated``, ``real`` or ``""`` (not recorded).
        dataset: The rows' ``dataset`` value, or ``""``.
        summaries: Method -> summary, in first-seen order.
    """

    source: str
    dataset: str
    summaries: dict[str, MethodSummary]

    @property
    def title(self) -> str:
        """Heading of the group, e.g. ``Simulated models: gsm8k``."""
        base = SOURCE_TITLES.get(self.source, f"Source: {self.source}")
        return f"{base}: {self.dataset}" if self.dataset else base

    @property
    def tag(self) -> str:
        """Short label for plot legends, e.g. ``simulated/gsm8k``."""
        return "/".join(part for part in (self.source, self.dataset) if part)


def read_results(results_dir: str | os.PathLike[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Read every ``*.jsonl`` file of a directory (not recursive), in name order.

    Args:
        results_dir: The results directory.

    Returns:
        The rows, and one message per unreadable line (bad JSON, not an object, no
        ``method``); those lines are skipped, e.g. a line cut short by an interrupted run.
    """
    rows: list[dict[str, Any]] = []
    problems: list[str] = []
    for file in sorted(Path(results_dir).glob("*.jsonl")):
        with file.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                row, problem = _parse_row(line)
                if problem:
                    problems.append(f"{file.name}, line {number}: {problem}")
                else:
                    rows.append(row)
    return rows, problems


def _parse_row(line: str) -> tuple[dict[str, Any], str]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        return {}, f"not valid JSON ({exc.msg})"
    if not isinstance(row, dict):
        return {}, "not a JSON object"
    if "method" not in row:
        return {}, "no 'method' key"
    return row, ""


def build_groups(rows: Sequence[Row], prices: Mapping[str, float] | None = None) -> list[Group]:
    """Summaries per method within each (source, dataset) group, groups in first-seen order.

    Args:
        rows: Result rows.
        prices: ``{"input": $ per token, "output": $ per token}``, or ``None``.

    Returns:
        The groups.
    """
    groups = []
    for source, source_rows in group_by(rows, "source").items():
        for dataset, dataset_rows in group_by(source_rows, "dataset").items():
            groups.append(Group(source, dataset, summarize(dataset_rows, prices)))
    return groups
