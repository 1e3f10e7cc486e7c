"""The Markdown report and plots written from a results directory."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from debategraph.eval.report.writer import PLOT_NAMES, read_results, write_report


def row(method: str, item: str, correct: bool, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "method": method,
        "id": item,
        "answer": "1" if correct else "2",
        "reference": "1",
        "correct": correct,
        "abstained": False,
        "input_tokens": 100,
        "output_tokens": 20,
        "calls": 2,
        "ncomm": 1,
        "rounds": 1,
        "wall_s": 0.5,
        "round_answers": [["1", "1"] if correct else ["2", "1"]],
        "source": "simulated",
        "dataset": "gsm8k",
    }
    return {**base, **fields}


def du_rows() -> list[dict[str, Any]]:
    # 10 scored items, 8 correct, one abstention; tokens 1,000 in + 200 out per item over
    # 6 calls; 6 NComm; 2 rounds; 1.5 s each. One extra failed item.
    rows = []
    for k in range(10):
        correct = k < 8
        rows.append(
            row(
                "du", f"q{k}", correct,
                answer=None if k == 9 else ("1" if correct else "2"),
                abstained=k == 9,
                input_tokens=1000, output_tokens=200, calls=6, ncomm=6, rounds=2, wall_s=1.5,
                round_answers=[["1", "2", "1"], ["1", "1", "1"] if correct else ["2", "2", "1"]],
                tokens_by_kind={
                    "answer": {"input_tokens": 900, "output_tokens": 150},
                    "summary": {"input_tokens": 100, "output_tokens": 50},
                },
            )
        )  # fmt: skip
    rows.append({"method": "du", "id": "q10", "error": "RateLimitError", "source": "simulated"})
    for r in rows:
        r.setdefault("dataset", "gsm8k")
    return rows


def write_jsonl(path: Path, rows: list[dict[str, Any]], tail: str = "") -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + tail, encoding="utf-8")


@pytest.fixture
def results(tmp_path: Path) -> Path:
    folder = tmp_path / "results"
    folder.mkdir()
    write_jsonl(folder / "du.jsonl", du_rows(), tail='{"method": "du", "id": "cut')
    write_jsonl(folder / "cot.jsonl", [row("cot", f"q{k}", k < 2) for k in range(4)])
    real = [row("du", f"q{k}", k < 3, source="real") for k in range(4)]
    write_jsonl(folder / "real.jsonl", real)
    (folder / "notes.txt").write_text("not a results file")
    return folder


def table_line(report: str, method: str, after: str) -> list[str]:
    """Cells of the first table line for ``method`` after the heading ``after``."""
    section = report.split(after, 1)[1]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and cells[0] == method:
            return cells
    raise AssertionError(f"no line for {method} after {after!r}")


def test_report_table_numbers(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report_path = write_report(results, out, plots=False)  # plots: their own test
    assert report_path == out / "report.md"
    report = report_path.read_text(encoding="utf-8")

    # du: 8/10 correct -> Wilson (49.0, 94.3) (see test_metrics); 1 abstention of 10;
    # 1,200 tokens/item; 1000/6 = 166.7 input tokens per call; 6 calls, 6 NComm, 2 rounds.
    # maj@3: the initial [1,2,1] vote says 1 on every item -> 100 %.
    assert table_line(report, "du", "## Simulated models: gsm8k") == [
        "du", "10", "80.0 (49.0–94.3)", "100.0 (k=3)", "10.0", "1,200", "", "166.7", "6.0", "6.0",
        "2.00", "1.50", "1",
    ]  # fmt: skip
    # cot: 2/4 -> Wilson (15.0, 85.0); 120 tokens/item; 100/2 = 50 input tokens per call.
    # maj@2: [1,1] -> 1 twice, [2,1] -> 2 (first-seen tie-break) twice -> 50 %.
    assert table_line(report, "cot", "## Simulated models: gsm8k") == [
        "cot", "4", "50.0 (15.0–85.0)", "50.0 (k=2)", "0.0", "120", "", "50.0", "2.0", "1.0",
        "1.00", "0.50", "0",
    ]  # fmt: skip
    # Real rows are a separate group, never mixed into the simulated table.
    assert table_line(report, "du", "## Real model outputs: gsm8k")[:3] == [
        "du", "4", "75.0 (30.1–95.4)",
    ]  # fmt: skip


def test_report_says_which_rows_are_simulated(results: Path) -> None:
    report = write_report(results, plots=False).read_text(encoding="utf-8")
    assert (
        "Rows by source: simulated models: 15 rows (cot, du); real model outputs: 4 rows (du)."
        in report
    )
    assert "test double" in report
    assert "1 failed item(s)" in report
    assert "19 result rows from 3 file(s): cot.jsonl, du.jsonl, real.jsonl" in report


def test_report_per_round_and_skipped_lines(results: Path) -> None:
    report = write_report(results, plots=False).read_text(encoding="utf-8")
    # du round 0: [1,2,1] for every item: majority 1 -> 100 %, never unanimous -> 0 %, 20 of
    # 30 answers right -> 66.7 %. Round 1: items 0-7 [1,1,1], items 8-9 [2,2,1]: majority
    # 80 %, consensus 80 %, 8*3 + 2*1 = 26 of 30 right -> 86.7 %. Flips: a2 2 -> 1 on items
    # 0-7 (wrong -> right 8), a1 1 -> 2 on items 8-9 (right -> wrong 2).
    section = report.split("Per round", 1)[1]
    for line in (
        "| du | majority accuracy % | 100.0 | 80.0 |",
        "| du | consensus % | 0.0 | 80.0 |",
        "| du | agents right % | 66.7 | 86.7 |",
        "| du | right → wrong | — | 2 |",
        "| du | wrong → right | — | 8 |",
        "| du | wrong → other wrong | — | 0 |",
        "| du | → abstain | — | 0 |",
    ):
        assert line in section, line
    assert "| cot |" not in section.split("\n\n")[1]  # cot never debated
    # Final 8/10 beside the vote of the same round-0 answers, 10/10: debating cost 20 points.
    assert table_line(report, "du", "Did debating help?") == [
        "du", "10", "80.0", "100.0", "-20.0", "2", "8", "1,200", "—",
    ]  # fmt: skip
    assert "## Lines left out (1)" in report
    assert "du.jsonl, line 12: not valid JSON" in report


def test_report_plots_exist_and_are_png(results: Path) -> None:
    report = write_report(results)
    for name in PLOT_NAMES:
        png = report.parent / name
        assert png.stat().st_size > 1000, name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({name})" in report.read_text(encoding="utf-8")


def test_summary_json_and_cost_column(results: Path, tmp_path: Path) -> None:
    prices = {"input": 1e-6, "output": 2e-6}
    report = write_report(results, tmp_path / "c", prices=prices, plots=False)
    text = report.read_text(encoding="utf-8")
    assert "Cost $/item" in text
    # du: 1000 * 1e-6 + 200 * 2e-6 = 0.0014 $ per item
    assert table_line(text, "du", "## Simulated")[-1] == "0.00140"
    summary = json.loads((report.parent / "summary.json").read_text())["groups"]
    assert summary[0]["source"] == "simulated"
    assert summary[0]["methods"]["du"]["correct"] == 8


def test_report_without_plots_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FileNotFoundError, match=r"no \*\.jsonl"):
        write_report(tmp_path)
    (tmp_path / "bad.jsonl").write_text("[1, 2]\n")
    with pytest.raises(ValueError, match="no readable result rows"):
        write_report(tmp_path)
    write_jsonl(tmp_path / "ok.jsonl", [row("cot", "q0", True, source="real")])
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match=r"debategraph\[plots\]"):
        write_report(tmp_path)
    report = write_report(tmp_path, plots=False).read_text(encoding="utf-8")
    assert "## Plots" not in report
    assert "bad.jsonl, line 1: not a JSON object" in report


def test_read_results_skips_unreadable_lines(results: Path) -> None:
    rows, problems = read_results(results)
    assert len(rows) == 19
    assert problems == ["du.jsonl, line 12: not valid JSON (Unterminated string starting at)"]


def test_report_shows_fallback_and_abstention_rates(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    rows = [
        row("du", "q0", True, answer_sources={"declared": 5, "fallback": 1, "none": 0}),
        row("du", "q1", False, answer_sources={"declared": 3, "fallback": 0, "none": 1}),
        row("cot", "q0", True),  # cot rows do not record answer sources: unknown
    ]
    write_jsonl(folder / "rows.jsonl", rows)
    report = write_report(folder, plots=False).read_text(encoding="utf-8")
    # du: 10 answer turns, 8 declared, 1 fallback, 1 without an answer, 2 of 2 rows known.
    assert table_line(report, "du", "Answer extraction") == [
        "du", "10", "80.0", "10.0", "10.0", "0", "2/2",
    ]  # fmt: skip
    assert table_line(report, "cot", "Answer extraction") == ["cot", "—", "—", "—", "—", "—", "0/1"]
    summary = json.loads((folder / "summary.json").read_text())["groups"]
    assert summary[0]["methods"]["du"]["fallback_rate"] == 0.1
    assert summary[0]["methods"]["cot"]["fallback_rate"] is None


def test_report_without_answer_sources_has_no_extraction_table(results: Path) -> None:
    assert "Answer extraction" not in write_report(results, plots=False).read_text("utf-8")


def test_a_wrongly_typed_figure_leaves_its_line_out_naming_file_line_and_field(
    tmp_path: Path,
) -> None:
    """A figure row_problem does not check (``wall_s``) once ended the report with an error."""
    folder = tmp_path / "run"
    folder.mkdir()
    good = {"method": "cot", "id": "q1", "answer": "4", "reference": "4", "correct": True,
            "input_tokens": 10, "output_tokens": 5, "calls": 1,
            "round_answers": [["4"]]}  # fmt: skip
    lines = [
        good,
        {**good, "id": "q2", "wall_s": "slow"},
        {**good, "id": "q3", "turns": [{"round": "one"}]},
    ]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    report = write_report(folder, plots=False).read_text(encoding="utf-8")
    assert "The figures rest on 1 row(s); 2 line(s) were left out (2 malformed)." in report
    assert "results.jsonl, line 2: Expected `float`, got `str` - at `$.wall_s`" in report
    assert "results.jsonl, line 3: Expected `int`, got `str` - at `$.turns[0].round`" in report
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["rows"]["left_out"] == {"malformed": 2}


def test_rows_are_checked_against_the_runs_question_set(tmp_path: Path) -> None:
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    out = tmp_path / "run"
    evaluate(arithmetic_items(3, seed=1), [Arm("cot", "cot")], out, dataset="arithmetic")
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    wrong = {**first, "id": "arith-1-1", "calls": "two"}
    extra = [
        json.dumps({**first, "correct": True}),  # a duplicate that would raise accuracy
        json.dumps({**first, "id": "foreign-7"}),
        json.dumps({**first, "method": "ghost"}),
        json.dumps(wrong),
    ]
    with (out / "results.jsonl").open("ab") as f:
        f.write(("\n".join(extra) + "\n").encode() + b"\xff\xfe not utf-8\n")
    report = write_report(out, plots=False).read_text(encoding="utf-8")
    assert "The figures rest on 3 row(s); 5 line(s) were left out" in report
    for where in ("line 4: cot/arith-1-0 repeats results.jsonl, line 1",
                  "line 5: item 'foreign-7' is not in this run",
                  "line 6: method 'ghost' is not an arm",
                  "line 7: Expected `int`, got `str` - at `$.calls`",
                  "line 8: not UTF-8 text"):  # fmt: skip
        assert f"results.jsonl, {where}" in report
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rows"]["used"] == 3
    assert summary["rows"]["left_out"] == {
        "duplicate": 1, "foreign id": 1, "foreign method": 1, "malformed": 1, "not utf-8": 1,
    }  # fmt: skip
    (row_,) = [r for r in summary["groups"][0]["methods"].values()]
    assert row_["n"] == 3


def test_methods_at_one_point_share_one_label() -> None:
    from debategraph.eval.report.plots import point_labels

    # report --decision: the same debates re-decided cost the same tokens; two rules agree.
    at = {"du [majority]": (1200.0, 0.8), "du [freemad]": (1200.0, 0.7),
          "du [reconcile]": (1200.0, 0.8), "cot": (100.0, 0.5)}  # fmt: skip
    labelled = [(k, {"total_tokens_per_item": x, "accuracy": a}) for k, (x, a) in at.items()]
    assert point_labels(labelled) == {
        (1200.0, 80.0): "1,3",
        (1200.0, 70.0): "2",
        (100.0, 50.0): "4",
    }
