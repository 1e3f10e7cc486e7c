"""The communication attack and adversarial agents as engine options, for any method."""

import json

import pytest
from typer.testing import CliRunner

import debategraph as dg
from debategraph.api import DebateConfigError, make_context
from debategraph.cli import app
from debategraph.methods import get_method
from debategraph.policies.attack import choose_cut_off
from debategraph.prompts.common import ADVERSARY_INSTRUCTION
from debategraph.state.context import DebateContext

ARITH = "What is the result of 3+4*5+6-7*2?"
REFLECT = "Go over your previous answer"
runner = CliRunner()


@pytest.mark.parametrize("method", ["du", "freemad-n", "freemad-c"])
def test_cut_off_agent_reads_nothing_while_others_read_it(method):
    r = dg.run(ARITH, method=method, agents=4, rounds=2, cut_off=["a2"], seed=1)
    assert r.cut_off == ["a2"]
    for k in (1, 2):
        turns = {t["agent"]: t for t in r.turns if t["round"] == k}
        assert turns["a2"]["reads"] == []
        assert REFLECT in turns["a2"]["prompt"] and "```" not in turns["a2"]["prompt"]
        for other in ("a1", "a3", "a4"):
            assert f"r{k - 1}:a2" in turns[other]["reads"]
            assert REFLECT not in turns[other]["prompt"]
    # Three readers of three peers, in two rounds; a2 reads none.
    assert r.ncomm == 3 * 3 * 2


def test_cut_off_applies_to_ring_neighbours_too():
    r = dg.run(ARITH, method="ring", agents=5, rounds=1, cut_off=["a1"])
    reads = {t["agent"]: t["reads"] for t in r.turns if t["round"] == 1}
    assert reads["a1"] == [] and "r0:a1" in reads["a2"] and "r0:a1" in reads["a5"]


def test_attack_ratio_choice_is_seeded_and_recorded():
    method = get_method("freemad-n")
    names = ["a1", "a2", "a3", "a4"]
    for seed in range(6):
        ctx = make_context(method, attack_ratio=0.5, seed=seed)
        assert ctx.cut_off_agents(names) == choose_cut_off(names, 0.5, seed)
        assert len(ctx.cut_off_agents(names)) == 2
    choices = {
        tuple(DebateContext(attack_ratio=0.5, seed=s).cut_off_agents(names)) for s in range(10)
    }
    assert len(choices) > 1
    r = dg.run(ARITH, method="freemad-n", attack_ratio=0.5, seed=4)
    assert r.cut_off == choose_cut_off(["a1", "a2", "a3", "a4"], 0.5, 4)
    assert json.loads(json.dumps(r.to_dict()))["cut_off"] == r.cut_off
    assert all(t["reads"] == [] for t in r.turns if t["agent"] in r.cut_off)


def test_attack_shorthand_cuts_off_one_agent():
    r = dg.run(ARITH, method="freemad-c", attack=True, seed=7)
    assert r.cut_off == choose_cut_off(["a1", "a2", "a3", "a4"], None, 7)
    assert len(r.cut_off) == 1
    assert dg.run(ARITH, method="freemad-c").cut_off == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"attack_ratio": 1.5}, "attack ratio must be a number in"),
        ({"attack_ratio": -0.1}, "attack ratio must be a number in"),
        ({"attack_ratio": 0.5, "cut_off": ["a1"]}, "not both"),
        ({"adversaries": {"a9": "42"}}, "adversary agents"),
        ({"adversaries": {"a1": " "}}, "non-empty answer"),
    ],
)
def test_bad_attack_settings_fail_before_any_call(kwargs, message):
    with pytest.raises(DebateConfigError, match=message):
        dg.run(ARITH, method="freemad-n", **kwargs)


def test_adversary_instruction_ends_only_the_adversarys_prompts():
    r = dg.run(ARITH, method="du", agents=3, rounds=1, adversaries={"a3": "42"})
    instruction = "\n\n" + ADVERSARY_INSTRUCTION.format(answer="42")
    assert [t["prompt"].endswith(instruction) for t in r.turns] == [False, False, True] * 2


@pytest.mark.parametrize("method", ["du", "freemad-n", "reconcile"])
def test_simulated_adversary_argues_for_its_target_every_round(method):
    r = dg.run(
        ARITH, method=method, rounds=2, adversaries={"a3": "42"}, stop_on_consensus=False, seed=0
    )
    instruction = ADVERSARY_INSTRUCTION.format(answer="42")
    for t in r.turns:
        assert (instruction in t["prompt"]) is (t["agent"] == "a3")
        if t["agent"] == "a3":
            assert t["answer"] == "42"
    assert r.adversaries == {"a3": "42"}
    assert r.to_dict()["adversaries"] == {"a3": "42"}


def cli(*args):
    return runner.invoke(app, ["run", "--json", *args, ARITH])


def test_cli_attack_and_adversary_flags():
    out = cli("--method", "freemad-n", "--cut-off", "a1", "--cut-off", "a3")
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["cut_off"] == ["a1", "a3"]
    assert all(t["reads"] == [] for t in d["turns"] if t["agent"] in ("a1", "a3"))

    out = cli("--method", "du", "--agents", "4", "--attack-ratio", "0.5", "--seed", "2")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["cut_off"] == choose_cut_off(["a1", "a2", "a3", "a4"], 0.5, 2)

    out = cli("--method", "freemad-c", "--attack", "--seed", "2")
    assert len(json.loads(out.stdout)["cut_off"]) == 1

    out = cli("--method", "freemad-n", "--adversary", "a3=42")
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["adversaries"] == {"a3": "42"}
    assert [t["answer"] for t in d["turns"] if t["agent"] == "a3"] == ["42", "42"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cut-off", "a9"], "cut-off agents ['a9'] are not among"),
        (["--attack-ratio", "1.5"], "--attack-ratio must be 0 to 1, got 1.5"),
        (["--attack-ratio", "0.5", "--cut-off", "a1"], "not both"),
        (["--adversary", "a9=4"], "adversary agents ['a9'] are not among"),
        (["--adversary", "a3"], "--adversary takes AGENT=ANSWER"),
        (["--adversary", "a3="], "--adversary takes AGENT=ANSWER"),
    ],
)
def test_cli_bad_attack_values_exit_2_with_a_message(args, message):
    out = cli("--method", "freemad-n", *args)
    assert out.exit_code == 2, out.output
    assert message in " ".join(out.stderr.split())
