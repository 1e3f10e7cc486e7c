"""The reproduction kit: every sweep under configs/papers/ loads, and runs offline end to end.

Each file names a provider model or a server; here every arm runs on the simulated model
instead, on two items (as ``--limit 2`` would), with the hub datasets and the pinned GitHub
files served from the fixtures of ``tests/fixtures/datasets``. The sampling preset must stay
``paper``.
"""

import json
import re
import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest

from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.arms import SCREEN_LABEL, screen_arm
from debategraph.eval.run.runner import Arm, EvalPlan, run_eval
from debategraph.eval.run.sweep import Sweep, load_sweep
from debategraph.methods.registry import get_method
from debategraph.nodes.runnable import run_sync
from tests.test_pinned_files import serve_pinned_fixtures

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs" / "papers"
REPRODUCE = ROOT / "docs" / "reproduce.md"
FIXTURES = Path(__file__).parent / "fixtures" / "datasets"
PAPER_FILES = sorted(CONFIGS.glob("*.toml"))

HUB_FIXTURES = {
    "openai/gsm8k": "gsm8k",
    "cais/mmlu": "mmlu",
    "TIGER-Lab/MMLU-Pro": "mmlu_pro",
    "allenai/ai2_arc": "arc_challenge",
    "HuggingFaceH4/MATH-500": "math500",
    "ChilleD/StrategyQA": "strategyqa",
    "Idavidrein/gpqa": "gpqa",
    "cais/hle": "hle",
    "yuuwwang/aicrypto": "aicrypto",
    "HuggingFaceH4/aime_2024": "aime_2024",
    "opencompass/AIME2025": "aime_2025",
    "Hwilner/imo-answerbench": "imo_answerbench",
    "rajpurkar/squad": "squad",
    "THUDM/LongBench": "longbench",
}

METHODS_BY_PAPER = {
    "cortexdebate": {"mav", "du", "reconcile", "chateval", "groupdebate", "ring", "cortex"},
    "groupdebate": {"cot", "sc", "du-sum", "groupdebate"},
    "madm2": {"cot", "sc", "mad", "madm2-s", "madm2-o"},
    "svr-mad": {"sc", "groupdebate", "sid-et", "s2mad", "du", "svr"},
    "freemad": {"freemad-n", "freemad-c"},
}
"""The methods each paper's main table compares that debategraph implements."""

ITEMS = 2


def paper_of(path: Path) -> str:
    return next(p for p in METHODS_BY_PAPER if path.stem.startswith(f"{p}-"))


def file_arms(path: Path) -> dict[str, dict[str, Any]]:
    """The arms as the file writes them, read without load_sweep."""
    arms: dict[str, dict[str, Any]] = tomllib.loads(path.read_text(encoding="utf-8"))["arms"]
    return arms


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Hub datasets and pinned GitHub files answer with the fixtures, without the network."""
    serve_pinned_fixtures(monkeypatch, tmp_path / "data-cache")

    def load(path: str, name: str | None = None, *, split: str, **_: Any) -> list[dict[str, Any]]:
        text = (FIXTURES / f"{HUB_FIXTURES[path]}.jsonl").read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load))


def offline(sweep: Sweep) -> list[Arm]:
    """The sweep's arms on the simulated model: no server, no embeddings API."""
    arms = []
    for arm in sweep.arms:
        settings = {k: v for k, v in arm.settings.items() if k != "base_url"}
        settings["models"] = "simulated"
        options = settings.get("options")
        if options and str(options.get("embeddings", "")).startswith("openai:"):
            settings["options"] = {**options, "embeddings": "hashing"}
        arms.append(Arm(arm.label, arm.method, settings))
    return arms


def test_there_is_a_file_for_every_seed_paper() -> None:
    assert {paper_of(path) for path in PAPER_FILES} == set(METHODS_BY_PAPER)


@pytest.mark.parametrize("path", PAPER_FILES, ids=lambda p: p.stem)
def test_a_paper_config_loads_with_the_papers_methods_and_sampling(path: Path) -> None:
    sweep = load_sweep(path)
    assert [arm.label for arm in sweep.arms] == list(file_arms(path))
    assert {arm.method for arm in sweep.arms} == METHODS_BY_PAPER[paper_of(path)]
    assert all(arm.settings["settings"] == "paper" for arm in sweep.arms)
    assert all("models" in arm.settings for arm in sweep.arms)
    assert "simulated" not in json.dumps([arm.settings for arm in sweep.arms])
    assert sweep.run["out"].startswith(f"results/papers/{path.stem}")
    assert f"debategraph eval --config configs/papers/{path.name}" in path.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("path", PAPER_FILES, ids=lambda p: p.stem)
def test_a_paper_config_runs_offline_end_to_end(path: Path, tmp_path: Path, fake_hub: None) -> None:
    sweep = load_sweep(path)
    selection = {**sweep.selection, "limit": ITEMS}
    items = load_dataset(sweep.dataset, limit=ITEMS, seed=selection["seed"] or 0)
    arms = offline(sweep)
    screened = bool(sweep.run.get("only_contested"))
    if screened:
        arms = [screen_arm(arms), *arms]
    plan = EvalPlan(dataset=sweep.dataset, out_dir=tmp_path, selection=selection)
    outcome = run_sync(run_eval(items, arms, plan))
    assert outcome.failed == 0, [row.get("error") for row in outcome.rows]
    assert len(items) == ITEMS
    settled = {r["id"] for r in outcome.rows if r.get("screen", {}).get("settled")}
    assert len(settled) == outcome.settled
    assert sorted((r["method"], r["id"]) for r in outcome.rows) == sorted(
        (arm.label, item.id)
        for arm in arms
        for item in items
        if arm.screens or item.id not in settled
    )
    written = file_arms(path)
    if screened:
        assert outcome.settled < ITEMS  # the methods ran on something
        screen = next(r for r in outcome.rows if r["method"] == SCREEN_LABEL)
        first = next(a for a in sweep.arms if get_method(str(a.method)).debates)
        assert first.label == "groupdebate" and first.label != sweep.arms[0].label
        assert screen["agents"] == first.settings["agents"] == 6
        assert screen["settings"]["generation"]["temperature"] == 1.0
    for row in outcome.rows:
        if row["method"] == SCREEN_LABEL:
            continue
        assert row["settings"]["sampling"]["preset"] == "paper"
        if "agents" in written[row["method"]]:
            assert row["agents"] == written[row["method"]]["agents"]
    manifest = json.loads((tmp_path / "run.json").read_text())["settings"]
    assert manifest["dataset"] == sweep.dataset
    planned = {a["label"]: a["method"] for a in manifest["arms"] if not a.get("screens")}
    assert planned == {label: spec["method"] for label, spec in written.items()}
    assert {a["settings"].get("settings") for a in manifest["arms"][screened:]} == {"paper"}
    if paper_of(path) == "svr-mad":
        check_the_sid_et_recipe(tmp_path / "results.jsonl")


def check_the_sid_et_recipe(results: Path) -> None:
    """docs/reproduce.md's SID-ET skip-rate recipe runs on the rows of an SVR-MAD sweep."""
    section = REPRODUCE.read_text(encoding="utf-8").split("## SVR-MAD")[1].split("\n## ")[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    namespace: dict[str, Any] = {}
    shown = '"results/papers/svr-mad-math500/results.jsonl"'  # the Path(...) argument
    source = code.group(1).replace(shown, repr(str(results)))
    assert str(results) in source
    exec(compile(source, "reproduce.md", "exec"), namespace)
    assert namespace["choice"].skip_rate in {k / 10 for k in range(1, 10)}


def test_the_reproduction_doc_names_every_file_and_only_files_that_exist() -> None:
    text = REPRODUCE.read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    named: set[str] = set()
    papers = 0
    for section in sections:
        files = set(re.findall(r"configs/papers/([\w.-]+\.toml)", section))
        if not files:
            continue
        papers += 1
        for name in files:
            assert (CONFIGS / name).is_file(), f"docs/reproduce.md names a missing {name}"
            assert f"debategraph eval --config configs/papers/{name}" in section
        named |= files
    assert papers == len(METHODS_BY_PAPER)
    assert named == {path.name for path in PAPER_FILES}


@pytest.mark.slow
def test_the_svr_mad_file_runs_through_the_command_line(tmp_path: Path, fake_hub: None) -> None:
    """`eval --config` as a user runs it, with the model line pointed at the simulated model."""
    from typer.testing import CliRunner

    from debategraph.cli import app

    text = (CONFIGS / "svr-mad-math500.toml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^models = ".*"$', 'models = "simulated"', text)
    text = re.sub(r'(?m)^base_url = ".*"\n', "", text)
    config = tmp_path / "svr-mad.toml"
    config.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    done = CliRunner().invoke(
        app, ["eval", "--config", str(config), "--limit", str(ITEMS), "--out", str(out), "--quiet"]
    )
    assert done.exit_code == 0, done.output
    assert "items settled (all 6 agents gave the same round-0 answer)" in done.stdout
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sum(r["method"] == SCREEN_LABEL for r in rows) == ITEMS
    assert {r["method"] for r in rows} <= {SCREEN_LABEL, *file_arms(config)}
    report = CliRunner().invoke(
        app, ["report", str(out), "--no-plots", "--sid-et-skip-rate", "auto"]
    )
    assert report.exit_code == 0, report.output
    assert "(Alg. 2) |" in (out / "report.md").read_text(encoding="utf-8")
