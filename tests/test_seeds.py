"""Many seeds in one evaluation: rows per (arm, item, seed), resume, and accuracy over seeds."""

from __future__ import annotations

import json
import math
import signal
from pathlib import Path
from typing import Any

import pytest

from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.analysis.seeds import seed_accuracies, seed_spread
from debategraph.eval.datasets import load_dataset
from debategraph.eval.log.store import (
    MANIFEST_FILE,
    RESULTS_FILE,
    SettingsMismatchError,
    row_key,
    row_problem,
)
from debategraph.eval.report.seeds_table import seeds_table
from debategraph.eval.report.writer import write_report
from debategraph.eval.run.runner import Arm, arms_for, budget_arms, check_seeds, evaluate

from .helpers import without_timings

ITEMS = load_dataset("arithmetic", limit=4, seed=1)
DU = {"agents": 3, "rounds": 1, "tie_policy": "random"}
SEEDS = [0, 1, 2]


def du_cot(**extra: Any) -> list[Arm]:
    """du, cot and du's budget-matched self-consistency ``sc@du``."""
    arms = arms_for(["du", "cot"], {**DU, **extra})
    return [*arms, *budget_arms(arms[:1])]


def lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / RESULTS_FILE).read_text().splitlines()]


def keys(rows: list[dict[str, Any]]) -> list[tuple[str, str, int | None]]:
    return [row_key(row) for row in rows]


@pytest.fixture(scope="module")
def seeded_run(tmp_path_factory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("seeded")
    outcome = evaluate(ITEMS, du_cot(), out, dataset="arithmetic", seeds=SEEDS)
    assert (outcome.count, outcome.written, outcome.failed) == (36, 36, 0)
    return without_timings(lines(out))


# --- the runner ------------------------------------------------------------------------------


def test_every_arm_runs_once_per_seed_on_the_same_items(seeded_run):
    labels = ["du", "cot", "sc@du"]
    assert keys(seeded_run) == [
        (label, item.id, seed) for label in labels for seed in SEEDS for item in ITEMS
    ]
    for row in seeded_run:
        assert row["seed"] == row["settings"]["seed"]  # the seed the debate ran with
        assert isinstance(row["seed"], int) and row_problem(row) is None


def test_a_seeds_rows_are_those_of_a_run_with_that_seed(seeded_run, tmp_path):
    # The seed varies the debates and nothing else: seed 2 of the multi-seed run is the
    # single run with seed 2 (its rows record no seed field).
    evaluate(ITEMS, du_cot(seed=2), tmp_path, dataset="arithmetic")
    single = without_timings(lines(tmp_path))
    assert all("seed" not in row for row in single)
    of_seed_2 = [{k: v for k, v in r.items() if k != "seed"} for r in seeded_run if r["seed"] == 2]
    assert of_seed_2 == single


def test_rows_of_different_seeds_differ_on_the_simulated_model(seeded_run):
    def trajectories(label: str, seed: int) -> list[Any]:
        return [r["round_answers"] for r in seeded_run if (r["method"], r["seed"]) == (label, seed)]

    for label in ("du", "cot"):
        runs = [trajectories(label, seed) for seed in SEEDS]
        assert all(len(run) == len(ITEMS) for run in runs)
        assert len({json.dumps(run) for run in runs}) == len(SEEDS), label
    # Replies differ too, not only the answers read from them.
    first = [r for r in seeded_run if r["method"] == "du" and r["id"] == ITEMS[0].id]
    texts = {r["turns"][0]["text"] for r in first}
    assert len(texts) == len(SEEDS)


def test_budget_matched_voting_reads_its_debate_under_the_same_seed(seeded_run):
    du = {(r["id"], r["seed"]): r for r in seeded_run if r["method"] == "du"}
    sc = {(r["id"], r["seed"]): r for r in seeded_run if r["method"] == "sc@du"}
    assert sc.keys() == du.keys()
    for unit, row in sc.items():
        assert row["agents"] == row["calls"] == du[unit]["calls"]
        assert row["settings"]["seed"] == unit[1]


def test_resume_after_a_partial_multi_seed_run_redoes_nothing_finished(tmp_path, seeded_run):
    arms = du_cot()
    evaluate(ITEMS, arms, tmp_path, dataset="arithmetic", seeds=SEEDS)
    path = tmp_path / RESULTS_FILE
    full = path.read_text().splitlines(keepends=True)
    kept = full[::3]  # a partial run: a third of the rows, of every arm and seed
    path.write_text("".join(kept))
    finished = {row_key(json.loads(line)) for line in kept}

    class Seen:
        def __init__(self) -> None:
            self.resumed: list[Any] = []
            self.written: list[Any] = []

        def start(self, totals, done) -> None:
            self.totals = dict(totals)
            self.resumed = list(done)

        def advance(self, row) -> None:
            self.written.append(row_key(row))

        def stop(self) -> None:
            pass

    seen = Seen()
    outcome = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic", seeds=SEEDS, progress=seen)
    assert seen.totals == {"du": 12, "cot": 12, "sc@du": 12}
    assert (outcome.resumed, outcome.written) == (len(kept), 36 - len(kept))
    assert not finished & set(seen.written)
    assert set(seen.written) | finished == set(keys(seeded_run))
    assert without_timings(lines(tmp_path)) == seeded_run


class StopAfter:
    """Progress hook that presses Ctrl-C (SIGINT to this process) after ``k`` rows."""

    def __init__(self, k: int) -> None:
        self.k, self.seen, self.resumed, self.written = k, 0, 0, []

    def start(self, totals, done) -> None:
        self.resumed = len(done)

    def advance(self, row) -> None:
        self.seen += 1
        self.written.append(row_key(row))
        if self.seen == self.k:
            signal.raise_signal(signal.SIGINT)

    def stop(self) -> None:
        pass


def test_a_multi_seed_run_interrupted_by_ctrl_c_resumes_without_redoing_rows(tmp_path, seeded_run):
    arms = du_cot()
    first = StopAfter(7)
    with pytest.raises(KeyboardInterrupt):
        evaluate(ITEMS, arms, tmp_path, dataset="arithmetic", seeds=SEEDS, progress=first)
    finished = set(keys(lines(tmp_path)))
    assert 7 <= len(finished) < 36 and finished <= set(first.written)
    second = StopAfter(0)
    outcome = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic", seeds=SEEDS, progress=second)
    assert second.resumed == outcome.resumed == len(finished)
    assert not finished & set(second.written) and outcome.written == 36 - len(finished)
    assert without_timings(lines(tmp_path)) == seeded_run


def test_a_single_seed_directory_resumes_as_before(tmp_path):
    arms = [Arm("du", "du", {"agents": 2, "rounds": 1})]
    evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    assert all("seed" not in row for row in lines(tmp_path))
    assert "seeds" not in json.loads((tmp_path / MANIFEST_FILE).read_text())["settings"]
    again = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    assert (again.resumed, again.written) == (len(ITEMS), 0)
    with pytest.raises(SettingsMismatchError, match=r"seeds: null -> \[0, 1\]"):
        evaluate(ITEMS, arms, tmp_path, dataset="arithmetic", seeds=[0, 1])


def test_other_seeds_are_refused_until_forced(tmp_path):
    arms = [Arm("cot", "cot")]
    evaluate(ITEMS[:2], arms, tmp_path, dataset="arithmetic", seeds=[0, 1])
    with pytest.raises(SettingsMismatchError, match=r"seeds: \[0, 1\] -> \[0, 1, 2\]"):
        evaluate(ITEMS[:2], arms, tmp_path, dataset="arithmetic", seeds=[0, 1, 2])
    forced = evaluate(ITEMS[:2], arms, tmp_path, dataset="arithmetic", seeds=[5], force=True)
    assert keys(lines(tmp_path)) == [("cot", item.id, 5) for item in ITEMS[:2]]
    assert forced.written == 2


@pytest.mark.parametrize(
    ("seeds", "message"),
    [
        ([], "seeds is empty"),
        ([0, 1, 0], "seed(s) given more than once: 0"),
        ([0, "1"], "seeds must be integers, got '1'"),
        ([True], "seeds must be integers, got True"),
        ("0,1", "seeds must be a list of integers"),
    ],
)
def test_bad_seeds_are_refused_before_anything(tmp_path, seeds, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate(ITEMS, [Arm("cot", "cot")], tmp_path / "out", dataset="arithmetic", seeds=seeds)
    assert not (tmp_path / "out").exists()


def test_check_seeds_keeps_the_order():
    assert check_seeds([3, -1, 0]) == [3, -1, 0] and check_seeds(None) is None


def test_only_contested_screens_each_seed_apart(tmp_path):
    arms = arms_for(["du"], {"agents": 3, "rounds": 1}, only_contested=True)
    items = load_dataset("arithmetic", limit=8, seed=1)
    outcome = evaluate(items, arms, tmp_path, dataset="arithmetic", seeds=[0, 1])
    rows = lines(tmp_path)
    screened = {(r["id"], r["seed"]): r["screen"]["settled"] for r in rows if "screen" in r}
    assert len(screened) == 16
    debated = {(r["id"], r["seed"]) for r in rows if r["method"] == "du"}
    assert debated == {unit for unit, settled in screened.items() if not settled}
    assert outcome.settled == sum(screened.values())
    assert 0 < outcome.settled < 16
    again = evaluate(items, arms, tmp_path, dataset="arithmetic", seeds=[0, 1])
    assert (again.written, again.settled) == (0, outcome.settled)


# --- the store ---------------------------------------------------------------------------------


def test_a_rows_key_holds_its_seed():
    row = {"method": "du", "id": "q1", "seed": 3}
    assert row_key(row) == ("du", "q1", 3)
    assert row_key({"method": "du", "id": "q1"}) == ("du", "q1", None)
    finished = {"method": "du", "id": "q", "answer": "1", "correct": True, "input_tokens": 1,
                "output_tokens": 1, "calls": 1, "round_answers": [["1"]]}  # fmt: skip
    assert row_problem({**finished, "seed": 0}) is None
    assert row_problem({**finished, "seed": "0"}) == "'seed' is str, not int"
    assert row_problem({**finished, "seed": True}) == "'seed' is bool, not int"


# --- accuracy over seeds -----------------------------------------------------------------------


def _row(seed: int | None, correct: bool, *, failed: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {"method": "du", "id": f"q{seed}", "correct": correct}
    if seed is not None:
        row["seed"] = seed
    if failed:
        row.update(id="q-failed", error="Boom: failed")
    return row


# Per seed, hand-counted: seed 0 3/4 = 0.75, seed 1 2/4 = 0.5, seed 2 4/4 = 1.0 (its failed row
# left out); seed 7 only failed: no accuracy. Mean 0.75; deviations 0, -0.25, +0.25, so the
# sample variance is (0 + 0.0625 + 0.0625) / (3 - 1) = 0.0625 and the sd 0.25.
FIXTURE = (
    [_row(0, c) for c in (True, True, True, False)]
    + [_row(1, c) for c in (True, False, True, False)]
    + [_row(2, True) for _ in range(4)]
    + [_row(2, False, failed=True), _row(7, False, failed=True)]
)


def test_accuracy_over_seeds_is_the_mean_and_sample_sd_of_per_seed_accuracies():
    spread = seed_spread(FIXTURE)
    assert spread["n"] == 3
    assert spread["mean"] == 0.75 and spread["sd"] == 0.25
    assert (spread["min"], spread["max"]) == (0.5, 1.0)
    assert [(a["seed"], a["items"], a["correct"], a["accuracy"]) for a in spread["accuracies"]] == [
        (0, 4, 3, 0.75),
        (1, 4, 2, 0.5),
        (2, 4, 4, 1.0),
    ]


def test_two_seeds_sd_uses_n_minus_one():
    # Accuracies 1/2 and 1: mean 0.75, sample variance (0.0625 + 0.0625) / 1 = 0.125.
    rows = [_row(4, True), _row(4, False), _row(9, True), _row(9, True)]
    spread = seed_spread(rows)
    assert spread["mean"] == 0.75
    assert spread["sd"] == pytest.approx(math.sqrt(0.125), abs=1e-15)


def test_rows_without_a_seed_are_one_seed():
    rows = [_row(None, True), _row(None, False), _row(None, True), _row(None, True)]
    spread = seed_spread(rows)
    assert (spread["n"], spread["mean"], spread["sd"]) == (1, 0.75, None)
    assert (spread["min"], spread["max"]) == (0.75, 0.75)
    assert seed_accuracies([_row(None, True), _row(3, False)])[0]["seed"] is None
    assert seed_spread([_row(1, True, failed=True)]) == {
        "n": 0, "mean": None, "sd": None, "min": None, "max": None, "accuracies": []
    }  # fmt: skip


def test_summary_and_report_give_each_arms_accuracy_over_seeds(tmp_path):
    where = {"source": "simulated", "dataset": "arithmetic"}

    def finished(row: dict[str, Any]) -> dict[str, Any]:
        counts = {"input_tokens": 10, "output_tokens": 5, "calls": 1}
        return {**row, **counts, **where, "answer": "1", "round_answers": [["1"]]}

    rows = []
    for k, row in enumerate(FIXTURE):
        rows.append(finished({**row, "id": f"q{k % 4}"}) if "error" not in row else row | where)
    rows += [finished({**_row(s, True), "method": "cot", "id": "q0"}) for s in (0, 1)]
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = summarize(rows)
    # Pooled figures stay as they were: 9 right of the 12 scored du rows.
    assert (summary["du"]["n"], summary["du"]["correct"]) == (12, 9)
    assert summary["du"]["seeds"]["sd"] == 0.25
    write_report(tmp_path, plots=False)
    stored = json.loads((tmp_path / "summary.json").read_text())
    du = stored["groups"][0]["methods"]["du"]
    assert du["n"] == 12 and du["failed"] == 2
    assert {k: du["seeds"][k] for k in ("n", "mean", "sd", "min", "max")} == {
        "n": 3, "mean": 0.75, "sd": 0.25, "min": 0.5, "max": 1.0
    }  # fmt: skip
    assert [a["accuracy"] for a in du["seeds"]["accuracies"]] == [0.75, 0.5, 1.0]
    cot = stored["groups"][0]["methods"]["cot"]["seeds"]
    assert (cot["n"], cot["mean"], cot["sd"]) == (2, 1.0, 0.0)
    text = (tmp_path / "report.md").read_text()
    assert "| du | 3 | 75.0 ± 25.0 (50.0–100.0) | 0: 75.0, 1: 50.0, 2: 100.0 |" in text
    assert "| cot | 2 | 100.0 ± 0.0 (100.0–100.0) | 0: 100.0, 1: 100.0 |" in text


def test_no_seeds_table_without_two_seeds():
    summary = summarize([{**_row(None, True), "calls": 1}])
    assert seeds_table(summary) == ""


def test_intervals_count_items_not_seed_rows():
    from debategraph.eval.analysis.metrics import summarize_method
    from debategraph.eval.analysis.pareto import pareto_points

    def row(item: str, seed: int, right: bool) -> dict:
        answer = "1" if right else "2"
        return {"method": "cot", "id": item, "seed": seed, "answer": answer, "reference": "1",
                "correct": right, "abstained": False, "input_tokens": 10, "output_tokens": 5,
                "calls": 1, "round_answers": [[answer]], "task": "number"}  # fmt: skip

    # 2 items x 3 seeds: 3 of 6 rows right; as items, 1 of 2.
    rows = [row("q1", s, True) for s in range(3)] + [row("q2", s, False) for s in range(3)]
    # Wilson at k=1, n=2, z=1.96 by hand: centre 0.5, half 1.96/2.9208 * sqrt(0.125 + 0.2401).
    low, high = 0.5 - 0.4054713, 0.5 + 0.4054713
    summary = summarize_method("cot", rows)
    assert summary["n"] == 6 and summary["accuracy"] == 0.5
    assert summary["ci_low"] == pytest.approx(low, abs=1e-6)
    assert summary["ci_high"] == pytest.approx(high, abs=1e-6)
    one_seed = summarize_method("cot", [r for r in rows if r["seed"] == 0])
    assert one_seed["ci_low"] == pytest.approx(low, abs=1e-6)
    point = pareto_points(rows)[0]
    assert (point["ci_low"], point["ci_high"]) == (summary["ci_low"], summary["ci_high"])


def test_show_says_which_seed_each_debate_of_an_item_ran_under(tmp_path):
    from typer.testing import CliRunner

    from debategraph.cli import app

    out = tmp_path / "run"
    evaluate(ITEMS[:1], arms_for(["du"], DU), out, dataset="arithmetic", seeds=[0, 1])
    shown = CliRunner().invoke(app, ["show", str(out), str(ITEMS[0].id), "--method", "du"])
    assert shown.exit_code == 0, shown.output
    assert [line for line in shown.output.splitlines() if line.startswith("seed ")] == [
        "seed 0",
        "seed 1",
    ]
