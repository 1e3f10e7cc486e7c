"""Settings declared once: every front end derives from the declaration on DebateContext.

``frequency_penalty`` and ``reasoning_effort`` are declared on ``DebateContext`` and nowhere
else; these tests show them working from Python, ``run``, ``eval``, a sweep file and Studio.
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

import pytest
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.eval.run.arms import budget_arms
from debategraph.eval.run.runner import Arm
from debategraph.eval.run.sweep import RUN_KEYS, SweepError, load_sweep
from debategraph.state.settings_table import arm_keys, declared, for_command, voting_keys

from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"
runner = CliRunner()

RUN_FLAGS = [
    "--method", "--task", "--choice", "--cache", "--no-cache", "--graph-png", "--json",
    "--text", "--show-text", "--agents", "--rounds", "--model", "--base-url", "--seed",
    "--tie-policy", "--peer-reasoning", "--decision", "--decision-option", "--option",
    "--cut-off", "--attack",
    "--attack-ratio", "--adversary", "--persona", "--settings", "--temperature", "--top-p",
    "--top-k", "--max-tokens", "--stop", "--frequency-penalty", "--reasoning-effort",
    "--thinking", "--timeout", "--logprobs", "--allow-large", "--max-attempts", "--retry-backoff",
    "--gate"
]  # fmt: skip
"""Today's ``run`` options, written out by hand: the derivation must keep every name."""

EVAL_FLAGS = [
    "--method", "--config", "--dataset", "--limit", "--seed", "--seeds", "--ids", "--path",
    "--cache", "--no-cache", "--match-budget", "--noise-control", "--only-contested",
    "--concurrency", "--rps",
    "--engine", "--address", "--workers", "--out", "--force", "--fsync", "--prices", "--quiet",
    "--texts", "--prompts", "--agents", "--rounds", "--model", "--base-url", "--tie-policy",
    "--peer-reasoning", "--decision", "--decision-option", "--option", "--settings",
    "--temperature", "--top-p", "--top-k", "--max-tokens", "--stop", "--frequency-penalty",
    "--reasoning-effort", "--thinking",
    "--timeout", "--logprobs", "--allow-large", "--max-attempts", "--retry-backoff", "--gate",
    "--max-usd", "--max-tokens-total",
]  # fmt: skip


def _options(command: str) -> set[str]:
    from typer.main import get_command

    click_command = get_command(app).commands[command]  # type: ignore[attr-defined]
    opts = (o for p in click_command.params for o in (*p.opts, *p.secondary_opts))
    return {o for o in opts if o.startswith("--")}


def test_every_context_field_is_declared_and_the_commands_keep_their_flags():
    names = {s.field for s in declared() if s.field}
    assert names == {f.name for f in fields(dg.DebateContext)}
    negatives = {"--no-attack", "--no-logprobs", "--no-allow-large", "--no-text", "--no-show-text"}
    assert _options("run") == {*RUN_FLAGS, *negatives}
    negatives = {"--no-logprobs", "--no-allow-large", "--no-only-contested", "--no-force"}
    negatives |= {"--no-prompts", "--no-noise-control"}
    assert _options("eval") == {*EVAL_FLAGS, *negatives, "--no-fsync", "--no-quiet", "--no-texts"}
    generation = {s.name for s in for_command("eval") if s.group == "generation"}
    assert {"frequency_penalty", "reasoning_effort", "temperature"} <= generation
    assert {"frequency_penalty", "reasoning_effort", "models", "seed"} <= voting_keys()
    assert "frequency_penalty" in arm_keys() and "limit" not in arm_keys()
    assert set(RUN_KEYS) == {
        "dataset", "limit", "seed", "seeds", "ids", "path", "concurrency", "rps", "out",
        "cache", "match_budget", "texts", "only_contested", "noise_control", "engine",
        "address", "workers",
        "prompts", "max_usd", "max_tokens_total",
    }  # fmt: skip


def test_switches_keep_their_negative_forms():
    run = _options("run")
    assert {"--attack", "--no-attack", "--logprobs", "--no-logprobs"} <= run
    assert "--no-no-cache" not in _options("eval") and "--no-texts" in _options("eval")


def test_help_groups_the_settings_in_panels():
    done = runner.invoke(app, ["eval", "--help"], env={"COLUMNS": "200"})
    assert done.exit_code == 0
    panels = re.findall(r"╭─ ([A-Za-z ]+) ─", done.output)
    assert panels == ["Options", "Debate settings", "Generation settings"]


def test_the_new_settings_are_checked_with_one_line():
    assert dg.DebateContext(frequency_penalty=-2, reasoning_effort="low").generation() == {
        "frequency_penalty": -2,
        "reasoning_effort": "low",
    }
    with pytest.raises(dg.DebateConfigError, match="frequency_penalty must be between -2 and 2"):
        dg.DebateContext(frequency_penalty=2.5)
    with pytest.raises(dg.DebateConfigError, match="frequency_penalty must be a finite number"):
        dg.DebateContext(frequency_penalty=float("nan"))
    with pytest.raises(
        dg.DebateConfigError,
        match="reasoning_effort must be one of none, minimal, low, medium, high, xhigh, got 'max'",
    ):
        dg.DebateContext(reasoning_effort="max")
    with pytest.raises(dg.DebateConfigError, match="did you mean 'frequency_penalty'"):
        dg.DebateContext(**{"frequency_penalti": 0.1})
    done = runner.invoke(app, ["run", ARITH, "--reasoning-effort", "maximal"])
    assert done.exit_code == 2
    assert "error: reasoning_effort must be one of none" in done.stderr


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-key")
    with serve(seed=3) as running:
        yield running


def _sent(server) -> list[tuple[object, object]]:
    bodies = [r.body for r in server.requests if r.path.endswith("/chat/completions")]
    assert bodies
    return [(b.get("frequency_penalty"), b.get("reasoning_effort")) for b in bodies]


NEW = {"frequency_penalty": 0.5, "reasoning_effort": "low"}


def test_python_sends_them_to_the_server_and_records_them(server):
    r = dg.run(ARITH, method="du", agents=2, rounds=1, models="sim-0", base_url=server.base_url,
               **NEW)  # fmt: skip
    assert set(_sent(server)) == {(0.5, "low")}
    assert r.settings["generation"] == NEW
    server.reset()
    dg.run(ARITH, method="du", agents=2, rounds=0, models="sim-0", base_url=server.base_url)
    assert set(_sent(server)) == {(None, None)}  # unset: not sent


def test_run_sends_them(server):
    args = ["run", ARITH, "--agents", "2", "--rounds", "1", "--model", "sim-0"]
    args += ["--base-url", server.base_url, "--json"]
    done = runner.invoke(app, [*args, "--frequency-penalty", "0.5", "--reasoning-effort", "low"])
    assert done.exit_code == 0, done.output
    assert set(_sent(server)) == {(0.5, "low")}
    assert json.loads(done.stdout)["settings"]["generation"] == NEW


def _rows(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_eval_sends_them_records_them_and_sc_samples_alike(server, tmp_path: Path):
    out = tmp_path / "run"
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "2", "--agents", "2"]
    args += ["--rounds", "1", "--model", "sim-0", "--base-url", server.base_url, "--quiet"]
    args += ["--frequency-penalty", "0.5", "--reasoning-effort", "low", "--out", str(out)]
    done = runner.invoke(app, [*args, "--match-budget", "calls"])
    assert done.exit_code == 0, done.output
    assert set(_sent(server)) == {(0.5, "low")}
    rows = _rows(out)
    assert {r["method"] for r in rows} == {"du", "sc@du"}
    assert all(r["settings"]["generation"] == NEW for r in rows)  # type: ignore[index]
    arms = json.loads((out / "run.json").read_text())["settings"]["arms"]
    assert all(NEW.items() <= a["settings"].items() for a in arms)


def test_a_sweep_file_takes_them_shared_and_per_arm(server, tmp_path: Path):
    config = tmp_path / "sweep.toml"
    config.write_text(
        f'dataset = "arithmetic"\nlimit = 1\nout = "{tmp_path / "out"}"\n'
        f'[settings]\nmodels = "sim-0"\nbase_url = "{server.base_url}"\nagents = 2\n'
        "rounds = 0\nfrequency_penalty = 0.5\n"
        '[arms.low]\nmethod = "du"\nreasoning_effort = "low"\n'
        '[arms.high]\nmethod = "du"\nreasoning_effort = "high"\nfrequency_penalty = -1\n'
    )
    done = runner.invoke(app, ["eval", "--config", str(config), "--quiet"])
    assert done.exit_code == 0, done.output
    assert set(_sent(server)) == {(0.5, "low"), (-1, "high")}
    rows = {r["method"]: r["settings"]["generation"] for r in _rows(tmp_path / "out")}
    assert rows == {
        "low": {"frequency_penalty": 0.5, "reasoning_effort": "low"},
        "high": {"frequency_penalty": -1, "reasoning_effort": "high"},
    }


def test_a_sweep_file_names_a_misplaced_or_misspelt_key_and_where_it_belongs(tmp_path: Path):
    config = tmp_path / "s.toml"
    cases = {
        'dataset = "gsm8k"\nfrequency_penalty = 0.5\n[arms.du]\nmethod = "du"': (
            "unknown key(s) frequency_penalty (a debate setting: put it in [settings] or an arm)"
        ),
        'dataset = "gsm8k"\n[settings]\nlimit = 3\n[arms.du]\nmethod = "du"': (
            "unknown setting(s) limit (it belongs at the top level of the file)"
        ),
        'dataset = "gsm8k"\n[arms.du]\nmethod = "du"\nreasoning_efort = "low"': (
            "unknown setting(s) reasoning_efort (did you mean reasoning_effort?)"
        ),
        'dataset = "gsm8k"\nlimt = 3\n[arms.du]\nmethod = "du"': (
            "unknown key(s) limt (did you mean limit?)"
        ),
    }
    for text, message in cases.items():
        config.write_text(text)
        with pytest.raises(SweepError, match=re.escape(message)):
            load_sweep(config)
    config.write_text('dataset = "arithmetic"\n[arms.du]\nmethod = "du"\n')
    done = runner.invoke(app, ["eval", "--config", str(config), "--reasoning-effort", "low"])
    assert done.exit_code == 2
    assert "put --reasoning-effort in the sweep file (its [settings] or an arm)" in done.stderr
    done = runner.invoke(app, ["eval", "--config", str(config), "--only-contested"])
    assert "put only_contested = true in the sweep file (top level)" in done.stderr


def test_a_bad_value_in_a_sweep_is_refused_before_any_call(tmp_path: Path):
    config = tmp_path / "s.toml"
    config.write_text('dataset = "arithmetic"\n[arms.du]\nmethod = "du"\nfrequency_penalty = 9\n')
    done = runner.invoke(app, ["eval", "--config", str(config), "--quiet", "--out",
                               str(tmp_path / "o")])  # fmt: skip
    assert done.exit_code == 2
    assert "frequency_penalty must be between -2 and 2, got 9" in done.stderr


def test_budget_matched_voting_takes_the_declared_voting_settings():
    arm = Arm("du", "du", {"agents": 3, "frequency_penalty": 0.3, "reasoning_effort": "high",
                          "logprobs": True, "decision": "freemad"})  # fmt: skip
    sc = budget_arms([arm])[0]
    assert sc.settings == {"frequency_penalty": 0.3, "reasoning_effort": "high", "rounds": 0}


def test_studio_shows_them_in_the_context_form_and_takes_them():
    from debategraph.graphs.studio import graph

    schema = graph("du").get_context_jsonschema()
    assert schema is not None
    properties = schema["properties"]
    for name in ("frequency_penalty", "reasoning_effort"):
        assert "sent as the" in properties[name]["description"]
    ctx = dg.DebateContext.of({"frequency_penalty": 0.1, "reasoning_effort": "medium"})
    assert ctx.generation() == {"frequency_penalty": 0.1, "reasoning_effort": "medium"}
