"""``debategraph export DIR --to inspect``: the logs Inspect's own reader finds there.

Every check reads the written logs back with ``inspect_ai.log.read_eval_log`` and compares
them with the stored rows: samples, scores, the model calls and their tokens, the metadata.
"""

from __future__ import annotations

import gc
import json
import math
import statistics
import weakref
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.export import inspect as inspect_export
from debategraph.eval.export.stored_run import read_stored_run

runner = CliRunner()
EVAL = ["eval", "--dataset", "arithmetic", "--limit", "3", "--agents", "2", "--rounds", "1"]
EVAL += ["--quiet"]


_TURN_METADATA = ("id", "agent", "round", "kind", "answer", "answer_source", "confidence",
                  "reads", "label", "usage_estimated", "logprobs", "attempts")  # fmt: skip
"""What a model event's metadata keeps of its turn."""


def rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def export(run: Path, logs: Path) -> dict[str, object]:
    """Export ``run`` and read every log back, by arm label."""
    done = runner.invoke(app, ["export", str(run), "--to", "inspect", "--out", str(logs)])
    assert done.exit_code == 0, done.output
    assert f"inspect view --log-dir {logs}" in done.stdout
    read = [
        read_eval_log(str(path), resolve_attachments=True) for path in sorted(logs.glob("*.eval"))
    ]
    return {log.eval.metadata["arm"]: log for log in read}


def test_each_arm_is_a_log_with_a_sample_per_item_and_every_call_in_order(tmp_path):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "du", "--method", "cot", "--out", str(run)])
    assert made.exit_code == 0, made.output
    stored = rows(run)
    logs = export(run, tmp_path / "logs")
    assert sorted(logs) == ["cot", "du"]
    arms = {a["label"]: a for a in json.loads((run / "run.json").read_text())["settings"]["arms"]}
    for label, log in logs.items():
        mine = [r for r in stored if r["method"] == label]
        assert log.status == "success" and log.eval.task == "arithmetic"
        assert log.eval.model == f"debategraph/{label}"
        assert log.eval.metadata["settings"] == arms[label]["settings"]
        assert log.eval.metadata["models"] == mine[0]["agent_models"]
        assert log.eval.metadata["debate_settings"] == mine[0]["settings"]
        assert [s.id for s in log.samples] == [r["id"] for r in mine]
        for sample, row in zip(log.samples, mine, strict=True):
            assert sample.epoch == 1 and sample.input == row["question"]
            assert sample.target == row["reference"]
            assert sample.output.completion == (row["answer"] or "")
            score = sample.scores["correct"]
            assert score.value == ("C" if row["correct"] else "I") and score.answer == row["answer"]
            calls = [e for e in sample.events if e.event == "model"]
            assert [e.metadata["id"] for e in calls] == [t["id"] for t in row["turns"]]
            assert len(calls) == row["calls"]
            for event, turn in zip(calls, row["turns"], strict=True):
                assert event.role == turn["agent"] and event.model == turn["model"]
                assert event.metadata["round"] == turn["round"]
                assert event.metadata["reads"] == turn["reads"]
                assert event.output.completion == turn["text"]
                assert event.output.usage.input_tokens == turn["input_tokens"]
                assert event.output.usage.output_tokens == turn["output_tokens"]
                assert len(event.input) == 1 + len(turn["reads"])  # the question, then each read
                for read, message in zip(turn["reads"], event.input[1:], strict=True):
                    peer = next(t for t in row["turns"] if t["id"] == read)
                    assert message.text.startswith(f"[{read}]") and peer["text"] in message.text
            usage = sample.model_usage
            assert sum(u.input_tokens for u in usage.values()) == row["input_tokens"]
            assert sum(u.output_tokens for u in usage.values()) == row["output_tokens"]
            rounds = [e.name for e in sample.events if e.event == "span_begin"]
            assert rounds == [f"round {r}" for r in range(row["rounds"] + 1)]
        # Accuracy and its standard error, computed here from the rows.
        right = [float(r["correct"]) for r in mine]
        metrics = log.results.scores[0].metrics
        assert metrics["accuracy"].value == sum(right) / len(right)
        assert math.isclose(metrics["stderr"].value, statistics.stdev(right) / math.sqrt(3))
        used = log.stats.model_usage
        assert sum(u.total_tokens for u in used.values()) == sum(
            r["input_tokens"] + r["output_tokens"] for r in mine
        )


def test_seeds_are_epochs_and_their_mean_per_item_is_the_accuracy(tmp_path):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "du", "--seeds", "0,1", "--out", str(run)])
    assert made.exit_code == 0, made.output
    stored = rows(run)
    log = export(run, tmp_path / "logs")["du"]
    assert log.eval.config.epochs == 2 and log.eval.metadata["seeds"] == [0, 1]
    assert [(s.id, s.epoch, s.metadata["seed"]) for s in log.samples] == [
        (r["id"], r["seed"] + 1, r["seed"]) for r in stored
    ]
    per_item: dict[str, list[float]] = {}
    for r in stored:
        per_item.setdefault(r["id"], []).append(float(r["correct"]))
    means = [sum(v) / 2 for v in per_item.values()]
    assert log.results.scores[0].metrics["accuracy"].value == sum(means) / 3


HAND_ROW = {
    "method": "du", "id": "q-1", "dataset": "mine", "answer": None, "reference": "7",
    "correct": False, "abstained": True, "input_tokens": 30, "output_tokens": 12, "calls": 2,
    "ncomm": 1, "rounds": 1, "wall_s": 0.5, "round_answers": [["6"], [None]],
    "question": "What is 3+4?", "agent_names": ["a1"], "agent_models": ["m:x"],
    "settings": {"seed": 3, "generation": {"temperature": 0.7, "frequency_penalty": 0.5}},
    "decision": {"rule": "majority"},
    "turns": [
        {"id": "r0:a1", "agent": "a1", "round": 0, "kind": "answer", "answer": "6",
         "reads": [], "input_tokens": 10, "output_tokens": 5, "latency_s": 0.25, "model": "m:x"},
        {"id": "r1:a1", "agent": "a1", "round": 1, "kind": "answer", "answer": None,
         "reads": ["r0:a1"], "input_tokens": 20, "output_tokens": 7, "latency_s": 0.25,
         "model": "m:x", "cached_input_tokens": 8, "reasoning_tokens": 3},
    ],
}  # fmt: skip
"""A row written with --no-texts: no reply text, and the final answer is an abstention."""


def test_a_hand_made_run_exports_exact_figures_abstentions_and_failures(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    failed = {"method": "du", "id": "q-2", "dataset": "mine", "reference": "1", "error": "E: x"}
    lines = [json.dumps(HAND_ROW), json.dumps(failed)]
    (run / "results.jsonl").write_text("\n".join(lines) + "\n")
    log = export(run, tmp_path / "logs")["du"]
    abstained, broken = log.samples
    assert abstained.scores["correct"].value == "N"  # no answer: Inspect counts it as 0
    assert abstained.output.completion == ""
    assert abstained.model_usage["m:x"].input_tokens == 30 - 8  # Inspect's: cache reads apart
    assert abstained.model_usage["m:x"].output_tokens == 12
    assert abstained.role_usage["a1"].total_tokens == 42
    # The provider's bill where the server stated it (only the second call did).
    assert abstained.model_usage["m:x"].input_tokens_cache_read == 8
    assert abstained.model_usage["m:x"].reasoning_tokens == 3
    first, second = (e for e in abstained.events if e.event == "model")
    assert first.output.completion == "(reply not stored; parsed answer: 6)"
    assert second.input[1].text == "[r0:a1] a1, round 0:\n(reply not stored; parsed answer: 6)"
    assert second.config.temperature == 0.7 and second.config.seed is None
    assert second.config.frequency_penalty == 0.5 and second.config.top_p is None
    assert first.working_time == 0.25 and second.working_start == 0.25
    assert broken.error is not None and broken.error.message == "E: x" and not broken.scores
    assert broken.input == "q-2"  # a failed row keeps no question, and no arm finished q-2
    scores = log.results.scores[0]
    assert (scores.scored_samples, scores.unscored_samples) == (1, 1)
    assert scores.metrics["accuracy"].value == 0.0


def test_the_generation_settings_eval_records_reach_every_model_event(tmp_path):
    run = tmp_path / "run"
    sent = ["--temperature", "0.3", "--top-p", "0.9", "--max-tokens", "300"]
    sent += ["--frequency-penalty", "0.25", "--reasoning-effort", "low"]
    made = runner.invoke(app, [*EVAL, "--method", "du", *sent, "--out", str(run)])
    assert made.exit_code == 0, made.output
    assert rows(run)[0]["settings"]["generation"]["reasoning_effort"] == "low"
    calls = [e for s in export(run, tmp_path / "logs")["du"].samples for e in s.events]
    calls = [e for e in calls if e.event == "model"]
    assert calls
    for event in calls:
        config = event.config
        assert (config.temperature, config.top_p, config.max_tokens) == (0.3, 0.9, 300)
        assert (config.frequency_penalty, config.reasoning_effort) == (0.25, "low")


def test_a_run_with_prompts_gives_each_model_event_the_prompt_its_model_was_sent(tmp_path):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "du", "--prompts", "--out", str(run)])
    assert made.exit_code == 0, made.output
    stored = rows(run)
    samples = export(run, tmp_path / "logs")["du"].samples
    assert len(samples) == len(stored) == 3
    for sample, row in zip(samples, stored, strict=True):
        calls = [e for e in sample.events if e.event == "model"]
        assert len(calls) == len(row["turns"]) == 4  # 2 agents, rounds 0 and 1
        for event, turn in zip(calls, row["turns"], strict=True):
            assert turn["prompt"]  # kept by --prompts, else the check below proves nothing
            assert [(m.role, m.text) for m in event.input] == [("user", turn["prompt"])]
            assert event.output.completion == turn["text"]


def test_rows_from_before_generation_was_nested_keep_their_settings(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    old = {**HAND_ROW, "settings": {"temperature": 0.7, "top_p": 0.8, "seed": 3}}
    (run / "results.jsonl").write_text(json.dumps(old) + "\n")
    sample = export(run, tmp_path / "logs")["du"].samples[0]
    for event in (e for e in sample.events if e.event == "model"):
        assert (event.config.temperature, event.config.top_p) == (0.7, 0.8)


def test_a_secret_in_an_arms_recorded_settings_does_not_leave(tmp_path, monkeypatch):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "cot", "--out", str(run)])
    assert made.exit_code == 0, made.output
    secret = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyzABCD"
    recorded = json.loads((run / "run.json").read_text())
    recorded["settings"]["arms"][0]["settings"]["base_url"] = f"http://h/v1?key={secret}"
    (run / "run.json").write_text(json.dumps(recorded))  # written before the key was set
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    log = export(run, tmp_path / "logs")["cot"]
    assert log.eval.metadata["settings"]["base_url"] == "http://h/v1?key=[redacted]"
    assert log.eval.solver_args["base_url"] == "http://h/v1?key=[redacted]"
    assert secret not in json.dumps(log.model_dump(mode="json"))  # the log as read back


def test_bad_requests_are_one_line_each(tmp_path):
    missing = runner.invoke(app, ["export", str(tmp_path), "--to", "inspect"])
    assert missing.exit_code == 2 and "holds no results.jsonl" in missing.output
    mixed = runner.invoke(app, ["export", str(tmp_path), "--to", "inspect", "--dataset-name", "x"])
    assert mixed.exit_code == 2 and "go with --to langsmith" in mixed.output
    unknown = runner.invoke(app, ["export", str(tmp_path), "--to", "phoenix"])
    assert unknown.exit_code == 2


def texts_row() -> dict:
    """``HAND_ROW`` with replies long enough for Inspect to keep them as attachments, the
    model's thinking on the second call, and a first call that took three attempts."""
    row = json.loads(json.dumps(HAND_ROW))
    first, second = row["turns"]
    first.update(text="I add three and four, then check the sum twice. " * 3, attempts=3)
    second.update(text="Having read a1, I keep the count I made before. " * 3)
    second["reasoning"] = "The first count looked off by one, so I count again. " * 2
    return row


def resolved(text: str, attachments: dict[str, str]) -> str:
    """``text``, or what it names where it is an ``attachment://`` reference."""
    prefix = "attachment://"
    return attachments[text.removeprefix(prefix)] if text.startswith(prefix) else text


def test_a_written_log_reads_back_as_the_row_holds_with_or_without_resolving(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    row = texts_row()
    (run / "results.jsonl").write_text(json.dumps(row) + "\n")
    done = runner.invoke(app, ["export", str(run), "--to", "inspect", "--out", str(tmp_path)])
    assert done.exit_code == 0, done.output
    (path,) = tmp_path.glob("*.eval")
    first, second = row["turns"]
    heading = "[r0:a1] a1, round 0:\n"
    for resolve in (True, False):
        log = read_eval_log(str(path), resolve_attachments=resolve)
        assert log.status == "success" and log.results.scores[0].metrics["accuracy"].value == 0
        (sample,) = log.samples
        kept = sample.attachments
        if not resolve:  # every long text is stored once, by hash
            assert first["text"] in kept.values() and heading + first["text"] in kept.values()
        assert [(m.role, resolved(m.text, kept)) for m in sample.messages] == [
            ("user", "What is 3+4?"),
            ("assistant", "(no answer)"),
        ]
        calls = [e for e in sample.events if e.event == "model"]
        assert [e.metadata["id"] for e in calls] == ["r0:a1", "r1:a1"]
        inputs = [[resolved(m.text, kept) for m in e.input] for e in calls]
        assert inputs == [["What is 3+4?"], ["What is 3+4?", heading + first["text"]]]
        reasoning, answer = calls[1].output.message.content
        assert resolved(reasoning.reasoning, kept) == second["reasoning"]
        assert resolved(answer.text, kept) == second["text"]
        assert resolved(calls[0].output.message.text, kept) == first["text"]
        assert [e.retries for e in calls] == [2, None]  # three attempts: two retries
        assert [(e.output.usage.input_tokens, e.output.usage.output_tokens) for e in calls] == [
            (10, 5),
            (20 - 8, 7),
        ]
        assert calls[1].output.usage.input_tokens_cache_read == 8
        assert calls[0].output.usage.input_tokens_cache_read is None
        assert calls[1].metadata == {k: second[k] for k in _TURN_METADATA if k in second}
        assert calls[1].timestamp == calls[0].completed


def test_the_written_log_is_the_log_built_in_memory(tmp_path):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "du", "--out", str(run)])
    assert made.exit_code == 0, made.output
    stored_rows = rows(run)
    stored_rows[1] = {"method": "du", "id": stored_rows[1]["id"], "error": "E: x"}  # failed
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in stored_rows))
    stored = read_stored_run(run)
    (arm,) = stored.arms
    held = inspect_export.arm_log(stored, arm)
    inspect_export.write_arm_log(stored, arm, tmp_path / "du.eval")
    read = read_eval_log(str(tmp_path / "du.eval"), resolve_attachments=True)
    assert (read.status, held.status) == ("error", "error")
    assert read.error == held.error and read.results == held.results
    assert read.stats.model_usage == held.stats.model_usage
    assert read.eval.dataset == held.eval.dataset
    assert [(s.id, s.epoch, s.scores, s.model_usage) for s in read.samples] == [
        (s.id, s.epoch, s.scores, s.model_usage) for s in held.samples
    ]


def test_the_writer_is_handed_each_sample_as_it_is_built_and_none_is_kept(tmp_path):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "du", "--out", str(run)])
    assert made.exit_code == 0, made.output
    stored = read_stored_run(run)
    samples = inspect_export._ArmSamples(stored, stored.arms[0])
    alive = []
    for sample in samples:
        alive.append(weakref.ref(sample))
    del sample
    gc.collect()
    assert len(alive) == len(samples) == 3 and all(ref() is None for ref in alive)
    assert samples.tally.samples == 3 and list.__len__(samples) == 0  # the list holds none


def test_a_writer_that_takes_fewer_samples_is_an_error_not_a_short_log(tmp_path, monkeypatch):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "du", "--out", str(run)])
    assert made.exit_code == 0, made.output
    stored = read_stored_run(run)
    monkeypatch.setattr(inspect_export, "write_eval_log", lambda log, path, **_: None)
    with pytest.raises(inspect_export.IncompleteLogError, match="took 0 of the 3 samples of du"):
        inspect_export.write_arm_log(stored, stored.arms[0], tmp_path / "du.eval")


def test_each_sample_is_built_once_the_first_rows_too(tmp_path, monkeypatch):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "du", "--seeds", "0,1", "--out", str(run)])
    assert made.exit_code == 0, made.output
    stored = read_stored_run(run)
    built = []
    real = inspect_export._sample

    def counted(*args, **kwargs):
        built.append(args[2].id)
        return real(*args, **kwargs)

    monkeypatch.setattr(inspect_export, "_sample", counted)
    (arm,) = stored.arms
    inspect_export.write_arm_log(stored, arm, tmp_path / "du.eval")
    assert len(built) == 6  # 3 items x 2 seeds, each once
    log = read_eval_log(str(tmp_path / "du.eval"))
    assert sorted((s.id, s.epoch) for s in log.samples) == sorted(
        (item, epoch) for item in dict.fromkeys(built) for epoch in (1, 2)
    )


def test_a_writer_stopped_midway_leaves_no_partial_log_at_the_final_path(tmp_path, monkeypatch):
    run = tmp_path / "run"
    made = runner.invoke(app, [*EVAL, "--method", "du", "--out", str(run)])
    assert made.exit_code == 0, made.output
    stored = read_stored_run(run)
    logs = tmp_path / "logs"
    logs.mkdir()
    real = inspect_export.write_eval_log

    def cut_at_the_header(log, path, **kwargs):
        if kwargs.get("header_only"):
            raise OSError("the disk went away")  # the samples were written whole
        real(log, path, **kwargs)

    monkeypatch.setattr(inspect_export, "write_eval_log", cut_at_the_header)
    final = logs / "du.eval"
    with pytest.raises(OSError, match="the disk went away"):
        inspect_export.write_arm_log(stored, stored.arms[0], final)
    assert list(logs.iterdir()) == []
    final.write_bytes(b"an earlier log")
    with pytest.raises(OSError, match="the disk went away"):
        inspect_export.write_arm_log(stored, stored.arms[0], final)
    assert list(logs.iterdir()) == [final] and final.read_bytes() == b"an earlier log"
    monkeypatch.setattr(inspect_export, "write_eval_log", real)
    inspect_export.write_arm_log(stored, stored.arms[0], final)
    assert list(logs.iterdir()) == [final] and read_eval_log(str(final)).status == "success"
