"""The simulated model's only source of truth: computed or looked-up right answers.

It never sees the graph state's ``reference``: it recognises the question text itself.
"""

from __future__ import annotations

import gzip
import json
import re
import threading
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

ARITHMETIC_RE = re.compile(r"(\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)")
REPLAY_SOURCES = ("6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification")


@dataclass(frozen=True)
class Known:
    """What the oracle knows about a question.

    Attributes:
        answer: The right canonical answer.
        rationale: A correct worked solution, when one is known.
        solutions: Real model solutions by source name (bundled GSM8K only).
        operands: The six integers of an arithmetic question.
    """

    answer: str
    rationale: str = ""
    solutions: dict[str, dict[str, Any]] = field(default_factory=dict)
    operands: tuple[int, ...] = ()


def normalize_question(text: str) -> str:
    """Whitespace-collapsed question text, the lookup key."""
    return " ".join(text.split())


_INDEX: dict[str, Known] | None = None
_INDEX_LOCK = threading.Lock()


def gsm8k_index() -> dict[str, Known]:
    """Bundled GSM8K test items keyed by normalised question text (read once per process).

    Concurrent first callers (the agents of a debate, each in a worker thread) wait for one
    read instead of each reading the file.
    """
    global _INDEX
    if _INDEX is None:
        with _INDEX_LOCK:
            if _INDEX is None:
                _INDEX = _read_index()
    return _INDEX


def _read_index() -> dict[str, Known]:
    path = resources.files("debategraph.data").joinpath("gsm8k_test.jsonl.gz")
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    return {
        normalize_question(r["question"]): Known(
            r["reference"], r["rationale"], r["model_solutions"]
        )
        for r in rows
    }


def index_loaded() -> bool:
    """Whether the GSM8K index has been read (a lookup will not touch the file)."""
    return _INDEX is not None


def needs_index(question: str) -> bool:
    """Whether looking ``question`` up reads the GSM8K index (it is not arithmetic)."""
    return ARITHMETIC_RE.search(question.replace(" ", "")) is None


def lookup(question: str) -> Known | None:
    """The right answer to ``question`` if the oracle can know it, else ``None``."""
    match = ARITHMETIC_RE.search(question.replace(" ", ""))
    if match:
        a, b, c, d, e, f = (int(x) for x in match.groups())
        return Known(str(a + b * c + d - e * f), operands=(a, b, c, d, e, f))
    return gsm8k_index().get(normalize_question(question))
