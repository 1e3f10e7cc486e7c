"""Dataset mistakes are refused before any call, each as one line that names the file."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.datasets import DatasetFormatError, load_dataset, load_jsonl, read_ids

from .openai_server import serve

runner = CliRunner()
EVAL = ["eval", "--method", "cot", "--quiet"]
GOOD = b'{"id": "q1", "question": "What is 3 + 4?", "reference": 7}\n'


def refused(args: list[str], out: Path) -> str:
    """The one error line of a refused eval; nothing was written to ``out``."""
    result = runner.invoke(app, [*EVAL, *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert not out.exists()
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("name", ["", " "])
def test_an_empty_dataset_name_is_refused_not_read_as_gsm8k(tmp_path: Path, name: str) -> None:
    line = refused(["--dataset", name, "--limit", "1"], tmp_path / "out")
    assert "dataset name is empty" in line and "gsm8k, arithmetic" in line


def test_a_sweep_file_with_an_empty_dataset_is_refused(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text('dataset = ""\nlimit = 1\n[arms.cot]\nmethod = "cot"\n')
    result = runner.invoke(app, ["eval", "--config", str(sweep), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "dataset name is empty" in result.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("ids", ["", ",,,", " , "])
def test_an_id_list_that_names_no_item_is_refused_before_out_exists(
    tmp_path: Path, ids: str
) -> None:
    line = refused(["--ids", ids], tmp_path / "out")
    assert line == (
        f"error: --ids {ids!r} names no item: give id1,id2,... or a file with one id per line "
        "(or leave --ids out for every item)"
    )


@pytest.mark.parametrize("text", ["", "\n# only a comment\n\n"])
def test_an_id_file_without_ids_is_refused(tmp_path: Path, text: str) -> None:
    file = tmp_path / "ids.txt"
    file.write_text(text)
    line = refused(["--ids", str(file)], tmp_path / "out")
    assert (
        line == f"error: the id file {file} lists no ids: put one id per line (# starts a comment)"
    )
    with pytest.raises(ValueError, match="lists no ids"):
        load_dataset("gsm8k", ids=file)
    with pytest.raises(ValueError, match="id list is empty"):
        load_dataset("gsm8k", ids=[])


def test_a_latin1_question_set_names_the_file_and_the_byte_offset(tmp_path: Path) -> None:
    file = tmp_path / "latin1.jsonl"
    file.write_bytes(
        GOOD + '{"id": "q2", "question": "Café: 2 + 2?", "reference": 4}\n'.encode("latin-1")
    )
    offset = len(GOOD) + len(b'{"id": "q2", "question": "Caf')
    line = refused(["--dataset", "jsonl", "--path", str(file)], tmp_path / "out")
    assert line == (
        f"error: {file}: not UTF-8 text: byte 0xe9 at byte offset {offset} (line 2); "
        "save the file as UTF-8"
    )


def test_a_latin1_id_file_and_sweep_file_name_the_file(tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_bytes(b"gsm8k-test-0001\ncaf\xe9\n")
    with pytest.raises(
        DatasetFormatError, match=r"ids.txt: not UTF-8 text: byte 0xe9 at byte offset 19 \(line 2\)"
    ):
        read_ids(ids)
    assert "ids.txt: not UTF-8" in refused(["--ids", str(ids)], tmp_path / "out")
    sweep = tmp_path / "s.toml"
    sweep.write_bytes(b'dataset = "gsm8k"\n# caf\xe9\n[arms.cot]\nmethod = "cot"\n')
    result = runner.invoke(app, ["eval", "--config", str(sweep), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == f"error: {sweep}: not UTF-8 text (byte offset 23); save it as UTF-8"
    )


def test_damaged_or_cut_gzip_files_are_one_line_naming_the_file(tmp_path: Path) -> None:
    packed = gzip.compress(GOOD * 200)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(packed[: len(packed) // 2])  # EOFError: once taken for Ctrl-C
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_bytes(b"not gzip at all")
    for file in (cut, fake):
        line = refused(["--dataset", "jsonl", "--path", str(file)], tmp_path / "out")
        assert line.startswith(f"error: {file}: not a readable gzip file (")
        with pytest.raises(DatasetFormatError, match="not a readable gzip file"):
            load_jsonl(file)


def test_a_gzip_file_that_is_not_utf8_counts_bytes_of_the_decompressed_text(
    tmp_path: Path,
) -> None:
    file = tmp_path / "q.jsonl.gz"
    file.write_bytes(gzip.compress(GOOD + b'{"id": "q2", "question": "\xff"}\n'))
    with pytest.raises(DatasetFormatError) as info:
        load_jsonl(file)
    offset = len(GOOD) + len(b'{"id": "q2", "question": "')
    assert str(info.value) == (
        f"{file}: not UTF-8 text: byte 0xff at byte offset {offset} (decompressed) (line 2); "
        "save the file as UTF-8"
    )


def test_a_byte_order_mark_is_not_a_json_error(tmp_path: Path) -> None:
    file = tmp_path / "bom.jsonl"
    file.write_bytes(b"\xef\xbb\xbf" + GOOD)
    assert [item.id for item in load_jsonl(file)] == ["q1"]


@pytest.mark.parametrize(
    ("path", "says"),
    [("missing.jsonl", "No such file or directory"), (".", "Is a directory"), ("", None)],
)
def test_a_question_set_that_cannot_be_opened_is_named(
    tmp_path: Path, path: str, says: str | None
) -> None:
    line = refused(["--dataset", "jsonl", "--path", path], tmp_path / "out")
    if says is None:
        assert line == "error: path is empty: give your question set's .jsonl file"
    else:
        assert line == f"error: cannot read {path}: {says}"


def test_refused_dataset_settings_send_no_request(tmp_path: Path, loopback: None) -> None:
    with serve() as server:
        model = ["--model", "sim-0", "--base-url", server.base_url]
        for args in (["--dataset", "", "--limit", "1"], ["--ids", ",,,"], ["--ids", ""]):
            refused([*model, *args], tmp_path / "out")
        assert server.stats()["chat_requests"] == 0
