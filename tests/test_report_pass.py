"""The report's one pass over the rows gives what the row-holding functions give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from debategraph.eval.analysis.comparisons import paired_comparisons
from debategraph.eval.analysis.pareto import group_points
from debategraph.eval.analysis.report_pass import GroupTally, ReportPass
from debategraph.eval.analysis.results import build_groups, load_rows
from debategraph.eval.report.writer import write_report
from tests.test_arm_groups import SIM, row


def mixed_rows() -> list[dict[str, Any]]:
    """An arm whose old rows call a replayed simulated debate real, beside simulated ones."""
    rows = [
        row("s2mad", "q0", "simulated", SIM),
        row("s2mad", "q1", "real", SIM),
        {"method": "s2mad", "id": "q2", "dataset": "gsm8k", "error": "RuntimeError: x"},
        row("du", "q0", "real", ["openai:gpt-4o-mini"]),
        row("du", "q1", "real", None),
        row("du", "q0", "simulated", SIM),
    ]
    rows[1]["correct"] = False
    for found in rows[:2]:
        found["round_answers"] = [["1", "2"]]
    for found in rows[3:]:
        found["round_answers"] = [["1", "2", "1"], ["1", "1", "1"]]
    rows[4]["wall_s"] = 0.7
    return rows


def as_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def test_parts_that_share_a_source_are_read_again_keyed_by_it() -> None:
    rows = mixed_rows()
    first = GroupTally()
    for found in rows:
        first.add(found)
    assert first.groups() is None  # s2mad's simulated, replayed-real and failed rows
    again = GroupTally(first.resolved())
    for found in rows:
        again.add(found)
    regrouped = again.groups()
    assert regrouped is not None
    groups, points = regrouped
    expected = build_groups(rows)
    assert [(g.source, g.dataset) for g in groups] == [("simulated", "gsm8k"), ("real", "gsm8k")]
    assert as_text([(g.summaries, g.overall_rounds) for g in groups]) == as_text(
        [(g.summaries, g.overall_rounds) for g in expected]
    )
    assert as_text(points) == as_text(group_points(expected))


def test_one_pass_gives_the_groups_and_comparisons_of_the_rows() -> None:
    rows = [found for found in mixed_rows() if found["method"] == "du"]
    rows += [
        {**found, "method": "sc", "budget_of": "du", "round_answers": [["1"]]} for found in rows
    ]
    read = ReportPass()
    for found in rows:
        read.add(found)
    made = read.groups.groups()
    assert made is not None
    groups, points = made
    expected = build_groups(rows)
    assert as_text([g.summaries for g in groups]) == as_text([g.summaries for g in expected])
    assert as_text(points) == as_text(group_points(expected))
    assert as_text(read.comparisons.comparisons()) == as_text(paired_comparisons(rows))
    assert (read.facts.count, read.facts.failed) == (6, 0)
    assert read.facts.budget_links == {("sc", "du"): "calls"}


def test_a_report_whose_arm_parts_share_a_source_reads_them_again(tmp_path: Path) -> None:
    rows = mixed_rows()
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_report(tmp_path, plots=False)
    summary = json.loads((tmp_path / "summary.json").read_text())
    expected = build_groups(load_rows(tmp_path, texts=False).rows)
    assert [(g["source"], list(g["methods"])) for g in summary["groups"]] == [
        (g.source, list(g.summaries)) for g in expected
    ]
    s2mad = summary["groups"][0]["methods"]["s2mad"]
    assert (summary["groups"][0]["source"], s2mad["n"], s2mad["failed"]) == ("simulated", 2, 1)
    du = next(g["methods"]["du"] for g in summary["groups"] if g["source"] == "real")
    assert (du["n"], du["wall_s_total"]) == (2, 0.1 + 0.7)
