"""The groupdebate method on the engine: reads, summaries, stages, tokens, attack, CLI."""

import json
import re

import pytest
from typer.testing import CliRunner

import debategraph as dg
from debategraph import build_debate_graph
from debategraph.cli import app
from debategraph.methods.groupdebate import GroupDebateOptions
from debategraph.policies.tokens import estimate_tokens
from debategraph.prompts import groupdebate as prompts
from debategraph.prompts.common import PromptInput

from .bench_modules import bench_module
from .fixed_length import FixedLength

groupdebate_bound = bench_module("summary_bounds").groupdebate_bound

ARITH = "What is the result of 3+4*5+6-7*2?"


def reads(result):
    return {t["id"]: t["reads"] for t in result.turns}


def test_five_agents_groups_3_2_four_rounds_read_exactly_what_the_paper_says():
    # T = 4 (rounds=3), R = 2; seed 1 shuffles a1..a5 into a3, a4, a5 | a1, a2.
    r = dg.run(ARITH, method="groupdebate", agents=5, rounds=3, seed=1,
               options={"groups": (3, 2)})  # fmt: skip
    assert r.method_state["groups"] == [["a3", "a4", "a5"], ["a1", "a2"]]
    got = reads(r)
    assert [t["id"] for t in r.turns] == [
        *[f"r0:a{i}" for i in range(1, 6)],
        *[f"r1:a{i}" for i in range(1, 6)],
        "r2:summary:g1", "r2:summary:g2",
        *[f"r2:a{i}" for i in range(1, 6)],
        *[f"r3:a{i}" for i in range(1, 6)],
    ]  # fmt: skip
    assert all(got[f"r0:a{i}"] == [] for i in range(1, 6))
    # Stage 1, intra-group: own latest answer first, then the other members'.
    assert got["r1:a1"] == ["r0:a1", "r0:a2"]
    assert got["r1:a2"] == ["r0:a2", "r0:a1"]
    assert got["r1:a3"] == ["r0:a3", "r0:a4", "r0:a5"]
    assert got["r1:a4"] == ["r0:a4", "r0:a3", "r0:a5"]
    assert got["r1:a5"] == ["r0:a5", "r0:a3", "r0:a4"]
    # End of stage 1: one summary per group of its members' latest answers.
    assert got["r2:summary:g1"] == ["r1:a3", "r1:a4", "r1:a5"]
    assert got["r2:summary:g2"] == ["r1:a1", "r1:a2"]
    # Stage 2 opens inter-group: own answer, own group's summary, then the others'.
    assert got["r2:a1"] == ["r1:a1", "r2:summary:g2", "r2:summary:g1"]
    assert got["r2:a4"] == ["r1:a4", "r2:summary:g1", "r2:summary:g2"]
    # Then intra-group again; the summaries are forgotten.
    assert got["r3:a2"] == ["r2:a2", "r2:a1"]
    assert got["r3:a5"] == ["r2:a5", "r2:a3", "r2:a4"]
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r2:summary:g1"]["agent"] == "summarizer"
    assert by_id["r2:summary:g1"]["kind"] == "summary"
    assert by_id["r2:summary:g2"]["vars"] == {"group": 2}
    assert r.usage["calls"] == 5 * 4 + 2 * 1 == r.method_state["schedule"]["calls"]
    assert r.to_dict()["usage_by_kind"]["summary"]["calls"] == 2
    assert r.method_state["schedule"] == {
        "M": 5, "T": 4, "R": 2, "S": 2, "N": 2, "sizes": [3, 2], "calls": 22,
    }  # fmt: skip
    assert [s["rounds"] for s in r.method_state["stages"]] == [[0, 1], [2, 3]]
    assert [s["paper_rounds"] for s in r.method_state["stages"]] == [[1, 2], [3, 4]]
    assert r.method_state["round_labels"] == {
        "0": "stage 1 · initial answers",
        "1": "stage 1 · intra-group round",
        "2": "stage 2 · group summaries, then inter-group round",
        "3": "stage 2 · intra-group round",
    }
    summaries = r.method_state["summaries"]
    assert [(s["id"], s["stage"], s["group"], s["round"]) for s in summaries] == [
        ("r2:summary:g1", 1, 1, 2), ("r2:summary:g2", 1, 2, 2),
    ]  # fmt: skip
    assert summaries[0]["text"] == by_id["r2:summary:g1"]["text"]
    # The summary lists every member's answer with who reached it; it picks none.
    g1 = [by_id[i]["answer"] for i in ("r1:a3", "r1:a4", "r1:a5")]
    assert summaries[0]["text"].endswith(
        f"Answers reached: {g1[0]} (Agent 1, Agent 3); {g1[1]} (Agent 2)"
    )
    assert g1[0] == g1[2] != g1[1] and by_id["r2:summary:g1"]["answer"] is None
    assert r.answer == "15"


def test_inter_group_prompt_marks_the_own_group_and_intra_prompt_shows_only_the_group():
    r = dg.run(ARITH, method="groupdebate", rounds=2, seed=1, options={"shuffle": False})
    by_id = {t["id"]: t for t in r.turns}
    inter = by_id["r2:a4"]["prompt"]  # a4 is in group 2 = a4, a5
    own_summary = by_id["r2:summary:g2"]["text"]
    assert f"Your group's summary:\n```\n{own_summary}\n```" in inter
    assert "Summary of group 1:" in inter and "Summary of group 2:" not in inter
    assert inter.startswith("Your own latest answer:\n```\n")
    intra = by_id["r1:a4"]["prompt"]
    assert intra.count("Solution from another agent") == 1
    summary_prompt = by_id["r2:summary:g1"]["prompt"]
    assert "Question:" not in summary_prompt
    assert re.findall(r"^Agent \d:$", summary_prompt, re.MULTILINE) == [
        "Agent 1:",
        "Agent 2:",
        "Agent 3:",
    ]


def test_call_counts_17_for_groupdebate_and_25_for_summarised_du():
    gd = dg.run(ARITH, method="groupdebate")  # defaults: 5 agents, T = 3, groups (3, 2)
    mad = dg.run(ARITH, method="du-sum")
    assert gd.usage["calls"] == 17 and mad.usage["calls"] == 25
    assert gd.method_state["schedule"]["sizes"] == [3, 2]
    assert gd.method_state["paper_tokens"]["formula_calls"] == 17
    assert mad.method_state["paper_tokens"]["formula_calls"] == 25


def blank(agent="x", kind="answer", **vars_):
    return {"id": f"{agent}:{kind}:{vars_}", "agent": agent, "kind": kind, "text": "",
            "vars": vars_}  # fmt: skip


def instruction(prompt, **fields):
    """Tokens of a prompt rendered with no question and empty turns."""
    return estimate_tokens(prompt(PromptInput(question="", **fields)))


def test_measured_tokens_are_the_paper_formula_plus_the_instruction_tokens():
    # Four agents in two groups of two, T = 4, R = 2; answers 12 tokens, summaries 7.
    a, s = 12, 7
    r = dg.run(ARITH, method="groupdebate", agents=4, rounds=3, models=FixedLength(),
               options={"num_groups": 2, "shuffle": False})  # fmt: skip
    q = estimate_tokens(ARITH)
    split = r.method_state["paper_tokens"]
    assert split["question_tokens"] == q
    # Equal groups at fixed lengths: Eq. 5 equals the paper's closed form.
    assert split["formula"]["total"] == groupdebate_bound(4, 4, 2, 2, q, a, s)
    # Instruction tokens from the prompt templates alone, with empty question and turns.
    own = blank("x")
    initial = instruction(prompts.PROMPTS["initial"])
    intra = instruction(prompts.intra, agent="x", peers=[own, blank("y")])
    summaries = [blank("s", "summary", group=1), blank("s", "summary", group=2)]
    inter = instruction(prompts.inter, agent="x", vars={"group": 1}, peers=[own, *summaries])
    summary = instruction(prompts.summarize, peers=[blank("x"), blank("y")])
    system = estimate_tokens(prompts.SYSTEM)  # every debating call, not the summariser's
    expected = 4 * initial + 2 * 4 * intra + 2 * summary + 4 * inter + 16 * system
    assert split["instruction"] == expected
    assert split["repeated_question"] == 0  # forget: no history
    assert split["measured"] == r.usage["total_tokens"] == split["formula"]["total"] + expected
    assert r.usage["calls"] == split["formula_calls"] == 18


def test_a_cut_off_agent_reads_no_peer_and_no_summary():
    r = dg.run(ARITH, method="groupdebate", rounds=3, seed=1, cut_off=["a1"],
               options={"groups": (3, 2)})  # fmt: skip
    got = reads(r)
    # a1 (group 2 with a2) only re-reads its own latest answer.
    assert [got[f"r{k}:a1"] for k in (1, 2, 3)] == [["r0:a1"], ["r1:a1"], ["r2:a1"]]
    by_id = {t["id"]: t for t in r.turns}
    assert all("summary" not in by_id[f"r{k}:a1"]["prompt"].lower() for k in (1, 2, 3))
    assert "Solution from another agent" not in by_id["r1:a1"]["prompt"]
    # The others still read a1, directly and through its group's summary.
    assert got["r1:a2"] == ["r0:a2", "r0:a1"]
    assert got["r2:summary:g2"] == ["r1:a1", "r1:a2"]
    assert got["r2:a2"] == ["r1:a2", "r2:summary:g2", "r2:summary:g1"]
    assert r.cut_off == ["a1"]
    assert "paper_tokens" not in r.method_state


def test_a_group_of_one_reflects_on_its_own_answer():
    r = dg.run(ARITH, method="groupdebate", agents=3, rounds=3,
               options={"groups": (2, 1), "shuffle": False})  # fmt: skip
    got = reads(r)
    assert got["r1:a3"] == ["r0:a3"] and got["r3:a3"] == ["r2:a3"]
    assert got["r2:a3"] == ["r1:a3", "r2:summary:g2", "r2:summary:g1"]
    by_id = {t["id"]: t for t in r.turns}
    assert "Go over your previous answer once more" in by_id["r1:a3"]["prompt"]


def test_without_forget_agents_keep_their_history_and_read_only_peers():
    model = FixedLength()
    r = dg.run(ARITH, method="groupdebate", agents=4, rounds=2, models=model,
               options={"forget": False, "shuffle": False})  # fmt: skip
    got = reads(r)
    assert got["r1:a1"] == ["r0:a2"]
    assert got["r2:a1"] == ["r2:summary:g1", "r2:summary:g2"]
    by_id = {t["id"]: t for t in r.turns}
    # The round-2 call re-sent both earlier prompts and answers.
    first = estimate_tokens(prompts.SYSTEM) + estimate_tokens(by_id["r0:a1"]["prompt"]) + 12
    second = first + estimate_tokens(by_id["r1:a1"]["prompt"]) + 12
    assert by_id["r1:a1"]["input_tokens"] == first + estimate_tokens(by_id["r1:a1"]["prompt"])
    assert by_id["r2:a1"]["input_tokens"] == second + estimate_tokens(by_id["r2:a1"]["prompt"])
    assert "paper_tokens" not in r.method_state


def test_mixes_with_any_decision_rule():
    r = dg.run(ARITH, method="groupdebate", decision="freemad", seed=2)
    assert r.decision["rule"] == "freemad_score"
    assert r.decision["evidence"]["debate_rounds"] == 2
    # The trajectory holds the agents' answers only: 5 agents x 3 rounds.
    assert [len(row) for row in r.round_answers()] == [5, 5, 5]
    assert r.answer == "15"


def test_bad_group_settings_fail_before_any_call():
    for options, message in (
        ({"groups": (3, 3)}, "add up to 6, but there are 4 agents"),
        ({"num_groups": 5}, "between 1 and 4"),
    ):
        with pytest.raises(dg.DebateConfigError, match=message):
            dg.run(ARITH, method="groupdebate", agents=4, options=options)
    with pytest.raises(dg.DebateConfigError, match="num_groups is 3"):
        dg.run(ARITH, method="groupdebate", options={"groups": (3, 2), "num_groups": 3})
    with pytest.raises(dg.DebateConfigError, match="stage_rounds must be at least 1"):
        dg.run(ARITH, method="groupdebate", options={"stage_rounds": 0})
    assert GroupDebateOptions.from_pairs(["groups=2,2,2", "stage-rounds=3"]) == (
        GroupDebateOptions(groups=(2, 2, 2), stage_rounds=3)
    )


def test_read_graphs_draw_the_summarizer_as_a_node():
    r = dg.run(ARITH, method="groupdebate", rounds=2, options={"shuffle": False})
    intra, inter = r.graphs()
    assert set(intra.edges) == {
        ("a1", "a2"), ("a1", "a3"), ("a2", "a1"), ("a2", "a3"), ("a3", "a1"), ("a3", "a2"),
        ("a4", "a5"), ("a5", "a4"),
    }  # fmt: skip
    assert set(inter.nodes) == {"a1", "a2", "a3", "a4", "a5", "summarizer"}
    assert {e for e in inter.edges if e[1] == "summarizer"} == {
        (f"a{i}", "summarizer") for i in range(1, 6)
    }
    assert inter.edges["summarizer", "a1"]["turns"] == ["r2:summary:g1", "r2:summary:g2"]


def test_cli_json_and_transcript_show_groups_stages_and_summaries():
    runner = CliRunner()
    out = runner.invoke(app, ["run", "--method", "groupdebate", "--agents", "6", "--rounds", "3",
                              "--option", "groups=2,2,2", "--json", ARITH])  # fmt: skip
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    state = d["method_state"]
    assert [len(g) for g in state["groups"]] == [2, 2, 2]
    assert [s["stage"] for s in state["stages"]] == [1, 2]
    assert [s["id"] for s in state["summaries"]] == [f"r2:summary:g{j}" for j in (1, 2, 3)]
    assert all(s["text"] for s in state["summaries"])
    assert d["usage_by_kind"]["summary"]["calls"] == 3 and d["usage"]["calls"] == 27
    out = runner.invoke(app, ["run", "--method", "groupdebate", ARITH])
    assert out.exit_code == 0, out.output
    text = " ".join(out.stdout.split())
    assert "groups: g1 = " in text and "stage 2 · group summaries, then inter-group round" in text
    assert "summary" in text


def test_studio_graph_shows_the_summarizer_and_takes_options_as_json():
    from debategraph.graphs.studio import groupdebate

    assert "round:summarizer" in set(groupdebate.get_graph(xray=True).nodes)
    out = groupdebate.invoke(
        {"question": ARITH},
        context={"rounds": 3, "method_options": {"groups": [3, 2], "stage_rounds": 2}},
    )
    assert len(out["turns"]) == 22 and out["decision"]["answer"] == "15"
    drawing = build_debate_graph("groupdebate").compile().get_graph(xray=True)
    assert "round:summarizer" in set(drawing.nodes)


def test_role_model_overrides_the_summarizer():
    spec = "simulated:replay=175b_verification"
    r = dg.run(ARITH, method="groupdebate", role_models={"summarizer": spec})
    models = {t["id"]: t["model"] for t in r.turns if t["kind"] == "summary"}
    assert models == dict.fromkeys(
        ["r2:summary:g1", "r2:summary:g2"], "simulated:175b_verification"
    )
    default = dg.run(ARITH, method="groupdebate")
    assert {t["model"] for t in default.turns if t["kind"] == "summary"} == {
        default.agents[0]["model"]
    }


def test_graph_png_draws_the_read_graphs_with_the_summarizer(tmp_path):
    pytest.importorskip("matplotlib")
    args = ["run", "--method", "groupdebate", "--rounds", "3", "--graph-png", str(tmp_path), ARITH]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    expected = [f"groupdebate-round-{d}.png" for d in (1, 2, 3)]
    assert sorted(p.name for p in tmp_path.iterdir()) == expected
