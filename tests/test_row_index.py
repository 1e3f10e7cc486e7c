"""The byte-offset index beside ``results.jsonl``: made once, re-made when the file changes,
never trusted blindly."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from debategraph.eval.log.row_index import (
    RowIndex,
    StaleIndexError,
    item_rows,
    places_of_item,
)


def row(method: str, item: str, seed: int | None = None, **more: object) -> dict:
    seeded = {} if seed is None else {"seed": seed}
    return {
        "method": method, "id": item, **seeded, "answer": "1", "correct": True,
        "input_tokens": 1, "output_tokens": 1, "calls": 1, "round_answers": [["1"]], **more,
    }  # fmt: skip


def write(path: Path, rows: list[object]) -> None:
    lines = [r if isinstance(r, str) else json.dumps(r, separators=(",", ":")) for r in rows]
    path.write_text("".join(line + "\n" for line in lines))


def test_the_index_finds_each_rows_line_and_keeps_lines_that_hold_no_row(tmp_path):
    results = tmp_path / "results.jsonl"
    spaced = json.dumps(row("cot", "q\t2"))  # not compact: decoded whole, still found
    write(results, [row("du", "q-1", 0), spaced, "{not json", row("du", "q-1", 1)])
    index = RowIndex.of(results)
    assert [(p.method, p.item, p.seed, p.line) for p in index.places] == [
        ("du", "q-1", 0, 1), ("cot", "q\t2", None, 2), ("du", "q-1", 1, 4),
    ]  # fmt: skip
    assert [(q.line, q.reason.split(" (")[0]) for q in index.problems] == [(3, "not valid JSON")]
    data = results.read_bytes()
    for place in index.places:
        assert json.loads(data[place.offset : place.offset + place.length])["id"] == place.item
    assert (tmp_path / "results.jsonl.index").is_file()
    kept = RowIndex.of(results)  # read back from the file
    assert kept.places == index.places and kept.problems == index.problems


def test_an_item_is_found_without_reading_other_rows_and_after_an_append(tmp_path):
    results = tmp_path / "results.jsonl"
    write(results, [row("du", "q-1"), row("du", "q-2"), row("cot", "q-1")])
    assert [r.method for r in item_rows(tmp_path, "q-1")] == ["du", "cot"]
    with results.open("a") as file:  # a resumed run appends: size and mtime change
        file.write(json.dumps(row("sc", "q-1"), separators=(",", ":")) + "\n")
    assert [r.method for r in item_rows(tmp_path, "q-1")] == ["du", "cot", "sc"]
    assert item_rows(tmp_path, "q-9") == []


def test_a_row_that_does_not_carry_its_indexed_key_is_caught_and_the_index_made_again(tmp_path):
    results = tmp_path / "results.jsonl"
    write(results, [row("du", "q-1"), row("du", "q-2")])
    RowIndex.of(results)
    info = results.stat()
    swapped = results.read_text().replace('"q-1"', '"q-3"').replace('"q-2"', '"q-1"')
    results.write_text(swapped)  # same size; the stamp put back as it was
    os.utime(results, ns=(info.st_atime_ns, info.st_mtime_ns))
    index, places = places_of_item(results, "q-1")
    with pytest.raises(StaleIndexError), results.open("rb") as file:
        index.row_at(places[0], file)
    assert [r.id for r in item_rows(tmp_path, "q-1")] == ["q-1"]  # re-made, then right


def test_a_directory_that_cannot_be_written_keeps_its_index_in_memory(tmp_path):
    results = tmp_path / "results.jsonl"
    write(results, [row("du", "q-1")])
    tmp_path.chmod(0o555)
    try:
        if os.access(tmp_path, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        assert [r.id for r in item_rows(tmp_path, "q-1")] == ["q-1"]
        assert not (tmp_path / "results.jsonl.index").exists()
    finally:
        tmp_path.chmod(0o755)


def test_a_damaged_index_file_is_made_again_not_trusted(tmp_path):
    results = tmp_path / "results.jsonl"
    write(results, [row("du", "q-1"), "{not json", row("du", "q-2")])
    RowIndex.of(results)
    kept = tmp_path / "results.jsonl.index"
    header, *rest = kept.read_bytes().split(b"\n")
    kept.write_bytes(b"\n".join([header, b'!x\t"bad"', *rest]))  # a problem line gone wrong
    index = RowIndex.of(results)  # no ValueError: read afresh
    assert [(q.line, q.reason.split(" (")[0]) for q in index.problems] == [(2, "not valid JSON")]
    assert [r.id for r in item_rows(tmp_path, "q-2")] == ["q-2"]


def test_a_row_whose_seed_is_not_next_to_its_id_is_found_with_its_seed(tmp_path):
    results = tmp_path / "results.jsonl"
    rest = {k: v for k, v in row("du", "q-1").items() if k not in ("method", "id")}
    moved = {"method": "du", "id": "q-1", "dataset": "x", "seed": 1, **rest}
    write(results, [row("du", "q-1", 0), moved])  # both compact, as eval writes lines
    assert [(p.method, p.item, p.seed) for p in RowIndex.of(results).places] == [
        ("du", "q-1", 0), ("du", "q-1", 1),
    ]  # fmt: skip
    assert [r.seed for r in item_rows(tmp_path, "q-1")] == [0, 1]


def test_a_seed_inside_the_settings_is_no_rows_seed_and_a_top_level_one_later_is(
    tmp_path, monkeypatch
):
    from debategraph.eval.log import row_index

    results = tmp_path / "results.jsonl"
    nested = row("du", "q-1", settings={"seed": 7, "rounds": 2})  # a run without --seeds
    moved = {**row("du", "q-2", settings={"seed": 7}), "seed": 3}  # hand-edited: seed last
    write(results, [nested, moved])
    decoded: list[bytes] = []
    whole = row_index.decode_row

    def counted(raw: bytes) -> object:
        decoded.append(raw)
        return whole(raw)

    monkeypatch.setattr(row_index, "decode_row", counted)
    index = RowIndex.made(results)
    assert [(p.item, p.seed) for p in index.places] == [("q-1", None), ("q-2", 3)]
    assert len(decoded) == 1 and b'"q-2"' in decoded[0]  # only the edited line decoded whole
