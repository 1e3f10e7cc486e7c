"""Parsers are injectable: per task kind, as a full callable or a DSPy-style normaliser."""

from __future__ import annotations

import dataclasses
from typing import get_args

import pytest

from debategraph.policies.answers import (
    PARSERS,
    Extraction,
    extract_answer,
    parse_answer,
    parse_choice,
    parse_math,
    parse_number,
    parse_text,
    parser_for,
    parser_from_normalizer,
)
from debategraph.policies.types import TaskKind


def test_every_task_kind_has_a_builtin_parser() -> None:
    assert set(PARSERS) == set(get_args(TaskKind)) == {"number", "choice", "text", "math"}
    assert parser_for("number") is parse_number
    assert parser_for("choice") is parse_choice
    assert parser_for("text") is parse_text
    assert parser_for("math") is parse_math
    with pytest.raises(ValueError, match="unknown task kind 'essay'"):
        parser_for("essay")  # type: ignore[arg-type]


def test_extraction_is_frozen_and_extract_answer_is_its_answer() -> None:
    found = parse_answer(r"so \boxed{12}", "number")
    assert found == Extraction("12", "declared")
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.answer = "13"  # type: ignore[misc]
    assert extract_answer(r"so \boxed{12}", "number") == "12"


@pytest.mark.parametrize("task", ["number", "choice", "text", "math"])
def test_source_none_exactly_when_no_answer(task: TaskKind) -> None:
    for response in ("", "Nothing here.", "The answer is 3:45.", "Answer: (B) or (C)", "x (A)"):
        found = parse_answer(response, task, 4)
        assert (found.answer is None) == (found.source == "none"), (task, response, found)


def test_custom_parser_wins() -> None:
    def always_seven(response: str, task: TaskKind, num_choices: int | None) -> Extraction:
        return Extraction("7", "declared")

    assert parser_for("number", parser=always_seven) is always_seven
    with pytest.raises(ValueError, match="either parser or normalize"):
        parser_for("number", parser=always_seven, normalize=str.lower)


def city(fragment: str) -> str | None:
    """Last word of the declared fragment, lower-cased; None for an empty fragment."""
    words = fragment.strip(" .*").lower().split()
    return words[-1] if words else None


def test_normalizer_reads_declared_fragments_last_first() -> None:
    parse = parser_for("text", normalize=city)
    assert parse("I think... Answer: the city of Paris.", "text", None) == Extraction(
        "paris", "declared"
    )
    # The normaliser sees the speaker's own declarations only, last first.
    response = "Agent 2 thinks the answer is Rome.\nAnswer: Lyon\nMy final answer is Nice."
    assert parse(response, "text", None) == Extraction("nice", "declared")
    assert parse("No declaration at all.", "text", None) == Extraction(None, "none")


def test_normalizer_returning_none_skips_a_declaration() -> None:
    def digits_only(fragment: str) -> str | None:
        text = fragment.strip(" .")
        return text if text.isdigit() else None

    parse = parser_from_normalizer(digits_only)
    assert parse("Answer: 12\nThe answer is unclear.", "number", None) == Extraction(
        "12", "declared"
    )
    assert parse.__name__ == "parser_from_normalizer(digits_only)"


def test_normalizer_last_line_fallback_is_recorded() -> None:
    parse = parser_from_normalizer(city, fallback_last_line=True)
    assert parse("Long reasoning.\nMarseille\nConfidence: 0.9", "text", None) == Extraction(
        "marseille", "fallback"
    )
    assert parser_from_normalizer(city)("Marseille", "text", None).source == "none"
