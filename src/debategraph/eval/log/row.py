"""The results row and the turn inside it: declared once, written and read through here.

``eval`` writes one JSON line per debate (a finished one's :class:`Row`, or a failed one's:
the same type with ``error`` set), and every reader decodes the line through this module.
The row is a :mod:`msgspec` ``Struct`` (``bench/RESULTS-row-types.md`` measures it against
dataclasses, TypedDict and pydantic): decoding checks each field's type. A report decodes
with :data:`FIGURES`: each turn into a :class:`TurnFigures`, the few fields a report reads,
the decoder skipping the rest (texts, reasoning, prompts) without building them.

A field a row may lack (a seed outside ``--seeds``, spend without a meter, a gate's verdict,
the fields of a failed row) defaults to ``UNSET``: it is left out of the written line, so
the line is what earlier releases wrote, and a row read back keeps exactly the fields its
line had. Fields are declared in the order ``eval`` writes them.

A line edited by hand or written by another tool may hold ``null`` where the declaration
wants a value (``"wall_s": null``): such a field reads as absent. A field of another type is
refused, naming it (``Expected `float`, got `str` - at `$.wall_s```), except where the reader
asks for ``lenient`` reading (resuming a run and counting its spend read such a line's key,
status and tokens, so that a finished debate is neither dropped nor paid for again).

A row and its turns are read by attribute (``row.correct``, ``opt(row.seed)``,
``turn.round``), so mypy checks every reader; they are no mappings, and no module outside
this one reads a row's field by its name as a string (``tests/test_row_rule.py`` scans for
it). A reader that wants the JSON object ``eval`` wrote takes :func:`row_dict`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final, Generic, TypeVar

import msgspec
import msgspec.structs
from msgspec import UNSET, UnsetType

ANSWER_SOURCES: Final = ("declared", "fallback", "none", "cut_off")
"""How a turn's answer was found: stated in the reply's answer line, found elsewhere in the
reply, not found (an abstention), or not found because the reply ended inside the model's
thinking (``cut_off``, also an abstention)."""


class Turn(msgspec.Struct, kw_only=True, gc=False):
    """One turn of a stored debate, as ``eval`` writes it (fields in written order).

    Attributes:
        id: The turn's id, e.g. ``r1:a2``.
        agent: The agent's name.
        round: The round (0 is the first answer).
        kind: ``answer``, ``judge``, ``summary`` or another step of the method.
        answer: The answer the turn gave, ``None`` when it abstained.
        answer_source: How the answer was found (one of :data:`ANSWER_SOURCES`).
        confidence: The confidence the reply stated, if any.
        reads: The turns it read.
        input_tokens: Prompt tokens.
        output_tokens: Reply tokens (reasoning included).
        cached_input_tokens: Prompt tokens read from the provider's cache, where stated.
        reasoning_tokens: Reply tokens spent thinking, where the provider states them.
        reasoning_field: The message field the thinking came in, where it came in one.
        usage_estimated: The tokens are estimated (the model reported none).
        cached: Answered from debategraph's response cache.
        latency_s: Seconds the call took.
        model: The model's label.
        label: The agent's label, where the method gives one.
        logprobs: The answer's log-probabilities, where kept.
        ballot: The agent's ballot, in methods that vote by ballot.
        text: The reply (left out with ``eval --no-texts``).
        reasoning: The model's thinking, where it returned any (left out with
            ``--no-texts``, as the text is).
        prompt: The last user message the model was sent (``eval --prompts``).
        attempts: How many times the call was tried, where a row records it (more than 1
            after retries; ``eval`` does not write it, rows written by hand or by another
            tool may, and the Inspect export and SID-ET's lone answer read it).
    """

    id: str | UnsetType = UNSET
    agent: str | UnsetType = UNSET
    round: int | UnsetType = UNSET
    kind: str | UnsetType = UNSET
    answer: Any = UNSET
    answer_source: str | UnsetType | None = UNSET
    confidence: float | UnsetType | None = UNSET
    reads: list[Any] | UnsetType = UNSET
    input_tokens: int | UnsetType = UNSET
    output_tokens: int | UnsetType = UNSET
    cached_input_tokens: int | UnsetType | None = UNSET
    reasoning_tokens: int | UnsetType | None = UNSET
    reasoning_field: str | UnsetType | None = UNSET
    usage_estimated: bool | UnsetType = UNSET
    cached: bool | UnsetType = UNSET
    latency_s: float | UnsetType | None = UNSET
    model: str | UnsetType | None = UNSET
    label: Any = UNSET
    logprobs: Any = UNSET
    ballot: Any = UNSET
    text: str | UnsetType | None = UNSET
    reasoning: str | UnsetType | None = UNSET
    prompt: Any = UNSET
    attempts: int | UnsetType = UNSET


class TurnFigures(msgspec.Struct, kw_only=True, gc=False):
    """What a report reads of a :class:`Turn`: who, when, kind, reads, answer, source, tokens.

    The decoder skips the turn's other fields (its text, reasoning and prompt among them)
    without building them. Read its fields as attributes (``turn.round``), as a
    :class:`Turn`'s.
    """

    id: str | UnsetType = UNSET
    agent: str | UnsetType = UNSET
    round: int | UnsetType = UNSET
    kind: str | UnsetType = UNSET
    reads: list[Any] | UnsetType = UNSET
    answer: Any = UNSET
    answer_source: str | UnsetType | None = UNSET
    input_tokens: int | UnsetType = UNSET
    output_tokens: int | UnsetType = UNSET


T = TypeVar("T", Turn, TurnFigures)
V = TypeVar("V")


class Row(msgspec.Struct, Generic[T], kw_only=True):
    """One evaluated debate: what the report, comparisons, Pareto, the bill and ``show`` read.

    A failed debate's row has ``error`` (and ``failed_at``) and no figures. Every field
    is described in :mod:`debategraph.eval.analysis.metrics`.
    """

    method: str
    id: str | int
    seed: int | UnsetType = UNSET
    dataset: str | UnsetType = UNSET
    source: str | UnsetType = UNSET
    answer: Any = UNSET
    reference: Any = UNSET
    error: str | UnsetType = UNSET
    correct: bool | UnsetType = UNSET
    span_scores: dict[str, float] | UnsetType = UNSET
    accepted: list[str] | UnsetType = UNSET
    abstained: bool | UnsetType = UNSET
    input_tokens: int | UnsetType = UNSET
    output_tokens: int | UnsetType = UNSET
    calls: int | UnsetType = UNSET
    cached_calls: int | UnsetType = UNSET
    cached_input_tokens: int | UnsetType = UNSET
    reasoning_tokens: int | UnsetType = UNSET
    usage_by_source: dict[str, dict[str, Any]] | UnsetType = UNSET
    ncomm: int | UnsetType = UNSET
    rounds: int | UnsetType = UNSET
    agents: int | UnsetType = UNSET
    parse_failures: int | UnsetType = UNSET
    wall_s: float | UnsetType = UNSET
    failed_at: str | UnsetType = UNSET
    round_answers: list[list[Any]] | UnsetType = UNSET
    round_confidences: list[list[Any]] | UnsetType = UNSET
    agent_models: list[Any] | UnsetType = UNSET
    tokens_by_kind: dict[str, dict[str, int]] | UnsetType = UNSET
    task: str | UnsetType = UNSET
    answer_sources: dict[str, int] | UnsetType = UNSET
    settings: dict[str, Any] | UnsetType = UNSET
    question: Any = UNSET
    choices: list[Any] | UnsetType | None = UNSET
    agent_names: list[Any] | UnsetType = UNSET
    cut_off: list[Any] | UnsetType = UNSET
    adversaries: dict[str, Any] | UnsetType = UNSET
    decision: dict[str, Any] | UnsetType | None = UNSET
    turns: list[T] | UnsetType = UNSET
    method_state: dict[str, Any] | UnsetType = UNSET
    budget_of: str | UnsetType | None = UNSET
    budget: Any = UNSET
    gate: Any = UNSET
    requests: int | UnsetType = UNSET
    failed_requests: int | UnsetType = UNSET
    wasted_input_tokens: int | UnsetType = UNSET
    wasted_output_tokens: int | UnsetType = UNSET
    throttled_s: float | UnsetType = UNSET
    screen: dict[str, Any] | UnsetType = UNSET


ROW_FIELDS: Final = frozenset(Row.__struct_fields__)
"""The names of a row's fields."""

TURN_FIELDS: Final = frozenset(Turn.__struct_fields__)
"""The names of a turn's fields."""

FULL: Final = msgspec.json.Decoder(Row[Turn])
"""Decodes a row with every turn's text (``show``, exports, rescoring)."""

FIGURES: Final = msgspec.json.Decoder(Row[TurnFigures])
"""Decodes a row without what its turns' models wrote (reports and statistics)."""

_ENCODER: Final = msgspec.json.Encoder()


class RowError(ValueError):
    """A line is not a results row: its message says what is wrong."""


def decode_row(line: bytes, *, texts: bool = True, lenient: bool = False) -> Row[Any]:
    """The row of one JSONL line, checked against the declaration.

    A ``null`` where the declaration wants a value reads as an absent field (module docs).

    Args:
        line: One line of a results file.
        texts: Also decode the turns' texts, reasoning and prompts.
        lenient: Also read an optional field of the wrong type as absent.

    Raises:
        msgspec.DecodeError: Not JSON.
        RowError: JSON, but a field has the wrong type or a required one is missing.
    """
    try:
        return (FULL if texts else FIGURES).decode(line)
    except msgspec.ValidationError as exc:
        refused = exc
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        raise RowError(str(refused)) from None
    if not isinstance(value, dict):
        raise RowError(str(refused))
    return _checked(value, Row[Turn] if texts else Row[TurnFigures], lenient)


def row_dict(row: Row[Any]) -> dict[str, Any]:
    """The row as the JSON object ``eval`` writes: its set fields, in declared order."""
    fields: dict[str, Any] = msgspec.to_builtins(row, enc_hook=_plain)
    return fields


def _plain(value: object) -> object:
    """A subclass of a JSON type (a model's text accessor is a ``str``) as its base type."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int | float):
        return float(value) if isinstance(value, float) else int(value)
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"a row cannot hold a {type(value).__name__}")


RECORD_FIELDS: Final = frozenset(
    {"settings", "decision", "method_state", "question", "choices", "adversaries", "cut_off"}
)
"""What a row keeps of the debate itself, for ``show``, exports and re-deciding: no figure of
a report reads them."""


def figures(row: Row[Any]) -> Row[Any]:
    """``row`` with :data:`RECORD_FIELDS` unset (in place): what a report holds per row.

    It stays a :class:`Row` (a tenth of the memory of its JSON object), read by attribute.
    """
    for name in RECORD_FIELDS:
        setattr(row, name, UNSET)
    return row


def new_row(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A row to write, made and checked through the declaration.

    A field whose name starts with ``_`` is the runner's own note, never written: it passes
    through unchecked, after the declared ones.

    Args:
        fields: The row's fields by name.

    Returns:
        The row as the JSON object ``eval`` writes.

    Raises:
        TypeError: A field of the row or of one of its turns is not declared.
        msgspec.ValidationError: A field's value has the wrong type.
    """
    private = {name: value for name, value in fields.items() if name.startswith("_")}
    unknown = set(fields) - ROW_FIELDS - set(private)
    for turn in fields.get("turns") or ():
        unknown |= {f"turns[].{name}" for name in set(turn) - TURN_FIELDS}
    if unknown:
        raise TypeError(f"undeclared row field(s): {', '.join(sorted(unknown))}")
    public = {name: value for name, value in fields.items() if name not in private}
    return row_dict(msgspec.convert(public, Row[Turn])) | private


def opt(value: V | UnsetType) -> V | None:
    """A field's value, ``None`` where the row lacks it: ``opt(row.seed)``.

    Read a field as ``row.name`` where a falsy value and an absent one mean the same
    (``row.calls or 0``, ``bool(row.correct)``); ``opt`` where they differ (seed 0).
    """
    return None if value is UNSET else value


def as_row(row: Row[Any] | Mapping[str, Any], *, lenient: bool = False) -> Row[Any]:
    """``row`` as a :class:`Row`: a row passes through, a JSON object is checked into one.

    Fields starting with ``_`` (the runner's own notes) and undeclared ones are dropped; a
    ``null`` where the declaration wants a value reads as an absent field (module docs).

    Args:
        row: A row, or its JSON object (not changed).
        lenient: Also read an optional field of the wrong type as absent.

    Raises:
        RowError: A field has the wrong type or a required one is missing.
    """
    if isinstance(row, Row):
        return row
    return _checked(row, Row[Turn], lenient)


def _checked(value: Any, kind: Any, lenient: bool) -> Row[Any]:
    """``value`` converted to ``kind`` (a ``Row[...]``), repairing refusals as ``as_row`` says."""
    while True:
        try:
            row: Row[Any] = msgspec.convert(value, kind, str_keys=True)
            return row
        except msgspec.ValidationError as exc:
            repaired = _without_refused(value, str(exc), lenient)
            if repaired is None:
                raise RowError(str(exc)) from None
            value = repaired


_REFUSED_AT: Final = re.compile(r" - at `\$((?:\.[^.\[`]+|\[\d+\]|\[\.\.\.\])+)`$")
_STEP: Final = re.compile(r"\.([^.\[`]+)|\[(\d+|\.\.\.)\]")
_REQUIRED: Final = frozenset({"method", "id"})
_IDENTITY: Final = frozenset({"seed", "dataset", "source"})
"""With the required fields, what tells one row from another: repaired only where null."""


def _without_refused(value: Any, message: str, lenient: bool) -> Any | None:
    """``value`` without the field a refusal names (copied along its path), or ``None``.

    A field of the row or of one of its turns: ``null`` there (or, ``lenient``, any value) is
    dropped. Inside another list or mapping field (an answer in ``round_answers``, a count in
    ``answer_sources``), ``lenient`` drops that whole field. Never repaired: a required field,
    a field of the row's identity that is not null, a turn that is no object, a refusal with
    no path.
    """
    found = _REFUSED_AT.search(message)
    if found is None:
        return None
    path: list[str | int] = [
        key if key else (-1 if index == "..." else int(index))
        for key, index in _STEP.findall(found.group(1))
    ]
    if path[0] in _REQUIRED:
        return None
    in_turn = len(path) == 3 and path[0] == "turns" and isinstance(path[2], str)
    if len(path) > 1 and not in_turn:
        if not lenient or path[0] == "turns":
            return None
        path = path[:1]
    top = dict(value)
    parent: Any = top
    if in_turn:
        turns, at = list(top["turns"]), int(path[1])
        top["turns"] = turns
        parent = turns[at] = dict(turns[at])
    leaf = path[-1]
    null = parent.get(leaf, 0) is None
    if not null and (not lenient or leaf in _IDENTITY):
        return None
    parent.pop(leaf, None)
    return top


def encode_row(row: Row[Any]) -> bytes:
    """The JSON of ``row`` (no newline)."""
    return _ENCODER.encode(row)
