"""``debategraph show`` cuts long fields of a hostile stored row, with a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.policies.terminal import SECRET_MARGIN, cut_text
from debategraph.transcript import CELL_CHARS, QUESTION_CHARS, TEXT_CHARS

runner = CliRunner()


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("show") / "run"
    args = ["eval", "--method", "cot", "--dataset", "arithmetic", "--limit", "1", "--quiet"]
    done = runner.invoke(app, [*args, "--out", str(out)])
    assert done.exit_code == 0, done.output
    return out, json.loads((out / "results.jsonl").read_text())


def hostile(stored: tuple[Path, dict], **fields: object) -> tuple[Path, str]:
    out, row = stored
    row = json.loads(json.dumps(row))
    turn = {**row["turns"][0], **dict(fields.pop("turn", {}))}  # type: ignore[call-overload]
    row = {**row, **fields, "turns": [turn]}
    (out / "results.jsonl").write_text(json.dumps(row) + "\n")
    return out, row["id"]


def test_cut_text_keeps_the_head_counts_the_rest_and_redacts_before_cutting() -> None:
    assert cut_text("abc", 3) == "abc"
    assert cut_text("abcdefghij" * 300, 10) == "abcdefghij … [2,990 more characters cut]"
    secret = "sk-" + "q" * 40
    text = "x" * 8 + secret + "y" * 100_000
    assert cut_text(text, 20, lambda t: t.replace(secret, "[redacted]")) == (
        "xxxxxxxx[redacted]yy … [100,031 more characters cut]"
    )
    calls: list[int] = []
    cut_text("z" * 10**6, 50, lambda t: calls.append(len(t)) or t)
    assert calls == [50 + SECRET_MARGIN]  # a 1 MB field is not redacted whole


def test_a_huge_answer_and_question_are_cut_with_a_note(stored: tuple[Path, dict]) -> None:
    answer, question = "9" * 200_000, "How many? " * 200_000  # 2 MB
    text = "because " * 5_000
    out, item = hostile(
        stored, answer=answer, question=question, turn={"answer": answer, "text": text}
    )
    shown = runner.invoke(app, ["show", str(out), item, "--show-text"], env={"COLUMNS": "400"})
    assert shown.exit_code == 0, shown.output
    printed = shown.stdout
    assert f"{1_998_000:,} more characters cut" in printed  # the question
    cell = "9" * CELL_CHARS + f" … [{200_000 - CELL_CHARS:,} more characters cut]"
    assert printed.count(cell) == 2  # the turn's answer and the decision
    assert "9" * (CELL_CHARS + 1) not in printed
    assert f"{40_000 - TEXT_CHARS:,} more characters cut" in printed  # the reply text
    assert len(printed) < QUESTION_CHARS + TEXT_CHARS + 20_000
    whole = runner.invoke(app, ["show", str(out), item, "--json"])
    assert json.loads(whole.stdout)["question"] == question  # --json keeps every character


def test_markup_in_a_stored_reference_or_kind_is_shown_as_written(
    stored: tuple[Path, dict],
) -> None:
    out, item = hostile(stored, reference="[bold]7[/bold]" + "1" * 500, turn={"kind": "[red]x"})
    shown = runner.invoke(app, ["show", str(out), item])
    assert shown.exit_code == 0, shown.output
    assert "reference: [bold]7[/bold]" in shown.stdout and "characters cut" in shown.stdout
