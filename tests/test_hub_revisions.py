"""Every hub or GitHub set reads the commit it declares, and a caller can read another one."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from debategraph.eval.datasets import DATASETS, dataset_rows, load_dataset
from debategraph.eval.datasets.hub import HubUnavailable
from debategraph.eval.datasets.math500 import load_math500
from debategraph.eval.datasets.olympiad import load_aime_2025

FIXTURES = Path(__file__).parent / "fixtures" / "datasets"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "evaluation.md"

FIXTURE_OF = {
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
"""Each hub dataset and the fixture, in its format, that stands in for it."""

PINNED = {
    "gsm8k-hub": "cc7b047b6e5bb11b4f1af84efc572db110a51b3c",
    "mmlu": "c30699e8356da336a370243923dbaf21066bb9fe",
    "mmlu-logical-fallacies": "c30699e8356da336a370243923dbaf21066bb9fe",
    "mmlu-pro": "527feea0afed1de15a8c115abf7be4c912123315",
    "arc-challenge": "210d026faf9955653af8916fad021475a3f00453",
    "math500": "6e4ed1a2a79af7d8630a6b768ec859cb5af4d3be",
    "strategyqa": "705562638fe1d8ca6bb98c66fc8f94d45fda8c83",
    "gpqa-main": "5233cd1db58884ed0bf678c7c6be731722a23f84",
    "gpqa-diamond": "5233cd1db58884ed0bf678c7c6be731722a23f84",
    "hle": "5a81a4c7271a2a2a312b9a690f0c2fde837e4c29",
    "aime2024": "2fe88a2f1091d5048c0f36abc874fb997b3dd99a",
    "aime2025": "a6ad95f611d72cf628a80b58bd0432ef6638f958",
    "imo-answerbench": "0258becbd00fc07d34862bc8539e61c8742f0d14",
    "squad": "7b6d24c440a36b6815f21b70d25016731768db1f",
    **{
        name: "5e628be450b7e67fb7ae6e201bd6d8f7056f7672"
        for name in DATASETS
        if name.startswith("longbench")
    },
}
"""The commit each pinned set reads, copied from the public code that pins it."""

FLOATING = {"aicrypto"}
"""The hub sets that no public pin was found for: they read the default branch."""

GITHUB = {
    "gsm-ic-2step": "0c1da13552afcc5d995d6f1ad5288417cb110246",
    "gsm-ic-mstep": "0c1da13552afcc5d995d6f1ad5288417cb110246",
    "gsm-ranges-4": "4ee84658dbcda3a65227d81610f715cce54b9627",
    "gsm-ranges-6": "4ee84658dbcda3a65227d81610f715cce54b9627",
}
"""The sets read from their publisher's GitHub repository at a pinned commit (the files and
their digests are tested in test_pinned_files.py)."""

HUB_SETS = sorted(name for name, info in DATASETS.items() if info.source.startswith("hub "))


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []

    def load_dataset(
        path: str, name: str | None = None, *, split: str, **options: Any
    ) -> list[dict[str, Any]]:
        calls.append((path, options))
        text = (FIXTURES / f"{FIXTURE_OF[path]}.jsonl").read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    return calls


def test_every_declared_revision_is_a_full_commit_hash_or_none() -> None:
    for name, info in DATASETS.items():
        assert info.revision is None or re.fullmatch(r"[0-9a-f]{40}", info.revision), name
        if info.offline:
            assert info.revision is None, name


def test_the_pinned_and_the_floating_sets_are_these() -> None:
    assert {name: DATASETS[name].revision for name in PINNED} == PINNED
    assert {name for name in HUB_SETS if DATASETS[name].revision is None} == FLOATING
    assert set(PINNED) | FLOATING == set(HUB_SETS)
    online = {name for name, info in DATASETS.items() if not info.offline}
    assert online - set(HUB_SETS) == set(GITHUB)
    assert {name: DATASETS[name].revision for name in GITHUB} == GITHUB


@pytest.mark.parametrize("name", HUB_SETS)
def test_each_hub_set_passes_its_revision_to_every_hub_call(
    name: str, fake_hub: list[tuple[str, dict[str, Any]]]
) -> None:
    load_dataset(name)
    assert fake_hub
    for _, options in fake_hub:
        if name in FLOATING:
            assert "revision" not in options  # the default branch
        else:
            assert options["revision"] == PINNED[name]


def test_the_gsm8k_hub_call_is_exactly_the_pinned_one(
    fake_hub: list[tuple[str, dict[str, Any]]],
) -> None:
    load_dataset("gsm8k-hub", limit=2)
    assert fake_hub == [("openai/gsm8k", {"revision": "cc7b047b6e5bb11b4f1af84efc572db110a51b3c"})]


def test_a_caller_reads_another_revision_of_every_config(
    fake_hub: list[tuple[str, dict[str, Any]]],
) -> None:
    load_dataset("aime2025", revision="main")
    load_dataset("aicrypto", revision="0123456789abcdef0123456789abcdef01234567")
    assert fake_hub == [
        ("opencompass/AIME2025", {"revision": "main"}),
        ("opencompass/AIME2025", {"revision": "main"}),
        ("yuuwwang/aicrypto", {"revision": "0123456789abcdef0123456789abcdef01234567"}),
    ]


def test_a_load_function_given_no_revision_reads_the_default_branch(
    fake_hub: list[tuple[str, dict[str, Any]]],
) -> None:
    load_math500(revision=None)
    load_aime_2025()
    assert fake_hub[0] == ("HuggingFaceH4/MATH-500", {})
    assert fake_hub[1][1] == {"revision": "a6ad95f611d72cf628a80b58bd0432ef6638f958"}


def test_a_revision_for_an_offline_set_or_an_empty_one_is_refused() -> None:
    with pytest.raises(ValueError, match="revision is only for hub datasets; 'gsm8k' loads"):
        load_dataset("gsm8k", revision="main")
    with pytest.raises(ValueError, match="revision is empty"):
        load_dataset("math500", revision=" ")


def test_a_pinned_set_offline_is_still_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(path: str, name: str | None = None, **_: Any) -> None:
        raise ConnectionError(f"Couldn't reach '{path}' on the Hub (LocalEntryNotFoundError)")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=offline))
    with pytest.raises(HubUnavailable) as raised:
        load_dataset("math500")
    assert str(raised.value) == (
        "could not fetch the hub dataset 'HuggingFaceH4/MATH-500' (Couldn't reach "
        "'HuggingFaceH4/MATH-500' on the Hub (LocalEntryNotFoundError)): connect to the "
        "network (and unset HF_HUB_OFFLINE / HF_DATASETS_OFFLINE)"
    )


def test_the_table_shows_each_sets_revision() -> None:
    shown = {row[0]: row[2] for row in dataset_rows()}
    assert shown["math500"] == "6e4ed1a2a79af7d8630a6b768ec859cb5af4d3be"
    assert shown["aicrypto"] == "default branch"
    assert shown["gsm8k"] == "-"
    assert shown["jsonl"] == "-"


def test_the_docs_name_the_source_of_every_pinned_commit() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("### Hub revisions") :]
    for name, revision in PINNED.items():
        path = DATASETS[name].source.split()[1].rstrip(",")
        row = re.search(rf"^\| {re.escape(path)} \| {revision} \| (.+) \|$", section, re.M)
        assert row is not None and row.group(1).strip(), name
    for name in FLOATING:
        path = DATASETS[name].source.split()[1].rstrip(",")
        assert f"({path})" in section, name
    for name, commit in GITHUB.items():
        repo, file = DATASETS[name].source.removeprefix("github ").split(", ")
        row = rf"^\| github\.com/{re.escape(repo)} \| {commit} \| .*`{file}`"
        assert re.search(row, section, re.M), name
