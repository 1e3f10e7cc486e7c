"""One arm is one row group: rows that ended at round 0 are not split from their arm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from debategraph.eval.analysis.results import build_groups, group_sources
from debategraph.eval.datasets import load_dataset
from debategraph.eval.log.store import RESULTS_FILE
from debategraph.eval.report.tables import render_markdown
from debategraph.eval.run.arms import Arm
from debategraph.eval.run.runner import evaluate


def stored(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / RESULTS_FILE).read_text().splitlines()]


def test_a_gated_debate_that_settles_at_round_0_keeps_its_rows_together(tmp_path: Path) -> None:
    items = load_dataset("gsm8k", limit=6)
    arms = [
        Arm("du+gate-entropy-1", "du+gate-entropy-1", {"agents": 3, "rounds": 1}),
        Arm("vote", "du", {"agents": 3, "rounds": 0}),
    ]
    evaluate(items, arms, tmp_path, dataset="gsm8k")
    rows = stored(tmp_path)
    gated_rows = [r for r in rows if r["method"] == "du+gate-entropy-1"]
    settled = [r for r in gated_rows if r["rounds"] == 0]
    assert settled and len(settled) < len(gated_rows)  # some items skipped the debate
    assert {r["source"] for r in gated_rows} == {"simulated"}
    assert {r["source"] for r in rows if r["method"] == "vote"} == {"real"}
    groups = build_groups(rows)
    owners = {m: g.source for g in groups for m in g.summaries}
    assert owners == {"du+gate-entropy-1": "simulated", "vote": "real"}
    simulated = next(g for g in groups if g.source == "simulated")
    assert simulated.summaries["du+gate-entropy-1"]["n"] == len(items)


def row(method: str, item: str, source: str | None, models: list[str] | None) -> dict[str, Any]:
    found: dict[str, Any] = {"method": method, "id": item, "dataset": "gsm8k", "correct": True}
    found |= {"answer": "1", "reference": "1", "abstained": False, "input_tokens": 10}
    found |= {"output_tokens": 2, "calls": 1, "ncomm": 0, "rounds": 1, "wall_s": 0.1}
    if source is not None:
        found["source"] = source
    if models is not None:
        found["agent_models"] = models
    return found


SIM = ["simulated:175b_finetuning", "simulated:6b_verification"]


def test_older_rows_of_one_arm_join_their_simulated_group() -> None:
    rows = [
        row("s2mad", "q0", "simulated", SIM),
        row("s2mad", "q1", "real", SIM),  # ended at round 0: replayed answers only
        {"method": "s2mad", "id": "q2", "dataset": "gsm8k", "error": "RuntimeError: x"},
        row("du", "q0", "real", ["openai:gpt-4o-mini"]),  # a provider's rows stay real
        row("du", "q1", "real", None),
        row("du", "q0", "simulated", SIM),
    ]
    assert group_sources(rows) == ["simulated", "simulated", "simulated", "real", "real",
                                   "simulated"]  # fmt: skip
    groups = {g.source: g for g in build_groups(rows)}
    assert set(groups) == {"simulated", "real"}
    s2mad = groups["simulated"].summaries["s2mad"]
    assert (s2mad["n"], s2mad["failed"]) == (2, 1)
    assert groups["real"].summaries["du"]["n"] == 2
    assert groups["simulated"].summaries["du"]["n"] == 1
    report = render_markdown(
        list(groups.values()), rows, files=["results.jsonl"], problems=[], plots=[]
    )
    assert "simulated models: 4 rows (du, s2mad); real model outputs: 2 rows (du)." in report


def test_a_gate_counts_as_debated_only_the_items_with_debate_rounds(tmp_path: Path) -> None:
    # sid-et skips the debate at round 0 when its first agent is confident: the gate let
    # these items through, but none was debated.
    items = load_dataset("gsm8k", limit=4)
    arms = [Arm("sid-et+gate-entropy-1", "sid-et+gate-entropy-1", {})]
    rows = evaluate(items, arms, tmp_path, dataset="gsm8k").rows
    skipped = [r for r in rows if r["decision"]["evidence"]["sid_et"]["outcome"] == "skipped"]
    assert skipped and all(r["gate"]["fired"] and r["rounds"] == 0 for r in skipped)
    (group,) = build_groups(rows)
    gate = group.summaries["sid-et+gate-entropy-1"]["gate"]
    rounds = sum(r["rounds"] > 0 for r in rows)
    assert gate == {"rule": "entropy<1", "items": 4, "passed": 4, "debated": rounds}
    report = render_markdown([group], rows, files=["results.jsonl"], problems=[], plots=[])
    line = f"debated {rounds} of 4 items (gate entropy<1); {4 - rounds} more passed the gate"
    assert line in report


def test_the_report_says_a_confidence_gate_changed_round_0() -> None:
    rows = [
        {**row("du+gate-confidence-0.8", f"q{k}", "simulated", SIM),
         "rounds": k, "gate": {"rule": "confidence>0.8", "settled": not k, "fired": bool(k)}}
        for k in range(2)
    ]  # fmt: skip
    report = render_markdown(build_groups(rows), rows, files=["r.jsonl"], problems=[], plots=[])
    line = next(x for x in report.splitlines() if x.startswith("- du+gate-confidence-0.8"))
    assert line.startswith("- du+gate-confidence-0.8: debated 1 of 2 items (gate confidence>0.8)")
    assert "asks every agent for a confidence" in line
    entropy = [{**r, "gate": {**r["gate"], "rule": "entropy<1"}} for r in rows]
    text = render_markdown(build_groups(entropy), entropy, files=["r"], problems=[], plots=[])
    assert "asks every agent" not in text
