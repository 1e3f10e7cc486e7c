r"""Question sets for evaluation.

The bundled GSM8K split and Du et al.'s arithmetic task load offline; your own question sets
load from JSONL; MMLU, MMLU-Pro, ARC-Challenge, MATH-500 and StrategyQA load through the
Hugging Face ``datasets`` library for users with network access.

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

Sampling
--------
:func:`load_dataset` picks items the same way for every method: ``ids`` selects exactly
those items in that order; otherwise ``limit`` with ``seed`` draws a seeded sample without
replacement (the first ``limit`` items of a ``random.Random(seed)`` permutation), returned in
the dataset's original order. With the same dataset, ``limit`` and ``seed``, every method is
evaluated on the same items; raising ``limit`` keeps the items of a smaller sample.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, cast, get_args

from debategraph.policies.answers import canonicalize
from debategraph.policies.types import TaskKind

TASKS: tuple[str, ...] = get_args(TaskKind)
"""The valid ``task`` values."""

LETTERS = "ABCDEFGHIJ"
"""Choice letters; at most ten options (MMLU-Pro has ten)."""

ARITHMETIC_DEFAULT_SIZE = 100
"""Items generated for ``arithmetic`` when no ``limit`` is given (Du et al. used 100)."""

INSTALL_HINT = "pip install 'debategraph[datasets]'"
_KNOWN_FIELDS = frozenset({"id", "question", "reference", "task", "choices", "metadata"})
_LETTER_RE = re.compile(r"^\s*\(?\s*([A-Ja-j])\s*\)?\s*$")
_MAX_ERRORS_SHOWN = 20


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


class DatasetFormatError(ValueError):
    """A question set is malformed; the message names each bad line and how to fix it."""


class _InvalidRecord(ValueError):
    """One record is malformed (internal; wrapped with its line number)."""


# --------------------------------------------------------------------------- validation


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


# --------------------------------------------------------------------------- JSONL files


def _read_records(lines: Iterable[str], source: str, *, require_reference: bool) -> list[Item]:
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
    shown = errors[:_MAX_ERRORS_SHOWN]
    more = len(errors) - len(shown)
    lines = [f"{len(errors)} problem(s) in {source}:", *shown]
    if more:
        lines.append(f"... and {more} more")
    return "\n".join(lines)


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
            the problem and the fix.
    """
    file = Path(path)
    opener = gzip.open if file.suffix == ".gz" else open
    with opener(file, "rt", encoding="utf-8") as lines:
        return _read_records(lines, str(file), require_reference=require_reference)


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


# --------------------------------------------------------------------------- offline sets

GSM8K_RESOURCE = "gsm8k_test.jsonl.gz"


@cache
def _bundled_gsm8k() -> tuple[Item, ...]:
    resource = resources.files("debategraph.data").joinpath(GSM8K_RESOURCE)
    with resource.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        return tuple(
            _read_records(lines, f"debategraph/data/{GSM8K_RESOURCE}", require_reference=True)
        )


def load_gsm8k_bundled() -> list[Item]:
    """The GSM8K test split vendored with the package (1,319 items, MIT licence).

    Ids are ``gsm8k-test-0000`` ... in the split's order. The metadata holds the worked
    ``rationale`` and ``model_solutions``: four real GPT-3 solutions (6B and 175B,
    fine-tuned and verifier-selected) with ``is_correct`` labels.

    Returns:
        The items, task ``"number"``.
    """
    return list(_bundled_gsm8k())


def arithmetic_items(n: int, seed: int = 0) -> list[Item]:
    """Du et al.'s arithmetic task: ``a+b*c+d-e*f`` with six integers drawn from [0, 30).

    Integers are drawn in order with ``random.Random(seed).randrange(30)``, so the first
    ``k`` items of a larger set equal ``arithmetic_items(k, seed)``.

    Args:
        n: How many items.
        seed: Generator seed; it is part of every id (``"arith-<seed>-<i>"``).

    Returns:
        The items, task ``"number"``; metadata holds ``expression`` and ``operands``.

    Raises:
        ValueError: ``n`` is negative.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = random.Random(seed)
    items = []
    for i in range(n):
        a, b, c, d, e, f = (rng.randrange(30) for _ in range(6))
        expression = f"{a}+{b}*{c}+{d}-{e}*{f}"
        items.append(
            Item(
                id=f"arith-{seed}-{i}",
                question=f"What is the result of {expression}?",
                reference=str(a + b * c + d - e * f),
                task="number",
                metadata={"expression": expression, "operands": [a, b, c, d, e, f]},
            )
        )
    return items


# --------------------------------------------------------------------------- hub rows


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


def _letter(index: int, num_choices: int, where: str) -> str:
    if not 0 <= index < num_choices:
        raise ValueError(f"{where}: answer index {index} is outside the {num_choices} options")
    return LETTERS[index]


def _require(row: Mapping[str, Any], keys: Sequence[str], where: str) -> None:
    missing = [k for k in keys if k not in row]
    if missing:
        raise ValueError(f"{where}: row lacks field(s) {missing}; has {sorted(row)}")


def gsm8k_row_to_item(row: Mapping[str, Any], index: int, *, split: str = "test") -> Item:
    """Convert an ``openai/gsm8k`` (``main``) row: ``question``, ``answer`` (``"... #### 18"``).

    Args:
        row: The hub row.
        index: Position in the split; ids match the bundled split (``gsm8k-test-0000``).
        split: The split name, part of the id.

    Returns:
        A ``number`` item; metadata holds the worked ``rationale`` (calculator marks removed).

    Raises:
        ValueError: The row lacks a field or a ``#### <number>`` final answer.
    """
    where = f"GSM8K row {index}"
    _require(row, ("question", "answer"), where)
    rationale, marker, final = str(row["answer"]).rpartition("####")
    reference = canonicalize(final, "number") if marker else None
    if reference is None:
        raise ValueError(f"{where}: answer has no final '#### <number>'")
    return Item(
        id=f"gsm8k-{split}-{index:04d}",
        question=row["question"],
        reference=reference,
        task="number",
        metadata={"rationale": re.sub(r"<<[^>]*>>", "", rationale).strip()},
    )


def mmlu_row_to_item(row: Mapping[str, Any], index: int, *, split: str = "test") -> Item:
    """Convert a ``cais/mmlu`` row: ``question``, ``subject``, ``choices``, ``answer`` (0-3).

    Args:
        row: The hub row (``answer`` is the class index; a letter is accepted too).
        index: Position in the split, part of the id (``mmlu-test-00000``).
        split: The split name, part of the id.

    Returns:
        A ``choice`` item; metadata holds ``subject``.

    Raises:
        ValueError: The row lacks a field or its answer is out of range.
    """
    where = f"MMLU row {index}"
    _require(row, ("question", "choices", "answer"), where)
    choices = tuple(str(c) for c in row["choices"])
    answer = row["answer"]
    position = LETTERS.index(answer.upper()) if isinstance(answer, str) else int(answer)
    return Item(
        id=f"mmlu-{split}-{index:05d}",
        question=row["question"],
        reference=_letter(position, len(choices), where),
        task="choice",
        choices=choices,
        metadata={"subject": row.get("subject", "")},
    )


def mmlu_pro_row_to_item(row: Mapping[str, Any], index: int) -> Item:
    """Convert a ``TIGER-Lab/MMLU-Pro`` row.

    Fields: ``question_id``, ``question``, ``options`` (up to 10), ``answer`` (a letter),
    ``answer_index``, ``cot_content``, ``category``, ``src``.

    Args:
        row: The hub row.
        index: Position in the split (used when ``question_id`` is missing).

    Returns:
        A ``choice`` item with id ``mmlu-pro-<question_id>``; metadata holds ``category``,
        ``src`` and ``question_id``.

    Raises:
        ValueError: The row lacks a field, or ``answer`` and ``answer_index`` disagree.
    """
    where = f"MMLU-Pro row {index}"
    _require(row, ("question", "options", "answer"), where)
    choices = tuple(str(c) for c in row["options"])
    reference = _letter(LETTERS.index(str(row["answer"]).strip().upper()), len(choices), where)
    answer_index = row.get("answer_index")
    if answer_index is not None and LETTERS[int(answer_index)] != reference:
        raise ValueError(
            f"{where}: answer {reference!r} disagrees with answer_index {answer_index}"
        )
    question_id = row.get("question_id", index)
    return Item(
        id=f"mmlu-pro-{question_id}",
        question=row["question"],
        reference=reference,
        task="choice",
        choices=choices,
        metadata={
            "question_id": question_id,
            "category": row.get("category", ""),
            "src": row.get("src", ""),
        },
    )


def arc_row_to_item(row: Mapping[str, Any], index: int) -> Item:
    """Convert an ``allenai/ai2_arc`` row: ``id``, ``question``, ``choices``, ``answerKey``.

    ``choices`` is ``{"text": [...], "label": [...]}``. Labels are usually ``A``-``E`` but
    some rows use ``1``-``4``; the key is looked up among the labels and re-lettered by
    position, so agents always see options A, B, C, ...

    Args:
        row: The hub row.
        index: Position in the split (used when ``id`` is missing).

    Returns:
        A ``choice`` item with id ``arc-<id>``; metadata holds the original ``labels`` and
        ``answer_key``.

    Raises:
        ValueError: The row lacks a field or its answer key is not among the labels.
    """
    where = f"ARC row {index}"
    _require(row, ("question", "choices", "answerKey"), where)
    labels = [str(label).strip() for label in row["choices"]["label"]]
    texts = tuple(str(t) for t in row["choices"]["text"])
    key = str(row["answerKey"]).strip()
    if key not in labels or len(labels) != len(texts):
        raise ValueError(f"{where}: answerKey {key!r} is not one of the labels {labels}")
    arc_id = row.get("id", str(index))
    return Item(
        id=f"arc-{arc_id}",
        question=row["question"],
        reference=_letter(labels.index(key), len(texts), where),
        task="choice",
        choices=texts,
        metadata={"arc_id": arc_id, "labels": labels, "answer_key": key},
    )


def math_row_to_item(row: Mapping[str, Any], index: int, *, prefix: str = "math500") -> Item:
    r"""Convert a MATH row (``HuggingFaceH4/MATH-500`` or the original MATH layout).

    MATH-500 rows have ``problem``, ``solution``, ``answer``, ``subject``, ``level`` and
    ``unique_id``; original MATH rows have no ``answer``, so the last ``\boxed{}`` of the
    solution is used. The reference is the ``math`` canonical key of the answer (signs,
    operators and structure kept), and answers are graded against it by symbolic
    equivalence (:func:`debategraph.policies.answers.answers_match`).

    Args:
        row: The hub row.
        index: Position in the split, part of the id (``math500-000``).
        prefix: Id prefix.

    Returns:
        A ``math`` item; metadata holds ``answer_raw``, ``solution``, ``subject``, ``level``
        and ``unique_id`` when present.

    Raises:
        ValueError: The row lacks a problem or an answer.
    """
    where = f"MATH row {index}"
    _require(row, ("problem",), where)
    raw = row.get("answer") or strip_boxed(str(row.get("solution", "")))
    reference = canonicalize(strip_boxed(str(raw)), "math")
    if reference is None:
        raise ValueError(f"{where}: no answer (neither 'answer' nor a boxed solution)")
    keep = ("solution", "subject", "level", "type", "unique_id")
    return Item(
        id=f"{prefix}-{index:03d}",
        question=row["problem"],
        reference=reference,
        task="math",
        metadata={"answer_raw": raw, **{k: row[k] for k in keep if k in row}},
    )


def strategyqa_row_to_item(row: Mapping[str, Any], index: int) -> Item:
    """Convert a StrategyQA row (``ChilleD/StrategyQA``): ``qid``, ``question``, ``answer``.

    Args:
        row: The hub row; ``answer`` is a bool (``"yes"``/``"true"`` strings are accepted).
        index: Position in the split (used when ``qid`` is missing).

    Returns:
        A ``text`` item with reference ``"yes"`` or ``"no"`` and id ``strategyqa-<qid>``;
        metadata holds ``qid`` and, when present, ``term``, ``description`` and ``facts``.

    Raises:
        ValueError: The row lacks a field or its answer is not yes/no.
    """
    where = f"StrategyQA row {index}"
    _require(row, ("question", "answer"), where)
    answer = row["answer"]
    if isinstance(answer, str) and answer.strip().lower() in {"yes", "true", "no", "false"}:
        answer = answer.strip().lower() in {"yes", "true"}
    if not isinstance(answer, bool):
        raise ValueError(f"{where}: answer {answer!r} is not a yes/no value")
    qid = row.get("qid", str(index))
    keep = ("term", "description", "facts")
    return Item(
        id=f"strategyqa-{qid}",
        question=row["question"],
        reference="yes" if answer else "no",
        task="text",
        metadata={"qid": qid, **{k: row[k] for k in keep if k in row}},
    )


# --------------------------------------------------------------------------- hub fetches


def _hub_rows(path: str, config: str | None, split: str) -> list[dict[str, Any]]:
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


def load_gsm8k_hub(split: str = "test") -> list[Item]:
    """GSM8K from the hub (``openai/gsm8k``, ``main``). Offline, use :func:`load_gsm8k_bundled`.

    Args:
        split: ``"test"`` or ``"train"``.

    Returns:
        The items.
    """
    rows = _hub_rows("openai/gsm8k", "main", split)
    return [gsm8k_row_to_item(row, i, split=split) for i, row in enumerate(rows)]


def load_mmlu(split: str = "test") -> list[Item]:
    """MMLU, all 57 subjects (``cais/mmlu``, ``all``).

    Args:
        split: ``"test"``, ``"validation"`` or ``"dev"``.

    Returns:
        The items.
    """
    rows = _hub_rows("cais/mmlu", "all", split)
    return [mmlu_row_to_item(row, i, split=split) for i, row in enumerate(rows)]


def load_mmlu_pro(split: str = "test") -> list[Item]:
    """MMLU-Pro (``TIGER-Lab/MMLU-Pro``), up to ten options per question.

    Args:
        split: ``"test"`` or ``"validation"``.

    Returns:
        The items.
    """
    rows = _hub_rows("TIGER-Lab/MMLU-Pro", None, split)
    return [mmlu_pro_row_to_item(row, i) for i, row in enumerate(rows)]


def load_arc_challenge(split: str = "test") -> list[Item]:
    """ARC-Challenge (``allenai/ai2_arc``, ``ARC-Challenge``).

    Args:
        split: ``"test"``, ``"validation"`` or ``"train"``.

    Returns:
        The items.
    """
    rows = _hub_rows("allenai/ai2_arc", "ARC-Challenge", split)
    return [arc_row_to_item(row, i) for i, row in enumerate(rows)]


def load_math500(split: str = "test") -> list[Item]:
    """MATH-500 (``HuggingFaceH4/MATH-500``), graded by symbolic equivalence (``math`` task).

    Args:
        split: ``"test"`` (the only split).

    Returns:
        The items.
    """
    rows = _hub_rows("HuggingFaceH4/MATH-500", None, split)
    return [math_row_to_item(row, i) for i, row in enumerate(rows)]


def load_strategyqa(split: str = "test") -> list[Item]:
    """StrategyQA yes/no questions (``ChilleD/StrategyQA``).

    Args:
        split: ``"test"`` or ``"train"``.

    Returns:
        The items.
    """
    rows = _hub_rows("ChilleD/StrategyQA", None, split)
    return [strategyqa_row_to_item(row, i) for i, row in enumerate(rows)]


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class DatasetInfo:
    """A named question set of :func:`load_dataset`.

    Attributes:
        description: One line for ``--help`` and docs.
        task: The answer kind of its items.
        offline: Whether it loads without network access.
        loader: Loads every item (``None`` for ``arithmetic`` and ``jsonl``, which take
            arguments and are handled by :func:`load_dataset`).
    """

    description: str
    task: TaskKind
    offline: bool
    loader: Callable[[], list[Item]] | None = None


def _info(description: str, task: TaskKind, loader: Callable[[], list[Item]] | None) -> DatasetInfo:
    offline = loader is None or loader is load_gsm8k_bundled
    return DatasetInfo(description=description, task=task, offline=offline, loader=loader)


DATASETS: dict[str, DatasetInfo] = {
    "gsm8k": _info(
        "GSM8K test split bundled with the package (1,319 items, MIT)", "number", load_gsm8k_bundled
    ),
    "arithmetic": _info("Du et al.'s a+b*c+d-e*f task, generated from the seed", "number", None),
    "jsonl": _info("your own question set in the JSONL format (needs path)", "number", None),
    "gsm8k-hub": _info("GSM8K test from the hub (openai/gsm8k, main)", "number", load_gsm8k_hub),
    "mmlu": _info("MMLU test, all subjects (cais/mmlu, all)", "choice", load_mmlu),
    "mmlu-pro": _info("MMLU-Pro test (TIGER-Lab/MMLU-Pro)", "choice", load_mmlu_pro),
    "arc-challenge": _info("ARC-Challenge test (allenai/ai2_arc)", "choice", load_arc_challenge),
    "math500": _info("MATH-500 (HuggingFaceH4/MATH-500)", "math", load_math500),
    "strategyqa": _info("StrategyQA test, yes/no (ChilleD/StrategyQA)", "text", load_strategyqa),
}
"""Every dataset name :func:`load_dataset` accepts."""


def read_ids(path: str | os.PathLike[str]) -> list[str]:
    """Read an id list: one id per line; blank lines and ``#`` comments are skipped.

    Args:
        path: The id file.

    Returns:
        The ids, in file order.
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


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
        return _select_ids(items, _wanted_ids(ids) or [])
    if limit is None or limit >= len(items):
        return list(items)
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    return [items[i] for i in sorted(order[:limit])]


def _select_ids(items: Sequence[Item], wanted: list[str]) -> list[Item]:
    by_id = {item.id: item for item in items}
    repeated = sorted(i for i, count in Counter(wanted).items() if count > 1)
    if repeated:
        raise ValueError(f"ids repeated in the id list: {', '.join(repeated)}")
    unknown = [i for i in wanted if i not in by_id]
    if unknown:
        shown = ", ".join(repr(i) for i in unknown[:_MAX_ERRORS_SHOWN])
        extra = len(unknown) - _MAX_ERRORS_SHOWN
        more = f" and {extra} more" if extra > 0 else ""
        example = f" (ids look like {items[0].id!r})" if items else ""
        raise ValueError(f"{len(unknown)} unknown id(s): {shown}{more}{example}")
    return [by_id[i] for i in wanted]


def _arithmetic_pool(limit: int | None, seed: int, wanted: list[str] | None) -> list[Item]:
    """Arithmetic items covering ``wanted`` ids (any seed), else ``limit`` items of ``seed``."""
    if wanted is None:
        return arithmetic_items(ARITHMETIC_DEFAULT_SIZE if limit is None else limit, seed)
    needed: dict[int, int] = {}
    for item_id in wanted:
        match = re.fullmatch(r"arith-(-?\d+)-(\d+)", item_id)
        if match:
            item_seed, index = int(match.group(1)), int(match.group(2))
            needed[item_seed] = max(needed.get(item_seed, 0), index + 1)
    return [item for s, n in needed.items() for item in arithmetic_items(n, s)]


def load_dataset(
    name: str,
    *,
    limit: int | None = None,
    seed: int = 0,
    ids: Sequence[str] | str | os.PathLike[str] | None = None,
    path: str | os.PathLike[str] | None = None,
) -> list[Item]:
    """Load a named dataset and pick the evaluation subset (see :func:`select_items`).

    For ``arithmetic`` the items are generated: ``limit`` (default 100) items from ``seed``;
    ``ids`` such as ``"arith-3-7"`` regenerate exactly those items.

    Args:
        name: A key of :data:`DATASETS`.
        limit: Sample size (all items when ``None``).
        seed: Sample seed; the same seed gives every method the same items.
        ids: Exactly these ids in this order (a list, or a file with one id per line).
        path: The question-set file, for ``jsonl`` only.

    Returns:
        The selected items.

    Raises:
        ValueError: Unknown dataset name, a missing or misplaced ``path``, unknown ids.
        DatasetFormatError: The ``jsonl`` file is malformed.
        ImportError: A hub dataset without the ``datasets`` extra installed.
    """
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; valid names: {', '.join(DATASETS)}")
    if ids is not None and limit is not None:
        raise ValueError("give either ids or limit, not both")
    if path is not None and name != "jsonl":
        raise ValueError(f"path is only used by dataset 'jsonl', not {name!r}")
    wanted = _wanted_ids(ids)
    if name == "arithmetic":
        pool = _arithmetic_pool(limit, seed, wanted)
        return pool if wanted is None else _select_ids(pool, wanted)
    return select_items(_load_pool(name, path), limit=limit, seed=seed, ids=wanted)


def _wanted_ids(ids: Sequence[str] | str | os.PathLike[str] | None) -> list[str] | None:
    if ids is None:
        return None
    return read_ids(ids) if isinstance(ids, str | os.PathLike) else list(ids)


def _load_pool(name: str, path: str | os.PathLike[str] | None) -> list[Item]:
    if name == "jsonl":
        if path is None:
            raise ValueError("dataset 'jsonl' needs path=<your question set .jsonl>")
        return load_jsonl(path)
    loader = DATASETS[name].loader
    if loader is None:
        raise ValueError(f"dataset {name!r} has no loader")
    return loader()
