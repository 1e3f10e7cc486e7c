r"""Question-set records: :class:`Item`, their validation, and the JSONL question-set format.

Question-set JSONL format
-------------------------
One JSON object per line (blank lines are skipped; ``.jsonl.gz`` is read transparently):

``id`` (required)
    A string (or integer) unique within the file, e.g. ``"q-001"``.
``question`` (required)
    The question text shown to the agents. For choice tasks, do not repeat the options here:
    put them in ``choices``.
``reference`` (required for evaluation)
    The right answer. It is canonicalised with
    :func:`debategraph.policies.answers.canonicalize` for the item's task: ``"$1,234.50"`` and
    ``1234.5`` both become ``"1234.5"``; a choice reference is a letter (``"B"`` or ``"(b)"``)
    within the given choices; a math reference (LaTeX, ``\boxed{}`` allowed) becomes its
    canonical key (``"\dfrac{1}{2}"`` -> ``"\frac{1}{2}"``); a text reference is
    lower-cased with articles dropped, and a yes/no answer reads ``"yes"``/``"no"`` (so do
    JSON ``true``/``false`` and ``"True"``/``"False"``).
``task`` (optional, default ``"number"``)
    How answers are extracted and compared: ``"number"``, ``"choice"``, ``"text"`` or
    ``"math"`` (graded by symbolic equivalence; needs the ``math`` extra).
``choices`` (optional, choice tasks only)
    A list of 2 to 10 option texts, lettered A to J in order.
``metadata`` (optional)
    A JSON object kept as it is. Any other field is kept in the metadata too.

Example::

    {"id": "q-001", "question": "What is 12 * 12?", "reference": 144}
    {"id": "q-002", "question": "Which planet is largest?", "task": "choice",
     "choices": ["Mars", "Jupiter", "Venus"], "reference": "B"}
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, cast, get_args

from debategraph.eval.datasets.errors import DatasetFormatError, text_lines
from debategraph.policies.answers import canonicalize
from debategraph.policies.types import TaskKind

TASKS: tuple[str, ...] = get_args(TaskKind)
"""The valid ``task`` values."""


LETTERS = "ABCDEFGHIJ"
"""Choice letters; at most ten options (MMLU-Pro has ten)."""


_KNOWN_FIELDS = frozenset({"id", "question", "reference", "task", "choices", "metadata"})


_LETTER_RE = re.compile(r"^\s*\(?\s*([A-Ja-j])\s*\)?\s*$")


_MAX_ERRORS_SHOWN = 3


@dataclass(frozen=True)
class Item:
    """One question of a question set.

    Attributes:
        id: Unique id within its dataset (``"gsm8k-test-0000"``, ``"arith-0-3"``).
        question: The question text, without the answer options.
        reference: The canonical right answer, or ``None`` for an unlabelled item.
        task: How answers are extracted and compared.
        choices: Option texts of a choice task, lettered A, B, ... in order.
        metadata: Anything else (source row fields, rationale, subject, ...). Not hashed.
    """

    id: str
    question: str
    reference: str | None
    task: TaskKind = "number"
    choices: tuple[str, ...] | None = None
    metadata: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def num_choices(self) -> int | None:
        """How many options a choice item has (``None`` when it lists none)."""
        return len(self.choices) if self.choices else None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready mapping in the question-set JSONL format.

        Returns:
            ``id``, ``question``, ``reference``, ``task``, ``metadata`` and, when set,
            ``choices``.
        """
        data: dict[str, Any] = {
            "id": self.id,
            "question": self.question,
            "reference": self.reference,
            "task": self.task,
        }
        if self.choices is not None:
            data["choices"] = list(self.choices)
        data["metadata"] = self.metadata
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> Item:
        """Build an item from :meth:`to_json` output (a mapping or a JSON string).

        The record is validated like a JSONL line; ``reference`` may be ``None``.

        Args:
            data: A mapping, or its JSON text.

        Returns:
            The item.

        Raises:
            DatasetFormatError: The record is malformed.
        """
        record = json.loads(data) if isinstance(data, str) else data
        try:
            return record_to_item(record, require_reference=False)
        except _InvalidRecord as exc:
            raise DatasetFormatError(f"invalid item: {exc}") from None


class _InvalidRecord(ValueError):
    """One record is malformed (internal; wrapped with its line number)."""


def strip_boxed(text: str) -> str:
    r"""The content of the last ``\boxed{...}`` (or ``\fbox{...}``) in ``text``, else ``text``.

    Braces nest: ``"\boxed{\frac{1}{2}}"`` gives ``"\frac{1}{2}"``. Surrounding ``$`` and
    whitespace are dropped.

    Args:
        text: A MATH answer or solution.

    Returns:
        The boxed content, or the stripped text when nothing is boxed.
    """
    starts = [m.end() for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text)]
    for start in reversed(starts):
        depth = 1
        for pos in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[pos], 0)
            if depth == 0:
                return text[start:pos].strip()
    return text.strip().strip("$").strip()


def record_to_item(record: Any, *, require_reference: bool = True) -> Item:
    """Validate one question-set record and build its :class:`Item`.

    Args:
        record: A decoded JSON object in the question-set JSONL format.
        require_reference: Whether a missing ``reference`` is an error (else ``None``).

    Returns:
        The item, with its reference canonicalised.

    Raises:
        ValueError: The record is malformed; the message says what to fix.
    """
    if not isinstance(record, Mapping):
        raise _InvalidRecord(f"expected a JSON object {{...}}, got {type(record).__name__}")
    task = _task_of(record)
    choices = _choices_of(record, task)
    return Item(
        id=_id_of(record),
        question=_question_of(record),
        reference=_reference_of(record, task, choices, require_reference),
        task=task,
        choices=choices,
        metadata=_metadata_of(record),
    )


def _id_of(record: Mapping[str, Any]) -> str:
    value = record.get("id")
    if value is None:
        raise _InvalidRecord('missing required field "id": add a unique id such as "q-001"')
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _InvalidRecord(f'"id" must be a string or an integer, got {value!r}')
    text = str(value).strip()
    if not text:
        raise _InvalidRecord('"id" is empty: give every record a unique, non-empty id')
    return text


def _question_of(record: Mapping[str, Any]) -> str:
    if "question" not in record:
        raise _InvalidRecord('missing required field "question": add the question text')
    value = record["question"]
    if not isinstance(value, str) or not value.strip():
        raise _InvalidRecord('"question" must be a non-empty string')
    return value


def _task_of(record: Mapping[str, Any]) -> TaskKind:
    value = record.get("task", "number")
    if value not in TASKS:
        valid = ", ".join(f'"{t}"' for t in TASKS)
        raise _InvalidRecord(f'unknown task {value!r}: use one of {valid} (default "number")')
    return cast(TaskKind, value)


def _choices_of(record: Mapping[str, Any], task: TaskKind) -> tuple[str, ...] | None:
    value = record.get("choices")
    if value is None:
        return None
    if task != "choice":
        raise _InvalidRecord(
            f'"choices" given but task is "{task}": add "task": "choice" or drop "choices"'
        )
    if not isinstance(value, list) or not all(isinstance(c, str | int | float) for c in value):
        raise _InvalidRecord('"choices" must be a list of option texts, e.g. ["Mars", "Venus"]')
    if not 2 <= len(value) <= len(LETTERS):
        raise _InvalidRecord(
            f'"choices" has {len(value)} options: give 2 to {len(LETTERS)} (letters A-J)'
        )
    return tuple(str(c) for c in value)


def _reference_of(
    record: Mapping[str, Any],
    task: TaskKind,
    choices: tuple[str, ...] | None,
    required: bool,
) -> str | None:
    value = record.get("reference")
    if value is None:
        if required:
            raise _InvalidRecord(
                'missing required field "reference": add the right answer (needed to score)'
            )
        return None
    if task == "number":
        return _number_reference(value)
    if task == "choice":
        return _choice_reference(value, len(choices) if choices else len(LETTERS))
    if task == "math":
        return _math_reference(value)
    return _text_reference(value)


def _number_reference(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _InvalidRecord(f'"reference" {value!r} is not a number: give e.g. 42 or "3.5"')
    text = format(Decimal(repr(value)), "f") if isinstance(value, float) else str(value)
    canonical = canonicalize(text, "number")
    if canonical is None:
        raise _InvalidRecord(
            f'"reference" {value!r} is not a number: give e.g. 42 or "3.5", '
            'or set "task": "text" for a free-text answer'
        )
    return canonical


def _choice_reference(value: Any, num_choices: int) -> str:
    last = LETTERS[num_choices - 1]
    if isinstance(value, bool) or not isinstance(value, str):
        raise _InvalidRecord(
            f'"reference" {value!r} is not a choice letter: give the letter ("A" for the '
            f"first option, up to {last!r}), not an index or the option text"
        )
    match = _LETTER_RE.match(value)
    letter = match.group(1).upper() if match else None
    if letter is None or LETTERS.index(letter) >= num_choices:
        raise _InvalidRecord(
            f'"reference" {value!r} is not a valid letter for {num_choices} choices: '
            f"use one of A-{last}"
        )
    return letter


def _math_reference(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _InvalidRecord(
            f'"reference" {value!r} is not a math answer: give e.g. "\\frac{{1}}{{2}}"'
        )
    text = format(Decimal(repr(value)), "f") if isinstance(value, float) else str(value)
    canonical = canonicalize(strip_boxed(text), "math")
    if canonical is None:
        raise _InvalidRecord(f'"reference" {value!r} is empty once normalised: give the answer')
    return canonical


def _text_reference(value: Any) -> str:
    text = ("yes" if value else "no") if isinstance(value, bool) else str(value)
    canonical = canonicalize(text, "text")
    if canonical is None:
        raise _InvalidRecord(f'"reference" {value!r} is empty once normalised: give the answer')
    return canonical


def _metadata_of(record: Mapping[str, Any]) -> dict[str, Any]:
    explicit = record.get("metadata", {})
    if not isinstance(explicit, Mapping):
        raise _InvalidRecord('"metadata" must be a JSON object {...}')
    extras = {k: v for k, v in record.items() if k not in _KNOWN_FIELDS}
    return {**extras, **explicit}


def read_records(lines: Iterable[str], source: str, *, require_reference: bool) -> list[Item]:
    """Parse JSONL lines into items, collecting every error before raising."""
    items: list[Item] = []
    errors: list[str] = []
    first_line_of: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = record_to_item(json.loads(line), require_reference=require_reference)
        except json.JSONDecodeError as exc:
            errors.append(
                f"{source}, line {number}: not valid JSON ({exc.msg}, column {exc.colno})"
            )
            continue
        except RecursionError:
            errors.append(f"{source}, line {number}: JSON nested too deeply to be a record")
            continue
        except _InvalidRecord as exc:
            errors.append(f"{source}, line {number}: {exc}")
            continue
        if item.id in first_line_of:
            errors.append(
                f"{source}, line {number}: duplicate id {item.id!r} (first used on line "
                f"{first_line_of[item.id]}): make every id unique"
            )
            continue
        first_line_of[item.id] = number
        items.append(item)
    if errors:
        raise DatasetFormatError(_error_summary(source, errors))
    if not items:
        raise DatasetFormatError(f"{source}: no records (expected one JSON object per line)")
    return items


def _error_summary(source: str, errors: list[str]) -> str:
    """One line: the first few problems (the file named once), and how many there are."""
    first, *others = errors[:_MAX_ERRORS_SHOWN]
    shown = [first, *(e.removeprefix(f"{source}, ") for e in others)]
    if len(errors) == 1:
        return first
    more = len(errors) - len(shown)
    count = f"{len(errors)} problems" + (f", {more} more not shown" if more else "")
    return f"{'; '.join(shown)} ({count})"


def load_jsonl(path: str | os.PathLike[str], *, require_reference: bool = True) -> list[Item]:
    """Load a question set in the JSONL format described in this module's docstring.

    Args:
        path: A ``.jsonl`` file, or a gzip-compressed ``.jsonl.gz``.
        require_reference: Whether every record needs a ``reference`` (set ``False`` to
            load unlabelled questions, e.g. for a demo run without scoring).

    Returns:
        The items, in file order.

    Raises:
        DatasetFormatError: Some lines are malformed; the message lists each line number,
            the problem and the fix. Also a file that is not UTF-8 text or not gzip data.
        OSError: The file cannot be opened.
    """
    file = Path(path)
    return read_records(text_lines(file), str(file), require_reference=require_reference)


def save_jsonl(items: Iterable[Item], path: str | os.PathLike[str]) -> Path:
    """Write items in the question-set JSONL format (e.g. to freeze a sampled subset).

    Args:
        items: The items to write.
        path: The output file; parent folders are created.

    Returns:
        The path written.
    """
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    with file.open("w", encoding="utf-8") as out:
        for item in items:
            out.write(json.dumps(item.to_json(), ensure_ascii=False) + "\n")
    return file
