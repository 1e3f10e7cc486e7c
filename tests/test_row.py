"""The results row's declaration: rows written and read through it, old files still read."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import msgspec
import pytest
from msgspec import UNSET

from debategraph.eval.analysis.results import load_rows
from debategraph.eval.log.row import (
    ANSWER_SOURCES,
    ROW_FIELDS,
    TURN_FIELDS,
    RowError,
    Turn,
    decode_row,
    encode_row,
    new_row,
    row_dict,
)

STORED = Path(__file__).parents[1] / "docs" / "results" / "gsm8k" / "runs"
TURN = {"id": "r0:a1", "agent": "a1", "round": 0, "kind": "answer", "answer": "7"}
ROW = {"method": "du", "id": "q1", "answer": "7", "correct": True, "input_tokens": 5}
ROW |= {"output_tokens": 2, "calls": 1, "round_answers": [["7"]]}


@pytest.mark.parametrize("run", ["real", "simulated"])
def test_stored_rows_read_back_as_written(run: str) -> None:
    for line in (STORED / run / "results.jsonl").read_bytes().splitlines()[:300]:
        written = json.loads(line)
        row = decode_row(line)
        assert row_dict(row) == written and list(row_dict(row)) == list(written)
        assert json.loads(encode_row(row)) == written


def test_a_row_keeps_exactly_the_fields_its_line_had() -> None:
    row = decode_row(json.dumps(ROW).encode())
    assert list(row_dict(row)) == list(ROW)
    assert row.seed is msgspec.UNSET and row.correct is True and row.calls == 1


def test_figures_leave_out_what_the_models_wrote() -> None:
    turn = {**TURN, "text": "x" * 50, "reasoning": "thinking", "prompt": "p", "latency_s": 0.5}
    line = json.dumps({**ROW, "turns": [turn]}).encode()
    full, figures = decode_row(line), decode_row(line, texts=False)
    assert row_dict(full)["turns"] == [turn]
    kept = {k: TURN[k] for k in ("id", "agent", "round", "kind", "answer") if k in TURN}
    assert row_dict(figures)["turns"] == [kept]  # no text, thinking, prompt or latency
    assert isinstance(full.turns[0], Turn) and full.turns[0].reasoning == "thinking"
    turn = figures.turns[0]
    assert turn.round == 0 and turn.answer_source is msgspec.UNSET
    assert turn.kind == TURN["kind"] and turn.input_tokens is msgspec.UNSET
    assert not hasattr(turn, "text")


def test_a_row_and_its_turns_are_no_mappings() -> None:
    row = decode_row(json.dumps({**ROW, "turns": [TURN]}).encode())
    for value in (row, row.turns[0], decode_row(json.dumps(ROW).encode(), texts=False)):
        assert not isinstance(value, Mapping)
        assert not hasattr(value, "get") and not hasattr(value, "keys")
        with pytest.raises(TypeError):
            value["method"]  # type: ignore[index]


def test_reasoning_and_cut_off_are_declared() -> None:
    assert {"reasoning", "text", "prompt", "reasoning_tokens"} <= TURN_FIELDS
    assert ANSWER_SOURCES == ("declared", "fallback", "none", "cut_off")
    turn = {**TURN, "answer": None, "answer_source": "cut_off", "reasoning": "so far"}
    assert new_row({**ROW, "turns": [turn]})["turns"] == [turn]


def test_a_wrong_type_or_an_undeclared_field_is_refused() -> None:
    with pytest.raises(RowError, match=r"Expected `int`, got `str` - at `\$.calls`"):
        decode_row(json.dumps({**ROW, "calls": "one"}).encode())
    with pytest.raises(TypeError, match="undeclared row field"):
        new_row({**ROW, "colour": "red"})
    with pytest.raises(TypeError, match=r"turns\[\]\.colour"):
        new_row({**ROW, "turns": [{**TURN, "colour": "red"}]})
    assert "colour" not in ROW_FIELDS


def test_a_runners_private_field_passes_through_unwritten_fields_in_order() -> None:
    made = new_row({"_note": {"n": 1}, **ROW, "seed": 3})
    assert list(made) == [*ROW_ORDER, "_note"] and made["_note"] == {"n": 1}


ROW_ORDER = ["method", "id", "seed", "answer", "correct", "input_tokens", "output_tokens"]
ROW_ORDER += ["calls", "round_answers"]


def test_rows_of_release_0_1_still_read(tmp_path: Path) -> None:
    """0.1 wrote figures but not the debate (no question, turns or source)."""
    old = {**ROW, "reference": "7", "rounds": 0, "agents": 1, "ncomm": 0, "wall_s": 0.1}
    odd = {**old, "id": "q2", "rounds": None}  # a null where a value belongs: absent
    wrong = {**old, "id": "q3", "rounds": "none"}  # another type: left out, named
    text = "".join(json.dumps(row) + "\n" for row in (old, odd, wrong))
    (tmp_path / "results.jsonl").write_text(text)
    loaded = load_rows(tmp_path, texts=False)
    absent = {name: value for name, value in odd.items() if name != "rounds"}
    assert [row_dict(row) for row in loaded.rows] == [old, absent]
    assert loaded.problems == ["results.jsonl, line 3: Expected `int`, got `str` - at `$.rounds`"]


def test_every_list_of_row_fields_names_declared_fields() -> None:
    """The field lists kept elsewhere (what the summary reads, what a row must have, what
    show needs, what pricing reads of a turn) name only fields the declaration has."""
    from debategraph.eval.log.row import TurnFigures
    from debategraph.eval.log.rows import SHOWN_FIELDS
    from debategraph.eval.log.store import _FAILED_FIELDS, _FINISHED_FIELDS
    from debategraph.eval.run.budget import TURN_FIELDS as PRICED_TURN_FIELDS
    from debategraph.eval.run.runner import PROGRESS_FIELDS, SUMMARY_FIELDS
    from debategraph.policies.accounting import DETAIL_FIELDS
    from debategraph.result import TURN_FIELDS as WRITTEN_TURN_FIELDS

    for fields in (SUMMARY_FIELDS, PROGRESS_FIELDS, SHOWN_FIELDS, DETAIL_FIELDS):
        assert set(fields) <= ROW_FIELDS, set(fields) - ROW_FIELDS
    assert set(_FINISHED_FIELDS) | set(_FAILED_FIELDS) <= ROW_FIELDS
    for fields in (PRICED_TURN_FIELDS, WRITTEN_TURN_FIELDS, DETAIL_FIELDS):
        assert set(fields) <= TURN_FIELDS, set(fields) - TURN_FIELDS
    assert set(TurnFigures.__struct_fields__) <= TURN_FIELDS


def test_opt_tells_an_absent_field_from_a_falsy_one() -> None:
    from debategraph.eval.log.row import as_row, opt

    row = as_row({"method": "du", "id": 1, "seed": 0, "correct": False})
    assert opt(row.seed) == 0
    assert opt(row.dataset) is None
    assert opt(row.correct) is False
    assert (row.calls or 0) == 0


def test_as_row_checks_a_json_object_and_keeps_a_row() -> None:
    import pytest

    from debategraph.eval.log.row import RowError, as_row

    row = as_row({"method": "du", "id": "q1", "_spend_covers": {}, "turns": [{"round": 1}]})
    assert as_row(row) is row
    assert row.turns and row.turns[0].round == 1
    with pytest.raises(RowError, match=r"\$\.calls"):
        as_row({"method": "du", "id": 1, "calls": "three"})


def test_a_null_where_a_value_belongs_reads_as_absent_and_the_object_is_not_changed() -> None:
    from debategraph.eval.log.row import as_row

    edited = {**ROW, "wall_s": None, "turns": [{**TURN, "latency_s": None, "round": None}]}
    row = as_row(edited)
    assert row.wall_s is UNSET and row.turns and row.turns[0].round is UNSET
    assert row.turns[0].latency_s is None  # a turn's latency may be null
    assert edited["turns"][0]["round"] is None and edited["wall_s"] is None
    assert decode_row(json.dumps(edited).encode(), texts=False).wall_s is UNSET


def test_lenient_reading_drops_a_field_of_another_type_but_never_the_key() -> None:
    from debategraph.eval.log.row import as_row

    wrong = {**ROW, "calls": "n/a", "turns": [{**TURN, "input_tokens": "x"}]}
    with pytest.raises(RowError, match=r"Expected `int`, got `str` - at `\$.calls`"):
        as_row(wrong)
    row = as_row(wrong, lenient=True)
    assert row.calls is UNSET and row.turns and row.turns[0].input_tokens is UNSET
    assert row.correct is ROW["correct"]
    for broken in ({**ROW, "id": None}, {**ROW, "method": 3}):
        with pytest.raises(RowError, match=r"\$\.(id|method)"):
            as_row(broken, lenient=True)


def test_rounds_of_different_sizes_are_named_and_left_out(tmp_path: Path) -> None:
    uneven = {**ROW, "id": "q2", "round_answers": [["7", "7"], ["7"]]}
    text = "".join(json.dumps(row) + "\n" for row in (ROW, uneven))
    (tmp_path / "results.jsonl").write_text(text)
    loaded = load_rows(tmp_path, texts=False)
    assert [row.id for row in loaded.rows] == ["q1"]
    assert loaded.problems == [
        "results.jsonl, line 2: 'round_answers' has rounds of 2, 1 answers "
        "(every round has one per agent)"
    ]
