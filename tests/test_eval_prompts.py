"""``eval --prompts``: rows keep the prompt each call's model was sent, and only on request."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app

runner = CliRunner()
EVAL = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "1", "--agents", "2"]
EVAL += ["--rounds", "1", "--quiet"]


def the_row(out: Path) -> dict:
    (line,) = (out / "results.jsonl").read_text().splitlines()
    return json.loads(line)


def test_rows_keep_the_prompts_only_with_the_flag(tmp_path):
    plain, kept = tmp_path / "plain", tmp_path / "kept"
    assert runner.invoke(app, [*EVAL, "--out", str(plain)]).exit_code == 0
    done = runner.invoke(app, [*EVAL, "--out", str(kept), "--prompts"])
    assert done.exit_code == 0, done.output
    without, row = the_row(plain), the_row(kept)
    assert all("prompt" not in t for t in without["turns"])
    # The same debate, run again directly: its turns hold the prompts its model was sent.
    again = dg.run(row["question"], method="du", agents=2, rounds=1, seed=0, task=row["task"])
    sent = {t["id"]: t["prompt"] for t in again.turn_records(include_prompts=True)}
    assert {t["id"]: t["prompt"] for t in row["turns"]} == sent
    assert len(sent) == 4 and row["question"] in sent["r0:a1"]
    assert "other agents" in sent["r1:a1"]  # a round-1 prompt carries the peers' replies
    # Apart from the prompts, the rows are the same.
    strip = [{k: v for k, v in t.items() if k not in ("prompt", "latency_s")} for t in row["turns"]]
    assert strip == [{k: v for k, v in t.items() if k != "latency_s"} for t in without["turns"]]
    # Not a setting a resumed run must share, like --no-texts: the rows are kept, none rerun.
    resumed = runner.invoke(app, [*EVAL, "--out", str(kept)])
    assert resumed.exit_code == 0 and "1 resumed, 0 new" in resumed.stdout


def test_the_prompts_are_what_the_model_received(tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate
    from debategraph.testing import ScriptedChatModel

    model = ScriptedChatModel(respond=lambda prompt: f"{len(prompt)} \\boxed{{7}}")
    arm = Arm("du", "du", {"models": [model], "agents": 2, "rounds": 1})
    outcome = evaluate(arithmetic_items(1), [arm], tmp_path, dataset="arithmetic", prompts=True)
    (row,) = outcome.rows
    prompts = [t["prompt"] for t in row["turns"]]
    assert sorted(prompts) == sorted(call["prompt"] for call in model.calls)
    assert len(prompts) == 4
    assert row["turns"][1]["text"] in row["turns"][2]["prompt"]  # r1:a1 read r0:a2's reply
    for turn in row["turns"]:  # each reply answers its own prompt
        assert turn["text"] == f"{len(turn['prompt'])} \\boxed{{7}}"


def test_show_prints_a_kept_prompt_above_its_reply(tmp_path):
    out = tmp_path / "r"
    assert runner.invoke(app, [*EVAL, "--out", str(out), "--prompts"]).exit_code == 0
    row = the_row(out)
    shown = runner.invoke(app, ["show", str(out), row["id"], "--show-text"])
    assert shown.exit_code == 0, shown.output
    first = row["turns"][0]["prompt"].splitlines()[0][:40]
    assert "prompt:" in shown.stdout and first in shown.stdout
    reply = row["turns"][0]["text"].splitlines()[0][:40]
    assert shown.stdout.index(first) < shown.stdout.index(reply)
    brief = runner.invoke(app, ["show", str(out), row["id"]])
    assert brief.exit_code == 0 and first not in brief.stdout


def test_a_sweep_file_asks_for_prompts_with_its_prompts_key(tmp_path):
    sweep = tmp_path / "sweep.toml"
    out = tmp_path / "s"
    sweep.write_text(
        f'dataset = "arithmetic"\nlimit = 1\nprompts = true\nout = "{out.as_posix()}"\n'
        '[settings]\nagents = 2\nrounds = 1\n[arms.du]\nmethod = "du"\n'
    )
    done = runner.invoke(app, ["eval", "--config", str(sweep), "--quiet"])
    assert done.exit_code == 0, done.output
    assert all(isinstance(t["prompt"], str) for t in the_row(out)["turns"])


def test_the_notebook_view_folds_each_prompt_where_the_turn_kept_one(tmp_path):
    from html import escape

    from debategraph.eval.log.rows import result_from_row

    live = dg.run("What is 2+3?", method="du", agents=2, rounds=1, seed=0, task="number")
    html = live._repr_html_()
    assert html.count("<summary><small>prompt</small></summary>") == 4
    assert escape(live.turns[2]["prompt"]) in html
    out = tmp_path / "r"
    assert runner.invoke(app, [*EVAL, "--out", str(out)]).exit_code == 0
    stored = result_from_row(the_row(out))  # written without --prompts
    assert "<small>prompt</small>" not in stored._repr_html_()


def test_the_notebook_view_of_a_row_without_texts_shows_the_answers(tmp_path):
    from debategraph.eval.log.rows import result_from_row

    out = tmp_path / "r"
    assert runner.invoke(app, [*EVAL, "--out", str(out), "--no-texts"]).exit_code == 0
    row = the_row(out)
    html = result_from_row(row)._repr_html_()
    assert all("text" not in t for t in row["turns"])
    assert "<pre" not in html and f"{row['answer']}" in html
