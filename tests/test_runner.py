"""The evaluation runner: rows, concurrency bound, failures, budget matching and resume."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
from pathlib import Path
from typing import Any, ClassVar

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.rate_limiters import InMemoryRateLimiter

from debategraph.api import DebateConfigError
from debategraph.eval.datasets import load_dataset
from debategraph.eval.log.row import row_dict
from debategraph.eval.log.store import MANIFEST_FILE, RESULTS_FILE, SettingsMismatchError
from debategraph.eval.run.runner import (
    SUMMARY_FIELDS,
    Arm,
    EvalPlan,
    arms_for,
    describe_error,
    evaluate,
    run_eval,
    with_rate_limiter,
)
from debategraph.models.simulated import SimulatedDebater
from debategraph.nodes.runnable import run_sync

from .helpers import without_timings

ITEMS = load_dataset("arithmetic", limit=6, seed=1)
ARMS = [
    Arm("du", "du", {"agents": 2, "rounds": 1}),
    Arm("mav", "mav", {"agents": 3}),
]
SCHEMA = {
    "method", "id", "dataset", "source", "answer", "reference", "correct", "abstained",
    "input_tokens", "output_tokens", "calls", "ncomm", "rounds", "agents", "parse_failures",
    "wall_s", "round_answers", "tokens_by_kind", "answer_sources", "settings", "requests",
    "failed_requests", "wasted_input_tokens", "wasted_output_tokens", "task",
    "round_confidences", "agent_models", "question", "choices", "agent_names", "cut_off",
    "adversaries", "decision", "turns", "method_state", "cached_calls", "usage_by_source",
}  # fmt: skip


def lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / RESULTS_FILE).read_text().splitlines()]


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory) -> list[dict[str, Any]]:
    out = tmp_path_factory.mktemp("reference")
    evaluate(ITEMS, ARMS, out, dataset="arithmetic", concurrency=4)
    return without_timings(lines(out))


def test_rows_follow_the_schema_in_plan_order(reference_run):
    rows = reference_run
    assert [(r["method"], r["id"]) for r in rows] == [
        (arm.label, item.id) for arm in ARMS for item in ITEMS
    ]
    for row in rows:
        assert set(row) == SCHEMA - {"wall_s"}
        assert row["source"] == "simulated" and row["dataset"] == "arithmetic"
        assert row["correct"] == (row["answer"] == row["reference"])
    du = rows[0]
    assert du["calls"] == 4 and du["rounds"] == 1 and du["ncomm"] == 2
    assert len(du["round_answers"]) == 2 and len(du["round_answers"][0]) == 2
    assert du["tokens_by_kind"]["answer"]["input_tokens"] == du["input_tokens"]
    # Nothing failed: every request is a kept call, and no token went to waste.
    for row in rows:
        assert row["requests"] == row["calls"] and row["failed_requests"] == 0
        assert row["wasted_input_tokens"] == row["wasted_output_tokens"] == 0
        assert sum(row["answer_sources"].values()) == row["calls"]
    assert du["settings"]["rounds"] == 1 and du["settings"]["decision"] == "majority"


def test_run_eval_takes_the_plan_evaluate_builds_from_its_keywords(tmp_path, reference_run):
    plan = EvalPlan(dataset="arithmetic", out_dir=tmp_path / "plan", concurrency=4)
    outcome = run_sync(run_eval(ITEMS, ARMS, plan))
    assert outcome.path == tmp_path / "plan" / RESULTS_FILE
    assert (outcome.count, outcome.written, outcome.resumed) == (12, 12, 0)
    assert without_timings(lines(tmp_path / "plan")) == reference_run
    manifest = json.loads((tmp_path / "plan" / MANIFEST_FILE).read_text())
    assert (
        manifest["settings"]["dataset"] == "arithmetic" and manifest["settings"]["selection"] == {}
    )
    with pytest.raises(ValueError, match="concurrency must be at least 1, got 0"):
        run_sync(run_eval(ITEMS, ARMS, dataclasses.replace(plan, concurrency=0)))


class StopAfter:
    """Progress hook that presses Ctrl-C (SIGINT to this process) after k rows.

    ``asyncio.run`` handles SIGINT by cancelling the main task, then raises KeyboardInterrupt.
    """

    def __init__(self, k: int) -> None:
        self.k, self.seen = k, 0

    def start(self, totals, done) -> None:
        self.resumed = len(done)

    def advance(self, row) -> None:
        self.seen += 1
        if self.seen == self.k:
            signal.raise_signal(signal.SIGINT)

    def stop(self) -> None:
        pass


def test_resume_after_interrupt_matches_an_uninterrupted_run(tmp_path, reference_run):
    with pytest.raises(KeyboardInterrupt):
        evaluate(ITEMS, ARMS, tmp_path, dataset="arithmetic", concurrency=3, progress=StopAfter(5))
    assert 5 <= len(lines(tmp_path)) < len(reference_run)
    hook = StopAfter(0)
    outcome = evaluate(ITEMS, ARMS, tmp_path, dataset="arithmetic", concurrency=3, progress=hook)
    assert hook.resumed == outcome.resumed >= 5
    assert outcome.resumed + outcome.written == len(reference_run)
    assert without_timings(lines(tmp_path)) == reference_run


def test_torn_and_garbage_lines_are_dropped_and_redone(tmp_path, reference_run):
    evaluate(ITEMS, ARMS, tmp_path, dataset="arithmetic")
    path = tmp_path / RESULTS_FILE
    data = path.read_bytes()
    path.write_bytes(data[:-25])  # a torn last line
    outcome = evaluate(ITEMS, ARMS, tmp_path, dataset="arithmetic")
    assert outcome.written == 1
    assert without_timings(lines(tmp_path)) == reference_run
    with path.open("ab") as f:
        f.write(b"not json\n")
    assert evaluate(ITEMS, ARMS, tmp_path, dataset="arithmetic").written == 0
    assert without_timings(lines(tmp_path)) == reference_run


class Flaky(BaseChatModel):
    """Fails on one question while ``broken`` is set; otherwise answers 7."""

    broken: ClassVar[bool] = True

    @property
    def _llm_type(self) -> str:
        return "flaky"

    def _generate(self, messages, stop=None, run_manager=None, **kw) -> ChatResult:
        raise NotImplementedError

    async def _agenerate(self, messages, stop=None, run_manager=None, **kw) -> ChatResult:
        if Flaky.broken and ITEMS[2].question in str(messages[-1].content):
            raise ValueError("upstream said no; api_key=sk-secret123456 rejected")
        reply = AIMessage(content="So \\boxed{7}.")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def test_failed_item_is_recorded_then_retried(tmp_path):
    arms = [Arm("cot", "cot", {"models": Flaky()})]
    Flaky.broken = True
    first = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    assert first.failed == 1
    failed = [row for row in lines(tmp_path) if "error" in row]
    assert [row["id"] for row in failed] == [ITEMS[2].id]
    assert failed[0]["error"].startswith("ValueError: upstream said no")
    assert "sk-secret" not in failed[0]["error"] and "[redacted]" in failed[0]["error"]
    Flaky.broken = False
    second = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    assert (second.resumed, second.written, second.failed) == (5, 1, 0)
    assert [row["id"] for row in lines(tmp_path)] == [item.id for item in ITEMS]


def test_wall_time_covers_the_debates_this_call_ran(tmp_path):
    slow = [Arm("cot", "cot", {"models": SimulatedDebater(latency_s=0.05)})]
    first = evaluate(ITEMS[:3], slow, tmp_path, dataset="arithmetic", concurrency=1)
    assert first.wall_s >= 3 * 0.05
    again = evaluate(ITEMS[:3], slow, tmp_path, dataset="arithmetic", concurrency=1)
    assert again.written == 0 and again.wall_s < 0.05 * 3  # no debate ran


class Counting(BaseChatModel):
    """Answers 7 after yielding to the loop; counts calls in flight."""

    active: ClassVar[int] = 0
    peak: ClassVar[int] = 0

    @property
    def _llm_type(self) -> str:
        return "counting"

    def _generate(self, messages, stop=None, run_manager=None, **kw) -> ChatResult:
        raise NotImplementedError

    async def _agenerate(self, messages, stop=None, run_manager=None, **kw) -> ChatResult:
        Counting.active += 1
        Counting.peak = max(Counting.peak, Counting.active)
        for _ in range(3):
            await asyncio.sleep(0)
        Counting.active -= 1
        reply = AIMessage(content="So \\boxed{7}.")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def test_in_flight_calls_never_exceed_the_bound(tmp_path):
    items = load_dataset("arithmetic", limit=12)
    arms = [Arm("du", "du", {"models": Counting(), "agents": 4, "rounds": 1})]
    Counting.peak = 0
    evaluate(items, arms, tmp_path, dataset="arithmetic", concurrency=3)
    assert Counting.peak == 3  # 12 items x 4 agents want far more than 3 at once


def test_match_budget_samples_as_many_as_the_method_called(tmp_path):
    arms = arms_for(["du"], {"agents": 2, "rounds": 2}, match_budget=True)
    assert [a.label for a in arms] == ["du", "sc@du"]
    evaluate(ITEMS[:2], arms, tmp_path, dataset="arithmetic")
    rows = {(r["method"], r["id"]): r for r in lines(tmp_path)}
    for item in ITEMS[:2]:
        du, sc = rows["du", item.id], rows["sc@du", item.id]
        assert sc["agents"] == sc["calls"] == du["calls"] == 6 and sc["rounds"] == 0
    with pytest.raises(ValueError, match="other than sc"):
        arms_for(["sc"], {}, match_budget=True)


def test_replayed_and_provider_answers_are_real_simulated_ones_not(tmp_path):
    items = load_dataset("gsm8k", limit=2)
    arms = [
        Arm("mav", "mav", {"agents": 4, "rounds": 0, "decision": "credibility"}),
        Arm("du", "du", {"agents": 2, "rounds": 1}),
        Arm("tuned", "mav", {"rounds": 0, "models": "simulated:skill=0.9"}),
        Arm("provider", "du", {"agents": 2, "rounds": 1, "models": Counting()}),
    ]
    evaluate(items, arms, tmp_path, dataset="gsm8k")
    sources = {r["method"]: r["source"] for r in lines(tmp_path)}
    assert sources == {"mav": "real", "du": "simulated", "tuned": "simulated", "provider": "real"}


def test_other_settings_are_refused_unless_forced(tmp_path):
    evaluate(ITEMS[:2], ARMS, tmp_path, dataset="arithmetic")
    assert json.loads((tmp_path / MANIFEST_FILE).read_text())["settings"]["items"] == 2
    other = [Arm("du", "du", {"agents": 3, "rounds": 1})]
    with pytest.raises(SettingsMismatchError, match="--force"):
        evaluate(ITEMS[:2], other, tmp_path, dataset="arithmetic")
    with pytest.raises(SettingsMismatchError, match="items"):
        evaluate(ITEMS[:3], ARMS, tmp_path, dataset="arithmetic")
    outcome = evaluate(ITEMS[:2], other, tmp_path, dataset="arithmetic", force=True)
    assert (outcome.resumed, outcome.written) == (0, 2)


def test_bad_arms_fail_before_any_call(tmp_path):
    with pytest.raises(DebateConfigError, match="agents"):
        evaluate(ITEMS, [Arm("du", "du", {"agents": 0})], tmp_path, dataset="arithmetic")
    with pytest.raises(DebateConfigError, match="unknown method"):
        evaluate(ITEMS, [Arm("x", "nope")], tmp_path, dataset="arithmetic")
    assert not (tmp_path / RESULTS_FILE).exists()


def test_describe_error_redacts_and_names_the_node():
    exc = RuntimeError("401 Bearer abc.def for https://user:pw@host/v1 token=xyz")
    exc.add_note("During task with name 'agent' and id '1'")
    exc.add_note("During task with name 'round' and id '2'")
    text = describe_error(exc)
    assert text.startswith("RuntimeError: 401") and text.endswith("(in node round > agent)")
    assert "abc.def" not in text and "pw@" not in text and "xyz" not in text


def test_rate_limiter_is_shared_by_provider_models_only():
    limiter = InMemoryRateLimiter(requests_per_second=5)
    settings = with_rate_limiter({"models": ["simulated", Counting()]}, limiter)
    assert settings["models"][0] == "simulated"
    assert settings["models"][1].rate_limiter is limiter


def test_rate_limited_provider_models_keep_the_arms_timeout(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    limiter = InMemoryRateLimiter(requests_per_second=5)
    settings = with_rate_limiter(
        {"models": "gpt-4o-mini", "base_url": "http://127.0.0.1:9/v1", "timeout": 7.5}, limiter
    )
    assert settings["models"].request_timeout == 7.5
    assert settings["models"].rate_limiter is limiter


def test_rich_progress_counts_resumed_and_new_rows(tmp_path):
    import io

    from rich.console import Console

    from debategraph.eval.run.progress import RichProgress

    buffer = io.StringIO()
    progress = RichProgress(Console(file=buffer, width=120, force_terminal=False))
    evaluate(ITEMS[:2], ARMS[:1], tmp_path, dataset="arithmetic")
    path = tmp_path / RESULTS_FILE
    path.write_text(path.read_text().splitlines()[0] + "\n")
    outcome = evaluate(ITEMS[:2], ARMS[:1], tmp_path, dataset="arithmetic", progress=progress)
    assert (outcome.resumed, outcome.written) == (1, 1)
    assert "2/2" in buffer.getvalue() and "acc" in buffer.getvalue()


def test_an_edited_question_set_is_refused_with_the_fix(tmp_path):
    evaluate(ITEMS[:2], ARMS, tmp_path, dataset="arithmetic")
    edited = [ITEMS[0], dataclasses.replace(ITEMS[1], reference="999")]
    with pytest.raises(SettingsMismatchError, match=r"question set changed.*--force"):
        evaluate(edited, ARMS, tmp_path, dataset="arithmetic")


def test_malformed_rows_are_reported_by_line_and_run_again(tmp_path, reference_run):
    evaluate(ITEMS, ARMS, tmp_path, dataset="arithmetic")
    path = tmp_path / RESULTS_FILE
    rows = path.read_text().splitlines()
    broken = json.loads(rows[2])
    del broken["correct"]
    rows[2] = json.dumps(broken)
    bad_type = json.loads(rows[4])
    bad_type["calls"] = "six"
    rows[4] = json.dumps(bad_type)
    bad_turn = json.loads(rows[5])  # a row's fields, one of its turns not a turn
    bad_turn["turns"][0] = 5
    rows[5] = json.dumps(bad_turn)
    path.write_text("\n".join(rows) + "\n")
    outcome = evaluate(ITEMS, ARMS, tmp_path, dataset="arithmetic")
    assert outcome.written == 3
    assert outcome.problems == [
        "results.jsonl, line 3: no 'correct' field (run again)",
        "results.jsonl, line 5: 'calls' is str, not int (run again)",
        "results.jsonl, line 6: not a row (Expected `object`, got `int` - at `$.turns[0]`)"
        " (run again)",
    ]
    assert without_timings(lines(tmp_path)) == reference_run


def test_a_finished_run_on_read_only_media_has_nothing_to_do(tmp_path, monkeypatch):
    from debategraph.eval.run import runner

    items = load_dataset("arithmetic", limit=3, seed=2)
    folder = tmp_path / "ro"
    first = evaluate(items, [Arm("cot", "cot")], folder, dataset="arithmetic")
    # Read-only media, as os.access sees them (root may write anywhere, so it is simulated).
    monkeypatch.setattr(runner.os, "access", lambda path, mode: not mode & os.W_OK)
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    again = evaluate(items, [Arm("cot", "cot")], folder, dataset="arithmetic")
    assert again.written == 0 and again.rows == first.rows
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before
    with pytest.raises(SettingsMismatchError, match="cannot be written and holds no finished"):
        evaluate(load_dataset("arithmetic", limit=4, seed=2), [Arm("cot", "cot")], folder,
                 dataset="arithmetic")  # fmt: skip


def test_a_failed_final_rewrite_leaves_no_temporary_file(tmp_path, monkeypatch):
    from debategraph.eval.log import store

    results = store.ResultsFile(tmp_path / "results.jsonl")
    rows = [{"method": "cot", "id": f"q{k}", "error": "boom"} for k in (2, 1)]
    for row in rows:
        results.append(row)
    before = (tmp_path / "results.jsonl").read_bytes()

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store.os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        results.finalize(lambda key: key[1])  # q1 before q2: a rewrite is needed
    assert not list(tmp_path.glob("*.tmp"))
    assert (tmp_path / "results.jsonl").read_bytes() == before  # the rows are safe


def test_finalize_keeps_one_row_per_key_a_finished_one_first(tmp_path):
    from debategraph.eval.log import store

    results = store.ResultsFile(tmp_path / "results.jsonl")
    done = {"answer": "7", "correct": True, "input_tokens": 1, "output_tokens": 1, "calls": 1}
    done["round_answers"] = [["7"]]
    lines = [
        {"method": "cot", "id": "q2", "error": "boom"},
        {"method": "cot", "id": "q1", **done, "wall_s": 1.0},
        {"method": "cot", "id": "q2", **done, "wall_s": 2.0},
        {"method": "cot", "id": "q1", **done, "wall_s": 3.0},
        {"method": "cot", "id": "q3", "error": "first"},
        {"method": "cot", "id": "q3", "error": "second"},
    ]
    for row in lines:
        results.append(row)
    kept = results.finalize(lambda key: key[1])
    assert kept == [
        (("cot", "q1", None), False),
        (("cot", "q2", None), False),
        (("cot", "q3", None), True),
    ]
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [(r["id"], r.get("wall_s"), r.get("error")) for r in rows] == [
        ("q1", 1.0, None),
        ("q2", 2.0, None),
        ("q3", None, "first"),
    ]
    before = (tmp_path / "results.jsonl").stat().st_mtime_ns
    assert results.finalize(lambda key: key[1]) == kept  # in order already: not rewritten
    assert (tmp_path / "results.jsonl").stat().st_mtime_ns == before


def test_outcome_rows_come_from_the_file_and_the_summary_needs_few_fields(tmp_path):
    from debategraph.eval.analysis.metrics import summarize

    arms = [*ARMS, *arms_for(["du"], {"agents": 2, "rounds": 1}, match_budget=True)[1:]]
    outcome = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    assert outcome.count == len(outcome.rows) == 3 * len(ITEMS)
    assert outcome.rows == lines(tmp_path)
    assert summarize(outcome.summary_rows()) == summarize(outcome.rows)
    assert all(set(row_dict(row)) <= SUMMARY_FIELDS for row in outcome.summary_rows())
    again = evaluate(ITEMS, arms, tmp_path, dataset="arithmetic")
    (tmp_path / RESULTS_FILE).unlink()
    with pytest.raises(FileNotFoundError, match="before its results directory"):
        again.rows  # noqa: B018


def test_resumed_budget_bases_are_read_from_the_file(tmp_path):
    arms = arms_for(["du"], {"agents": 2, "rounds": 1}, match_budget=True)
    evaluate(ITEMS[:3], arms, tmp_path, dataset="arithmetic")
    full = lines(tmp_path)
    path = tmp_path / RESULTS_FILE
    path.write_text("".join(json.dumps(r) + "\n" for r in full if r["method"] == "du"))
    outcome = evaluate(ITEMS[:3], arms, tmp_path, dataset="arithmetic")  # sc@du reads du's rows
    assert (outcome.resumed, outcome.written, outcome.failed) == (3, 3, 0)
    assert without_timings(lines(tmp_path)) == without_timings(full)


def test_a_resume_reports_repeated_rows_and_counts_only_this_runs_rows(tmp_path):
    arms = [Arm("du", "du", {"agents": 2, "rounds": 1})]
    evaluate(ITEMS[:3], arms, tmp_path, dataset="arithmetic")
    path = tmp_path / RESULTS_FILE
    kept = lines(tmp_path)
    foreign = {**kept[0], "id": "not-in-this-run"}
    path.write_text("".join(json.dumps(r) + "\n" for r in [*kept, kept[1], foreign]))
    outcome = evaluate(ITEMS[:3], arms, tmp_path, dataset="arithmetic")
    assert (outcome.resumed, outcome.written, outcome.count) == (3, 0, 3)
    repeated = f"results.jsonl, line 4: repeats the row of line 2 (du, {kept[1]['id']})"
    assert any(p.startswith(repeated) for p in outcome.problems), outcome.problems
    assert any("1 row(s) of results.jsonl belong to no item" in p for p in outcome.problems)


def test_items_start_as_call_slots_free_up_and_rows_stay_in_the_file(tmp_path, monkeypatch):
    # --concurrency far above what one process needs: about concurrency / (calls per round)
    # debates are in progress at once, not one per item, and no row is held in memory.
    from debategraph.eval.run.executors.local import ItemRunner

    running = peak = 0
    started = ItemRunner.run_started

    async def counted(self, work, deliver, start):
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        try:
            await started(self, work, deliver, start)
        finally:
            running -= 1

    monkeypatch.setattr(ItemRunner, "run_started", counted)
    items = load_dataset("arithmetic", limit=60, seed=1)
    arms = [Arm("du", "du", {"agents": 3, "rounds": 1, "models": "simulated:latency_s=0.02"})]
    outcome = evaluate(items, arms, tmp_path, dataset="arithmetic", concurrency=12)
    assert outcome.written == 60 and outcome.peak_in_flight <= 12
    # About 12 / 3 calls per round (one or two more while finished ones wind down); 60 if
    # every item started at once.
    assert 2 <= peak <= 12 // 3 + 2, peak
    assert outcome._rows is None  # read from the file only when asked
    assert len(outcome.rows) == 60 and outcome._rows is not None


def test_a_resume_keeps_rows_edited_by_hand_and_pays_for_none_again(tmp_path):
    # A null where a value belongs reads as absent; a field of another type is named, and the
    # finished debate is kept (not dropped from the file and run again).
    from debategraph.eval.analysis.results import load_rows
    from debategraph.eval.log.ledger import spend_on_record

    arms = [Arm("du", "du", {"agents": 2, "rounds": 1})]
    evaluate(ITEMS[:3], arms, tmp_path, dataset="arithmetic")
    spent = spend_on_record(tmp_path)
    kept = lines(tmp_path)
    kept[0]["wall_s"] = None
    kept[0]["turns"][0]["latency_s"] = None
    kept[1]["cached_calls"] = "n/a"
    edited = "".join(json.dumps(r) + "\n" for r in kept)
    (tmp_path / RESULTS_FILE).write_text(edited)
    outcome = evaluate(ITEMS[:3], arms, tmp_path, dataset="arithmetic")
    assert (outcome.resumed, outcome.written) == (3, 0)
    assert (tmp_path / RESULTS_FILE).read_text() == edited
    wrong = "results.jsonl, line 2: not a row (Expected `int`, got `str` - at `$.cached_calls`)"
    assert outcome.problems == [
        f"{wrong}: kept as finished (a report leaves it out until it is fixed)"
    ]
    assert spend_on_record(tmp_path) == spent
    loaded = load_rows(tmp_path)
    assert [row.id for row in loaded.rows] == [kept[0]["id"], kept[2]["id"]]
    assert loaded.problems == [
        "results.jsonl, line 2: Expected `int`, got `str` - at `$.cached_calls`"
    ]


def test_a_well_typed_row_wins_over_a_repaired_one_of_its_key_and_a_key_is_never_repaired(
    tmp_path,
):
    from debategraph.eval.log.store import ResultsFile

    arms = [Arm("du", "du", {"agents": 2, "rounds": 1})]
    evaluate(ITEMS[:2], arms, tmp_path, dataset="arithmetic", seeds=[1])
    first, second = lines(tmp_path)
    repaired = {**first, "wall_s": "3.2"}  # kept alone, but not over a well-typed twin
    seed_text = {**second, "seed": "1"}  # a key of another type: run again, never kept
    path = tmp_path / RESULTS_FILE
    path.write_text("".join(json.dumps(r) + "\n" for r in (repaired, first, seed_text)))
    store = ResultsFile(path)
    assert store.load() == 2
    kept = [json.loads(x) for x in path.read_text().splitlines()]
    assert kept == [first]
    assert any("line 1: repeats the row of line 2" in p for p in store.problems)
    assert any("line 3: 'seed' is str, not int (run again)" in p for p in store.problems)
