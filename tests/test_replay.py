"""Interventions replayed on hand-built stored debates: exact counts, tokens, exactness."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.analysis.replay import (
    Replayed,
    list_policies,
    parse_policy,
    register_policy,
    replay,
)
from debategraph.eval.analysis.stats import paired_score_interval
from debategraph.methods.plugins import PluginError
from tests.test_transitions import ROWS, _row, _turn


def _counts(out: dict[str, Any]) -> tuple[Any, ...]:
    r = out["du"]
    return (
        r["exact_items"],
        r["cut_short"],
        r["accuracy_as_run"],
        r["accuracy_replayed"],
        r["collapses_prevented"],
        r["corrections_lost"],
        round(r["net_points"], 9),
    )


def test_the_built_in_policies_are_listed():
    assert list_policies()[:4] == ["stop-at-round", "stop-at-unanimity", "gate", "freeze"]


def test_stop_at_round_zero_counted_by_hand():
    out = replay(ROWS, "stop-at-round:0")
    # the collapse is prevented, the correction lost; the rest keep their answers
    assert _counts(out) == (5, 5, 3 / 5, 3 / 5, 1, 1, 0.0)
    paired = out["du"]["paired"]
    assert (paired["a_only"], paired["b_only"]) == (1, 1)
    assert paired["interval"] == list(paired_score_interval(1, 1, 5))


def test_stop_at_round_one_counted_by_hand():
    out = replay(ROWS, "stop-at-round:1")
    # the last row's round-1 majority is wrong: a right answer lost, but not a correction
    # (its round-0 majority was right)
    assert _counts(out) == (5, 3, 3 / 5, 2 / 5, 0, 0, -20.0)
    assert out["du"]["paired"]["b_only"] == 1


def test_a_policy_that_cuts_nothing_changes_nothing():
    out = replay(ROWS, "stop-at-round:9")
    assert _counts(out) == (5, 0, 3 / 5, 3 / 5, 0, 0, 0.0)


@pytest.mark.parametrize("policy", ["stop-at-unanimity", "gate:unanimous", "gate:entropy<0.5"])
def test_unanimity_stops_and_the_gates(policy):
    # only the unanimous row settles at round 0 (entropy 0); it is right either way
    assert _counts(replay(ROWS, policy)) == (5, 1, 3 / 5, 3 / 5, 0, 0, 0.0)


def test_an_entropy_gate_that_settles_a_split_vote():
    # two against one is 0.918 bits: under 1 every three-agent row with a majority stops
    out = replay(ROWS, "gate:entropy<1")
    assert _counts(out) == (5, 5, 3 / 5, 3 / 5, 1, 1, 0.0)


def test_a_confidence_gate_without_confidences_says_so():
    out = replay(ROWS, "gate:confidence>0.5")["du"]
    assert out["exact_items"] == 0
    assert out["not_exact"] == {
        "no round-0 confidence kept: the gate would ask every agent for one": 5
    }
    rows = [{**r, "round_confidences": [[0.9, 0.9, 0.2]]} for r in ROWS]
    assert replay(rows, "gate:confidence>0.5")["du"]["exact_items"] == 5


def test_freeze_is_exact_only_where_no_peer_read_a_changed_answer():
    out = replay(ROWS, "freeze:a1")["du"]
    # a1 changed before the last round in the correction row and the recovered row
    assert out["exact_items"] == 3
    assert sum(out["not_exact"].values()) == 2
    # the collapse row: a1 frozen on "1" makes the last vote 1-2-2: still wrong
    assert (out["accuracy_as_run"], out["accuracy_replayed"]) == (1 / 3, 1 / 3)
    assert replay(ROWS, "freeze:1")["du"]["exact_items"] == 3


def _turns_row() -> dict[str, Any]:
    """a1 changes in round 1, but only a2 and a3 read each other: a freeze is exact."""
    turns = [
        _turn("r0:a1", "a1", 0, "2", []),
        _turn("r0:a2", "a2", 0, "1", []),
        _turn("r0:a3", "a3", 0, "1", []),
        _turn("r1:a1", "a1", 1, "1", []),
        _turn("r1:a2", "a2", 1, "1", ["r0:a3"]),
        _turn("r1:a3", "a3", 1, "1", ["r0:a2"]),
        _turn("r2:a1", "a1", 2, "1", []),
        _turn("r2:a2", "a2", 2, "1", ["r1:a3"]),
        _turn("r2:a3", "a3", 2, "1", ["r1:a2"]),
    ]
    for k, t in enumerate(turns):
        t.update(input_tokens=10 * (k + 1), output_tokens=1)
    rounds = [["2", "1", "1"], ["1", "1", "1"], ["1", "1", "1"]]
    row = _row(rounds, True, turns=turns, agent_names=["a1", "a2", "a3"])
    row.update(input_tokens=450, output_tokens=9)
    return row


def test_tokens_from_the_turns_kept():
    row = _turns_row()
    assert parse_policy("stop-at-round:0")(row) == Replayed("1", 0, 10 + 20 + 30 + 3)
    assert parse_policy("stop-at-round:1")(row).tokens == 210 + 6
    # a frozen a1 makes no call after round 0 (turns 4 and 7: 40 + 70 tokens, 2 output)
    frozen = parse_policy("freeze:a1")(row)
    assert frozen.exact and frozen.answer == "1"
    assert frozen.tokens == 459 - 40 - 70 - 2
    out = replay([row], "stop-at-round:0")["du"]
    assert out["tokens_known"]
    assert (out["tokens_per_item_as_run"], out["tokens_per_item_replayed"]) == (459, 63)


def test_a_freeze_read_by_a_peer_is_not_exact():
    row = _turns_row()
    row["turns"][4]["reads"] = ["r0:a3", "r1:a1"]  # impossible in a real run, but read
    row["turns"][7]["reads"] = ["r1:a1"]
    replayed = parse_policy("freeze:a1")(row)
    assert not replayed.exact and "a1's changed answer of round 1" in replayed.why


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("stop-at-round:x", "needs a round number"),
        ("stop-at-round", "needs a round number"),
        ("stop-at-unanimity:2", "takes no argument"),
        ("gate:often", "is not understood"),
        ("nope", "unknown replay policy 'nope'"),
    ],
)
def test_bad_policies_say_what_to_fix(spec, words):
    with pytest.raises(ValueError, match=words):
        parse_policy(spec)


def test_a_policy_is_a_plugin():
    def everyone_says_one(argument: str | None):
        return lambda row: Replayed("1", 0, None)

    register_policy("say-one", everyone_says_one)
    try:
        out = replay(ROWS, "say-one")["du"]
        assert out["accuracy_replayed"] == 1.0 and out["corrections_lost"] == 0
        with pytest.raises(PluginError, match="already registered"):
            register_policy("say-one", lambda argument: lambda row: Replayed(None, 0, None))
    finally:
        from debategraph.eval.analysis import replay as module

        module._POLICIES.unregister("say-one")
    assert "say-one" not in list_policies()


def test_the_replay_command(tmp_path):
    lines = [json.dumps({**r, "source": "simulated"}) for r in ROWS]
    (tmp_path / "results.jsonl").write_text("\n".join(lines) + "\n")
    runner = CliRunner()
    done = runner.invoke(app, ["replay", str(tmp_path), "--policy", "stop-at-round:0"])
    assert done.exit_code == 0, done.output
    assert "## Replayed: stop-at-round:0" in done.output
    assert "| du | 5 (5) | 5 | 60.0% | 60.0% |" in done.output
    done = runner.invoke(app, ["replay", str(tmp_path), "--policy", "freeze:a1", "--json"])
    assert json.loads(done.output)["freeze:a1"]["du"]["exact_items"] == 3
    from debategraph.eval import replay as from_the_package

    assert from_the_package(tmp_path, "stop-at-round:0") == replay(ROWS, "stop-at-round:0")
    done = runner.invoke(app, ["replay", str(tmp_path), "--policy", "freeze:a7"])
    assert done.exit_code == 2 and "error: freeze:a7: no such agent" in done.output


def test_the_replay_command_on_rows_eval_wrote_reads_their_turns(tmp_path):
    from debategraph.eval.datasets import load_dataset
    from debategraph.eval.run.runner import Arm, evaluate

    items = load_dataset("arithmetic", limit=3, seed=1)
    evaluate(items, [Arm("du", "du", {"agents": 3, "rounds": 2})], tmp_path, dataset="arithmetic")
    done = CliRunner().invoke(app, ["replay", str(tmp_path), "--policy", "freeze:a1", "--json"])
    assert done.exit_code == 0, done.output
    frozen = json.loads(done.output)["freeze:a1"]["du"]
    assert frozen["items"] == 3 and frozen["tokens_known"] is (frozen["exact_items"] > 0)
