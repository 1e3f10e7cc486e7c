"""Compute-Pareto points and fronts from stored rows, on a hand-made rows file."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from debategraph.eval.analysis.metrics import summarize, wilson_interval
from debategraph.eval.analysis.pareto import (
    ParetoPoint,
    arm_points,
    dominates,
    front,
    is_voting_arm,
    mark_front,
    pareto_points,
    point_label,
)
from debategraph.eval.report.pareto_table import pareto_table
from debategraph.eval.report.writer import PLOT_NAMES, write_report

FIXTURE = Path(__file__).parent / "fixtures" / "pareto_rows.jsonl"


def fixture_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines()]


def expected(
    arm: str, step: tuple[str, int] | None, correct: int, tokens: float, exact: bool, front: bool
) -> dict[str, Any]:
    low, high = wilson_interval(correct, 4)
    return {
        "arm": arm,
        "round": step[1] if step and step[0] == "r" else None,
        "k": step[1] if step and step[0] == "k" else None,
        "decision": step is None,
        "n": 4,
        "correct": correct,
        "accuracy": correct / 4,
        "ci_low": low,
        "ci_high": high,
        "tokens_per_item": tokens,
        "tokens_exact": exact,
        "on_front": front,
    }


# Every figure below is worked out by hand from tests/fixtures/pareto_rows.jsonl (reference
# "1" on every item; majority with the first-seen tie-break; an all-abstaining vote is wrong).
EXPECTED = [
    # du, with turns: r0 = 3 x 15 = 45; r1 adds 3 x 40 and a 25-token summary = 190;
    # r2 adds 3 x 60 = 370. q3 stopped after r1, so its r2 carries its r1 (answers, 190).
    # r0 majorities: q0 "2" x, q1 "1" ok, q2 tie 2/1 -> "2" x, q3 all differ -> "1" ok: 2/4.
    # r1: q0 ok, q1 x, q2 ok, q3 ok: 3/4. r2: the same 3/4 at (3 x 370 + 190) / 4 = 325.
    # Its decision (3/4 at 325) is its last point: left out. The failed q4 is left out.
    expected("du", ("r", 0), 2, 45.0, True, False),
    expected("du", ("r", 1), 3, 190.0, True, False),
    expected("du", ("r", 2), 3, 325.0, True, False),
    # svr: one round of answers (45 tokens), then pairwise calls in rounds 1 and 2 (100 each)
    # that only its decision reads. r0 majorities: ok, x, x, x: 1/4 at 45. Decision: 3/4 at 245.
    expected("svr", ("r", 0), 1, 45.0, True, False),
    expected("svr", None, 3, 245.0, True, False),
    # sc, with turns stored out of agent order: a1 costs 20, a2 22, a3 18.
    # k=1: q0 "2" x, q1 ok, q2 ok, q3 abstains x: 2/4 at 20.
    # k=2: q0 tie -> "2" x, q1 tie -> "1" ok, q2 ok, q3 "1" ok: 3/4 at 42.
    # k=3: q0 ok, q1 "2" x, q2 ok, q3 tie -> "1" ok: 3/4 at 60. q5 has no round_answers.
    expected("sc", ("k", 1), 2, 20.0, True, True),
    expected("sc", ("k", 2), 3, 42.0, True, True),
    expected("sc", ("k", 3), 3, 60.0, True, False),
    # sc@du, no turns, K = 2, 4, 1, 4 answers costing 40, 100, 30, 80 in all (k/K of it each).
    # k=1: ok (20), x (25), ok (30), x (20): 2/4 at 95/4, estimated.
    # k=2: ok (40), tie -> "2" x (50), ok (30), x (40): 2/4 at 40, estimated.
    # k=3: ok (40), "1" ok (75), ok (30), "2" x (60): 3/4 at 205/4, estimated.
    # k=4: ok (40), ok (100), ok (30), tie -> "2" x (80): 3/4 at 62.5, exact.
    expected("sc@du", ("k", 1), 2, 23.75, False, False),
    expected("sc@du", ("k", 2), 2, 40.0, False, False),
    expected("sc@du", ("k", 3), 3, 51.25, False, False),
    expected("sc@du", ("k", 4), 3, 62.5, True, False),
    # old-du, no turns: every round priced at the whole debate (200, 200, 200, 60 -> 165).
    # r0: ok, x, x, ok (q3 stopped there): 2/4, an upper bound. r1: ok, ok, x, ok: 3/4, exact.
    expected("old-du", ("r", 0), 2, 165.0, False, False),
    expected("old-du", ("r", 1), 3, 165.0, True, False),
    # plain: no round_answers at all, so its decision alone: 1/4 at 10.
    expected("plain", None, 1, 10.0, True, True),
]


def test_points_of_the_hand_made_rows_file() -> None:
    points = pareto_points(fixture_rows())
    assert [dict(p) for p in points] == EXPECTED


def test_front_cheapest_first_and_its_table() -> None:
    points = pareto_points(fixture_rows())
    # plain (10, 25%) < sc k=1 (20, 50%) < sc k=2 (42, 75%); nothing reaches more than 75%.
    assert [point_label(p) for p in front(points)] == ["plain decision", "sc k=1", "sc k=2"]
    assert pareto_table(points).splitlines()[2:] == [
        "| plain decision | 10 | 25.0 (4.6–69.9) | 4 |",
        "| sc k=1 | 20 | 50.0 (15.0–85.0) | 4 |",
        "| sc k=2 | 42 | 75.0 (30.1–95.4) | 4 |",
    ]


def test_wilson_bounds_of_three_in_four_computed_independently() -> None:
    # z = 1.96: center = (0.75 + 0.4802) / 1.9604 = 0.627525, half = 1.96 / 1.9604 *
    # sqrt(0.1875 / 4 + 3.8416 / 64) = 0.326889 -> (0.300636, 0.954414)
    point = next(p for p in pareto_points(fixture_rows()) if point_label(p) == "sc k=2")
    assert point["ci_low"] == pytest.approx(0.300636, abs=1e-6)
    assert point["ci_high"] == pytest.approx(0.954414, abs=1e-6)


def test_estimated_tokens_are_marked_in_the_table() -> None:
    rows = [r for r in fixture_rows() if r["method"] in ("sc@du", "old-du")]
    table = pareto_table(pareto_points(rows))
    # sc@du k=1 (23.75, 50%) and k=3 (51.25, 75%): estimates; old-du r0 is dominated by them.
    assert "| sc@du k=1 | ≈24 | 50.0" in table
    assert "| sc@du k=3 | ≈51 | 75.0" in table
    assert "old-du" not in table


def point(arm: str, tokens: float, accuracy: float) -> ParetoPoint:
    return ParetoPoint(arm=arm, round=None, k=None, decision=True, n=10,
                       correct=round(10 * accuracy), accuracy=accuracy, ci_low=0.0, ci_high=1.0,
                       tokens_per_item=tokens, tokens_exact=True, on_front=False)  # fmt: skip


def test_front_rule_weak_dominance_and_exact_ties() -> None:
    points = [
        point("a", 100, 0.5),
        point("b", 100, 0.5),  # the same point as a: neither dominates, both on the front
        point("c", 100, 0.4),  # same tokens, less accurate: dominated
        point("d", 150, 0.5),  # more tokens, same accuracy: dominated
        point("e", 150, 0.7),
        point("f", 90, 0.3),
        point("g", 200, 0.7),  # dominated by e
    ]
    assert [p["on_front"] for p in mark_front(points)] == [
        True, True, False, False, True, True, False,
    ]  # fmt: skip
    assert [p["arm"] for p in front(mark_front(points))] == ["f", "a", "b", "e"]


def test_voting_and_debating_arms_are_told_apart() -> None:
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for row in fixture_rows():
        if "error" not in row and row.get("round_answers"):
            by_arm.setdefault(row["method"], []).append(row)
    assert {arm: is_voting_arm(rows) for arm, rows in by_arm.items()} == {
        "du": False, "svr": False, "sc": True, "sc@du": True, "old-du": False,
    }  # fmt: skip
    # a row without turns that ran rounds after one round of answers (svr's) debated
    bare = {**by_arm["svr"][0]}
    del bare["turns"]
    assert not is_voting_arm([bare])


def test_an_arm_without_scored_rows_has_no_point() -> None:
    assert arm_points("du", [{"method": "du", "id": "q0", "error": "boom"}]) == []


def test_points_agree_with_the_summary_on_a_simulated_run(tmp_path: Path) -> None:
    from debategraph.eval.datasets import load_dataset
    from debategraph.eval.run.runner import arms_for, evaluate

    items = load_dataset("arithmetic", limit=6, seed=3)
    arms = arms_for(["du", "sc"], {"rounds": 2, "agents": 3}, match_budget="tokens")
    outcome = evaluate(items, arms, tmp_path / "run", dataset="arithmetic", concurrency=8)
    rows = outcome.rows
    summaries = summarize(rows)
    points = pareto_points(rows)
    for arm in ("du", "sc", "sc@du~tokens"):
        mine = [p for p in points if p["arm"] == arm]
        last, s = mine[-1], summaries[arm]
        # the last point spends what the arm spent and decides as it did (majority, first)
        assert last["tokens_per_item"] == pytest.approx(s["total_tokens_per_item"])
        assert last["correct"] == s["correct"]
        assert all(p["tokens_exact"] for p in mine)
        spend = [p["tokens_per_item"] for p in mine]
        assert spend == sorted(spend)
    du = [p for p in points if p["arm"] == "du"]
    assert [p["round"] for p in du] == [0, 1, 2]
    assert du[0]["accuracy"] == pytest.approx(summaries["du"]["accuracy_by_round"][0])
    sc = [p for p in points if p["arm"] == "sc"]
    assert [p["k"] for p in sc] == [1, 2, 3] and summaries["sc"]["vote_k"] == 3
    assert sc[-1]["accuracy"] == pytest.approx(summaries["sc"]["maj_at_k"])


@pytest.mark.slow
def test_report_writes_points_front_table_and_plot(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    rows = fixture_rows()
    other = [{**r, "dataset": "other"} for r in rows if r["method"] == "sc"]
    (folder / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows + other))
    report = write_report(folder)
    summary = json.loads((folder / "summary.json").read_text())
    toy, second = summary["groups"]
    assert (toy["dataset"], second["dataset"]) == ("toy", "other")
    # a report reads rows with round_answers only (plain's and sc's q5 are listed as left out)
    assert toy["pareto"] == [p for p in EXPECTED if p["arm"] != "plain"]
    # the second group has its own front: sc alone, where k=3 (3/4 at 60) is dominated by k=2
    assert [p["on_front"] for p in second["pareto"]] == [True, True, False]
    text = report.read_text()
    section = text.split("## Compute-Pareto front", 1)[1].split("## Plots", 1)[0]
    assert "Simulated models: toy: 14 points of 5 arm(s), 2 on the front:" in section
    assert "| sc k=2 | 42 | 75.0 (30.1–95.4) | 4 |" in section
    assert "Simulated models: other: 3 points of 1 arm(s), 2 on the front:" in section
    assert "pareto.png" in PLOT_NAMES and "![pareto](pareto.png)" in text
    png = folder / "pareto.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000


@pytest.mark.slow
def test_report_with_every_item_right_draws_its_bars(tmp_path: Path) -> None:
    # 6/6 right: the Wilson upper bound came out 0.9999999999999999, below the accuracy,
    # and matplotlib refused the negative error bar.
    assert wilson_interval(6, 6)[1] == 1.0 and wilson_interval(0, 6)[0] == 0.0
    folder = tmp_path / "results"
    folder.mkdir()
    rows = [r for r in fixture_rows() if r["method"] == "sc"][:3]
    rows = [{**r, "id": f"{r['id']}-{n}", "correct": True, "round_answers": [["1", "1", "1"]]}
            for n in range(2) for r in rows]  # fmt: skip
    (folder / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    write_report(folder)
    assert (folder / "pareto.png").stat().st_size > 1000
    assert (folder / "accuracy_vs_tokens.png").stat().st_size > 1000


def test_the_front_sweep_agrees_with_pairwise_dominance() -> None:
    rng = random.Random(7)
    for _ in range(200):
        points = [
            point(f"p{i}", rng.choice([10, 20, 20, 30, 45, 60]), rng.choice([0.1, 0.4, 0.4, 0.7]))
            for i in range(rng.randint(1, 12))
        ]
        brute = [not any(dominates(q, p) for q in points) for p in points]
        assert [p["on_front"] for p in mark_front(points)] == brute


def test_an_arm_whose_rows_record_no_answer_is_its_decision() -> None:
    rows = [{"method": "x", "id": "q0", "correct": True, "input_tokens": 3, "output_tokens": 1,
             "round_answers": [[]]}]  # fmt: skip
    (only,) = arm_points("x", rows)
    assert only["decision"] and only["correct"] == 1 and only["tokens_per_item"] == 4.0


def test_a_groups_points_cover_the_rows_its_summary_covers() -> None:
    from debategraph.eval.analysis.pareto import group_points
    from debategraph.eval.analysis.results import build_groups

    # An arm whose agents were all simulated; q3's row was written when a simulated debate
    # that ended at round 0 was called "real": the report puts it with its arm's rows.
    rows = [{**r, "agent_models": ["simulated"] * 3} for r in fixture_rows() if r["method"] == "du"]
    rows = [{**r, "source": "real"} if r["id"] == "q3" else r for r in rows]
    groups = build_groups(rows)
    assert [(g.source, g.dataset) for g in groups] == [("simulated", "toy")]
    (points,) = group_points(groups)
    assert groups[0].summaries["du"]["n"] == 4
    assert {p["n"] for p in points} == {4}

    # the hand-made points of the whole arm, q3 included (du alone: its own front)
    def figures(p: ParetoPoint) -> dict[str, Any]:
        return {k: v for k, v in p.items() if k != "on_front"}

    assert [figures(p) for p in points] == [figures(p) for p in EXPECTED if p["arm"] == "du"]
