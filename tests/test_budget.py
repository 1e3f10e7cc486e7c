"""Budget-matched voting: as many answers as a debate's calls, or as its tokens buy."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.datasets import load_dataset
from debategraph.eval.log.bill import bill_of
from debategraph.eval.run.budget import budget_samples, budget_settings
from debategraph.eval.run.runner import arms_for, evaluate

from .fixed_length import FixedLength
from .helpers import fast_few

runner = CliRunner()


def base_row(round0, total, calls=9):
    turns = [{"round": 0, "kind": "answer", "input_tokens": i, "output_tokens": o}
             for i, o in round0]  # fmt: skip
    turns.append({"round": 1, "kind": "answer", "input_tokens": 999, "output_tokens": 1})
    return {"method": "du", "calls": calls, "turns": turns, "input_tokens": total,
            "output_tokens": 0}  # fmt: skip


def test_samples_by_hand():
    # round 0 costs (40 + 10, 60 + 10, 50 + 10) = 60 per sample on average; 1,000 tokens buy
    # 16.7, so 17 samples; calls: one per call
    row = base_row([(40, 10), (60, 10), (50, 10)], 1000)
    assert budget_samples("tokens", row) == 17
    assert budget_samples("calls", row) == 9
    assert budget_samples("tokens", base_row([(40, 10)], 20)) == 1  # at least one
    with pytest.raises(ValueError, match="keeps no round-0 answers"):
        budget_samples("tokens", {"method": "du", "calls": 3, "turns": []})
    sized = budget_settings("tokens", {"models": ["m1", "m2", "m3"]}, row)
    assert sized["agents"] == 17 and sized["models"][:5] == ["m1", "m2", "m3", "m1", "m2"]
    big = budget_settings("tokens", {}, base_row([(5, 5)], 1000))
    assert big["agents"] == 100 and big["allow_large"] is True


def test_arms_for_tokens_and_several_models():
    arms = arms_for(["du", "cot"], {"models": ["simulated:skill=0.9", "simulated:skill=0.5"]},
                    match_budget="tokens")  # fmt: skip
    labels = [(a.label, a.budget_of, a.budget) for a in arms]
    assert labels == [
        ("du", None, "calls"), ("cot", None, "calls"),
        ("sc@du~tokens", "du", "tokens"), ("mav@du~tokens", "du", "tokens"),
        ("sc@cot~tokens", "cot", "tokens"), ("mav@cot~tokens", "cot", "tokens"),
    ]  # fmt: skip
    sc = arms[2]
    assert sc.settings["models"] == "simulated:skill=0.9" and sc.settings["rounds"] == 0
    assert arms[3].settings["models"] == ["simulated:skill=0.9", "simulated:skill=0.5"]


def test_an_equal_token_budget_spends_about_what_the_debate_spent(tmp_path):
    # Fixed-length replies: every sample costs the same, so the match is exact up to rounding.
    model = FixedLength()
    items = load_dataset("arithmetic", limit=2, seed=1)
    arms = arms_for(["du"], {"agents": 3, "rounds": 2, "models": model}, match_budget="tokens")
    outcome = evaluate(items, arms, tmp_path, dataset="arithmetic")
    rows = {(r["method"], r["id"]): r for r in outcome.rows}
    for item in items:
        du, sc = rows["du", item.id], rows["sc@du~tokens", item.id]
        first = [t for t in du["turns"] if t["round"] == 0]
        per_sample = sum(t["input_tokens"] + t["output_tokens"] for t in first) / 3
        spent = du["input_tokens"] + du["output_tokens"]
        assert sc["agents"] == round(spent / per_sample) > du["calls"]
        assert sc["budget_of"] == "du" and sc["budget"] == "tokens"
        used = sc["input_tokens"] + sc["output_tokens"]
        assert abs(used - spent) <= per_sample / 2 + 1


def test_a_resumed_run_sizes_the_token_budget_from_the_rows_on_disk(tmp_path):
    # du's rows come from an earlier run (kept without texts): the matched arm reads them
    # from the file and sizes itself as it did when both ran at once.
    model = FixedLength()
    items = load_dataset("arithmetic", limit=2, seed=1)
    arms = arms_for(["du"], {"agents": 3, "rounds": 2, "models": model}, match_budget="tokens")
    full = evaluate(items, arms, tmp_path, dataset="arithmetic", texts=False).rows
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in full if r["method"] == "du"))
    outcome = evaluate(items, arms, tmp_path, dataset="arithmetic", texts=False)
    assert (outcome.resumed, outcome.written, outcome.failed) == (2, 2, 0)
    sized = [r["agents"] for r in outcome.rows if r["method"] == "sc@du~tokens"]
    assert sized == [r["agents"] for r in full if r["method"] == "sc@du~tokens"]
    assert min(sized) > 9  # more samples than du's 9 calls: priced by tokens, not calls
    assert all("text" not in t for r in outcome.rows for t in r["turns"])


def test_the_command_line_takes_calls_or_tokens_and_the_report_shows_both_budgets(tmp_path):
    out = tmp_path / "run"
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "2", "--quiet"]
    done = runner.invoke(app, [*args, "--match-budget", "tokens", "--out", str(out)])
    assert done.exit_code == 0, done.output
    manifest = json.loads((out / "run.json").read_text())
    sc = next(a for a in manifest["settings"]["arms"] if a["label"] == "sc@du~tokens")
    assert (sc["budget_of"], sc["budget"]) == ("du", "tokens")
    report = runner.invoke(app, ["report", str(out), "--no-plots"])
    assert report.exit_code == 0, report.output
    text = (out / "report.md").read_text()
    assert "## Budget matching" in text and "| sc@du~tokens | tokens |" in text
    bad = runner.invoke(app, [*args, "--match-budget", "money", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "money" in bad.output


def test_shared_rounds_reach_only_the_methods_that_debate(tmp_path):
    arms = arms_for(["cot", "mav", "sc", "du"], {"rounds": 1, "agents": 3})
    assert [a.settings.get("rounds") for a in arms] == [None, None, None, 1]
    assert [a.settings.get("agents") for a in arms] == [None, 3, 3, 3]
    outcome = evaluate(load_dataset("arithmetic", limit=1), arms, tmp_path, dataset="arithmetic")
    calls = {r["method"]: (r["calls"], r["rounds"], r["ncomm"]) for r in outcome.rows}
    assert calls == {"cot": (1, 0, 0), "mav": (3, 0, 0), "sc": (3, 0, 0), "du": (6, 1, 6)}
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('dataset = "arithmetic"\n[settings]\nrounds = 2\n[arms.cot]\nmethod = "cot"\n'
                     '[arms.cot-alone]\nmethod = "cot"\nrounds = 0\n'
                     '[arms.du]\nmethod = "du"\n')  # fmt: skip
    from debategraph.eval.run.sweep import load_sweep

    rounds = {a.label: a.settings.get("rounds") for a in load_sweep(sweep).arms}
    assert rounds == {"cot": None, "cot-alone": 0, "du": 2}


def test_a_measured_sample_price_sizes_the_token_budget():
    # 1,000 tokens at 60 per round-0 call would buy 17; a sample measured at 80 buys 12.5 -> 12
    row = base_row([(40, 10), (60, 10), (50, 10)], 1000)
    assert budget_samples("tokens", row, per_sample=80.0) == 12
    assert budget_samples("tokens", {"input_tokens": 10, "turns": []}, per_sample=80.0) == 1
    assert budget_settings("tokens", {}, row, 80.0)["agents"] == 12


def debating_methods() -> list[str]:
    from debategraph.methods.registry import get_method, method_names

    return [name for name in method_names() if get_method(name).debates]


# Round 0 priced apart (GroupDebate, RECONCILE, CortexDebate) and a plain debate stand for all.
@pytest.mark.parametrize(
    "method", fast_few(debating_methods(), ["du", "groupdebate", "reconcile", "cortex"])
)
def test_equal_tokens_give_the_vote_the_debates_tokens_within_5_percent(method, tmp_path):
    # A debate's own round 0 is no price for a sample (GroupDebate's system prompt, RECONCILE's
    # and CortexDebate's confidence requests): the runner prices a sample by drawing one.
    # Six items: a method that spends a few samples' tokens per item
    # rounds to whole samples per item, +-8% on one item; over six the roundings cancel.
    items = load_dataset("arithmetic", limit=6, seed=1)
    arms = arms_for([method], {}, match_budget="tokens")
    outcome = evaluate(items, arms, tmp_path, dataset="arithmetic")
    spent = {label: 0 for label in (method, f"sc@{method}~tokens")}
    for row in outcome.rows:
        assert "error" not in row, row["error"]
        spent[row["method"]] += row["input_tokens"] + row["output_tokens"]
    ratio = spent[f"sc@{method}~tokens"] / spent[method]
    assert 0.95 <= ratio <= 1.05, f"sc@{method}~tokens spent {ratio:.3f}x {method}'s tokens"
    probes = [r["wasted_input_tokens"] for r in outcome.rows if r["method"] != method]
    assert all(p > 0 for p in probes)  # the pricing sample is spent, and said so
    # On the bill too: the pricing sample is the arm's first sample, replayed, not paid twice.
    bills = {label: bill_of(r for r in outcome.rows if r["method"] == label) for label in spent}
    paid = {
        label: b["input_tokens"] + b["output_tokens"] + b["unkept_input_tokens"]
        + b["unkept_output_tokens"]
        for label, b in bills.items()
    }  # fmt: skip
    billed = paid[f"sc@{method}~tokens"] / paid[method]
    assert 0.95 <= billed <= 1.05, f"sc@{method}~tokens billed {billed:.3f}x {method}'s bill"
    assert bills[f"sc@{method}~tokens"]["cached_calls"] == len(items)
