"""Personas: a role prompt per agent, for any method, from every front end."""

import json

import pytest
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.eval.run.sweep import load_sweep
from debategraph.methods import DebateConfigError
from debategraph.policies.tokens import estimate_tokens
from debategraph.prompts.groupdebate import SYSTEM
from debategraph.testing import ScriptedChatModel

from .fixed_length import FixedLength

ARITH = "What is the result of 3+4*5+6-7*2?"
ACCOUNTANT = "You are a careful accountant who checks every sum twice."
runner = CliRunner()


def test_a_persona_is_the_system_prompt_of_every_call_of_its_agent_only():
    model = ScriptedChatModel(respond=lambda p: "\\boxed{15}")
    r = dg.run(ARITH, method="du-sum", agents=2, rounds=1, models=model,
               personas={"a1": ACCOUNTANT})  # fmt: skip
    by_prompt = [(c["messages"][0], c["prompt"]) for c in model.calls]
    a1 = [m for m, p in by_prompt if m == ("system", ACCOUNTANT)]
    assert len(a1) == 2  # a1's initial answer and its debate answer
    summaries = [m for m, p in by_prompt if p.startswith("The latest answers of several")]
    assert len(summaries) == 2 and all(m[0] == "human" for m in summaries)  # roles: none
    assert len(model.calls) == 6
    assert r.settings["personas"] == {"a1": ACCOUNTANT}


def test_a_persona_goes_before_the_methods_own_system_prompt():
    model = ScriptedChatModel(respond=lambda p: "\\boxed{15}")
    dg.run(ARITH, method="groupdebate", agents=4, rounds=1, models=model,
           personas={"a2": ACCOUNTANT}, options={"groups": (2, 2)})  # fmt: skip
    firsts = {c["messages"][0] for c in model.calls if c["messages"][0][0] == "system"}
    assert firsts == {("system", f"{ACCOUNTANT}\n\n{SYSTEM}"), ("system", SYSTEM)}


def test_a_persona_costs_its_tokens_on_every_call_of_its_agent():
    plain = dg.run(ARITH, method="mallm-relay", agents=3, rounds=2, models=FixedLength())
    cast = dg.run(ARITH, method="mallm-relay", agents=3, rounds=2, models=FixedLength(),
                  personas={"a2": ACCOUNTANT})  # fmt: skip
    extra = estimate_tokens(ACCOUNTANT)
    for before, after in zip(plain.turns, cast.turns, strict=True):
        added = extra if after["agent"] == "a2" else 0
        assert after["input_tokens"] == before["input_tokens"] + added, after["id"]
    assert cast.usage["input_tokens"] == plain.usage["input_tokens"] + 3 * extra
    assert "personas" not in plain.settings


@pytest.mark.parametrize(
    ("personas", "message"),
    [
        ({"a7": ACCOUNTANT}, r"persona agents \['a7'\] are not among \['a1', 'a2'\]"),
        ({"a1": "  "}, "persona of a1 must be a non-empty role prompt"),
        (["a1"], "personas must be a mapping"),
    ],
)
def test_bad_personas_are_refused_before_any_call(personas, message):
    model = ScriptedChatModel(respond=lambda p: "\\boxed{15}")
    with pytest.raises(DebateConfigError, match=message):
        dg.run(ARITH, method="du", agents=2, models=model, personas=personas)
    assert model.calls == []


def test_a_cached_reply_is_never_served_to_another_persona(tmp_path):
    cache = tmp_path / "calls.sqlite"
    settings = {"method": "mav", "agents": 2, "cache": cache}
    first = ScriptedChatModel(respond=lambda p: "\\boxed{15}")
    dg.run(ARITH, models=first, personas={"a1": ACCOUNTANT}, **settings)
    again = ScriptedChatModel(respond=lambda p: "\\boxed{15}")
    dg.run(ARITH, models=again, personas={"a1": ACCOUNTANT}, **settings)
    other = ScriptedChatModel(respond=lambda p: "\\boxed{15}")
    dg.run(ARITH, models=other, personas={"a1": "You are a poet."}, **settings)
    assert (len(first.calls), len(again.calls), len(other.calls)) == (2, 0, 1)


def test_run_takes_persona_options_and_records_them():
    out = runner.invoke(app, ["run", "--method", "mav", "--agents", "2", "--json",
                              "--persona", f"a2={ACCOUNTANT}", ARITH])  # fmt: skip
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["settings"]["personas"] == {"a2": ACCOUNTANT}
    bad = runner.invoke(app, ["run", "--persona", "a2", ARITH])
    assert bad.exit_code == 2 and "--persona takes AGENT=TEXT" in bad.output


def test_a_sweep_sets_personas_per_arm_and_rows_record_them(tmp_path):
    config = tmp_path / "sweep.toml"
    config.write_text(
        'dataset = "arithmetic"\nlimit = 1\n[settings]\nagents = 2\nrounds = 1\n'
        '[arms.plain]\nmethod = "mallm-collective"\n'
        f'[arms.cast]\nmethod = "mallm-collective"\npersonas = {{ a1 = "{ACCOUNTANT}" }}\n'
    )
    arms = {arm.label: arm.settings for arm in load_sweep(config).arms}
    assert arms["cast"]["personas"] == {"a1": ACCOUNTANT} and "personas" not in arms["plain"]
    out = tmp_path / "out"
    done = runner.invoke(app, ["eval", "--config", str(config), "--out", str(out), "--quiet"])
    assert done.exit_code == 0, done.output
    rows = {r["method"]: r for r in map(json.loads, (out / "results.jsonl").open())}
    assert rows["cast"]["settings"]["personas"] == {"a1": ACCOUNTANT}
    assert "personas" not in rows["plain"]["settings"]
    assert rows["cast"]["input_tokens"] > rows["plain"]["input_tokens"]


def test_the_studio_graph_takes_personas_in_its_context():
    from debategraph.graphs import studio

    plain = studio.graph("mallm-collective").invoke({"question": ARITH}, context={"rounds": 1})
    cast = studio.graph("mallm-collective").invoke(
        {"question": ARITH}, context={"rounds": 1, "personas": {"a3": ACCOUNTANT}}
    )
    pairs = zip(plain["turns"], cast["turns"], strict=True)
    grew = [b["input_tokens"] - a["input_tokens"] for a, b in pairs]
    assert grew[:3] == [0, 0, estimate_tokens(ACCOUNTANT)]  # round 0: the same prompts
