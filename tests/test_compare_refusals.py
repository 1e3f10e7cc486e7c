"""``report --compare``: a pair that compares nothing is refused in one ``error:`` line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from debategraph.cli import app


def row(method: str, item: str, correct: bool, **fields: Any) -> dict[str, Any]:
    answer = "4" if correct else "5"
    return {
        "method": method, "id": item, "answer": answer, "reference": "4", "correct": correct,
        "abstained": False, "dataset": "arithmetic", "input_tokens": 10, "output_tokens": 5,
        "calls": 1, "round_answers": [[answer, answer], [answer, answer]], **fields,
    }  # fmt: skip


@pytest.fixture
def results(tmp_path: Path) -> Path:
    rows = [row("du", f"q{i}", i % 2 == 0) for i in range(4)]
    rows += [row("cot", f"q{i}", True, round_answers=[["4"]]) for i in range(4)]
    rows += [row("sc", f"x{i}", True, round_answers=[["4"]]) for i in range(3)]
    rows += [row("mad", f"q{i}", False, error="boom") for i in range(4)]
    (tmp_path / "results.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return tmp_path


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("du:du", "error: --compare du:du names one arm twice; name two different arms (A:B)"),
        ("du:nope", "error: no arm named 'nope' in these rows; arms present: du, cot, sc, mad"),
        ("du:sc", "error: --compare du:sc: no item was finished by both arms"),
        ("cot:mad", "error: --compare cot:mad: no item was finished by both arms"),
    ],
)
def test_a_pair_that_compares_nothing_is_one_error_line(results, pair, message):
    result = CliRunner().invoke(app, ["report", str(results), "--no-plots", "--compare", pair])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(message), result.output
    assert not (results / "report.md").exists()


def test_the_round_zero_vote_of_the_same_debate_is_a_different_arm(results):
    result = CliRunner().invoke(
        app, ["report", str(results), "--no-plots", "--compare", "du:du@r0"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((results / "summary.json").read_text())
    assert [(c["a"], c["b"], c["n"]) for c in summary["comparisons"]] == [("du", "du · vote@r0", 4)]
