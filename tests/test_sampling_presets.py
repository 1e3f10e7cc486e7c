"""The papers' sampling one flag away: ``settings="paper"`` / ``--settings paper``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.policies.sampling import Sampling, SamplingPreset
from debategraph.testing import ScriptedChatModel

from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"
runner = CliRunner()


def test_a_preset_gives_each_model_its_settings_overrides_key_by_key():
    preset = SamplingPreset(
        source="a paper",
        sampling=Sampling(temperature=1.0, top_p=1.0),
        per_model=(("qwen2.5-math", Sampling(temperature=0.2)),),
    )
    assert preset.for_model("Qwen/Qwen2.5-Math-7B-Instruct") == Sampling(0.2, 1.0)
    assert preset.for_model("openai:gpt-4o-mini") == Sampling(1.0, 1.0)
    assert Sampling(top_k=40).over(Sampling(0.5, 0.9, 10)).kwargs() == {
        "temperature": 0.5, "top_p": 0.9, "top_k": 40,
    }  # fmt: skip
    assert preset.describe() == (
        "temperature 1.0, top-p 1.0; temperature 0.2, top-p 1.0 for models named "
        "*qwen2.5-math* (a paper)"
    )
    assert Sampling().describe() == "provider defaults"


def test_the_papers_settings_reach_every_call_and_explicit_ones_win():
    def calls(**settings):
        models = [ScriptedChatModel(replies=["\\boxed{15}"]) for _ in range(3)]
        options = {"prior": "confidence"}  # no logprobs asked
        r = dg.run(ARITH, method="svr", agents=3, models=models, options=options, **settings)
        kwargs = [c["kwargs"] for m in models for c in m.calls]
        assert kwargs
        return r, kwargs

    r, sent = calls(settings="paper")
    assert all(k == {"temperature": 1.0, "top_p": 0.95, "top_k": 40} for k in sent), sent
    assert r.settings["sampling"] == {
        "preset": "paper", "source": "SVR-MAD, App. A",
        "by_model": {"scripted": {"temperature": 1.0, "top_p": 0.95, "top_k": 40}},
    }  # fmt: skip
    _, sent = calls(settings="paper", temperature=0.3)
    assert all(k == {"temperature": 0.3, "top_p": 0.95, "top_k": 40} for k in sent)
    _, sent = calls(settings="paper", top_k=0)  # 0 sends none
    assert all(k == {"temperature": 1.0, "top_p": 0.95} for k in sent)
    r, sent = calls()
    assert all(k == {} for k in sent) and "sampling" not in r.settings


def test_a_paper_that_states_nothing_sends_nothing_and_says_so():
    model = ScriptedChatModel(replies=["\\boxed{15}"])
    r = dg.run(ARITH, method="cot", models=model, settings="paper")
    assert model.calls[0]["kwargs"] == {}
    assert r.settings["sampling"]["by_model"] == {"scripted": {}}
    assert dg.get_method("freemad-n").preset("paper").sampling == Sampling()


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-key")
    with serve(seed=3) as running:
        yield running


def test_a_compatible_server_gets_top_k_in_the_body_and_the_per_model_temperature(server):
    dg.run(ARITH, method="svr", models="sim-0", base_url=server.base_url, settings="paper")
    bodies = [r.body for r in server.requests if r.path.endswith("/chat/completions")]
    assert bodies and all(
        (b["temperature"], b["top_p"], b["top_k"]) == (1.0, 0.95, 40) for b in bodies
    )
    server.reset()
    math, plain = "Qwen2.5-Math-7B-Instruct", "Qwen2.5-7B-Instruct"
    r = dg.run(ARITH, method="mad", models=[math, plain, plain], base_url=server.base_url,
               settings="paper")  # fmt: skip
    sent = {(b["model"], b["temperature"], b["top_p"]) for b in (q.body for q in server.requests)}
    assert sent == {(math, 0.2, 1.0), (plain, 1.0, 1.0)}
    assert r.settings["sampling"]["by_model"] == {
        math: {"temperature": 0.2, "top_p": 1.0}, plain: {"temperature": 1.0, "top_p": 1.0},
    }  # fmt: skip


def test_top_k_that_the_model_cannot_send_is_refused_before_any_call(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-sent")
    with pytest.raises(dg.DebateConfigError, match="preset of svr sets top_k=40") as caught:
        dg.run(ARITH, method="svr", models="openai:gpt-4o-mini", settings="paper")
    assert "--top-k 0" in str(caught.value) and "base_url" in str(caught.value)
    with pytest.raises(dg.DebateConfigError, match="top_k=5 cannot be sent to openai-chat"):
        dg.run(ARITH, method="du", models="openai:gpt-4o-mini", top_k=5)
    # --top-k 0 drops the preset's: the rest of it still applies.
    ctx = dg.DebateContext(settings="paper", top_k=0)
    assert dg.get_method("svr").generation_for(ctx, "openai:gpt-4o-mini") == {
        "temperature": 1.0, "top_p": 0.95,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"settings": "fast"}, "du has no sampling preset 'fast' (its presets: paper)"),
        ({"settings": ""}, "settings must name a sampling preset"),
        ({"top_k": -1}, "top_k must be 0 (none) or more"),
    ],
)
def test_bad_presets_are_refused(settings, message):
    with pytest.raises(dg.DebateConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        dg.run(ARITH, method="du", **settings)


def test_a_plugin_without_presets_is_told_what_to_set():
    method = dg.Method(name="bare", description="", prompts={}, plan=lambda view: None)
    with pytest.raises(dg.DebateConfigError, match="bare has no sampling preset 'paper' \\(it"):
        method.preset("paper")


def test_the_command_line_records_the_preset_in_run_json_and_rows(tmp_path: Path):
    out = tmp_path / "run"
    args = ["eval", "--method", "svr", "--method", "du", "--dataset", "arithmetic", "--limit", "2"]
    args += ["--settings", "paper", "--match-budget", "calls", "--out", str(out), "--quiet"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    manifest = json.loads((out / "run.json").read_text())
    arms = {a["label"]: a for a in manifest["settings"]["arms"]}
    assert arms["svr"]["settings"]["settings"] == "paper"
    # sc@svr samples as svr does, its settings spelt out.
    paper = {"temperature": 1.0, "top_p": 0.95, "top_k": 40}
    assert paper.items() <= arms["sc@svr"]["settings"].items()
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    svr = [r for r in rows if r["method"] == "svr"]
    assert all(r["settings"]["sampling"]["preset"] == "paper" for r in svr)
    single = runner.invoke(app, ["run", "--method", "svr", "--settings", "paper", "--json", ARITH])
    assert json.loads(single.stdout)["settings"]["sampling"]["by_model"] == {
        "simulated": {"temperature": 1.0, "top_p": 0.95, "top_k": 40},
    }  # fmt: skip


def test_every_card_shows_its_methods_preset():
    for m in dg.list_methods():
        if m.card and m.card.startswith("docs/"):
            text = Path(m.card).read_text(encoding="utf-8")
            assert f"| `{m.name}` | {m.preset('paper').describe()} |" in text, m.name
