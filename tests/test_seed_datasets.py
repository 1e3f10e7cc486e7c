"""The seed papers' benchmarks load by name from fixture rows in their hub formats, and grade."""

from __future__ import annotations

import json
import random
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from debategraph.eval.datasets import DATASETS, dataset_rows, dataset_table, load_dataset
from debategraph.eval.datasets.choice_sets import gpqa_row_to_item, hle_choices
from debategraph.eval.datasets.hub import HubUnavailable
from debategraph.eval.datasets.olympiad import aime_row_to_item
from debategraph.policies.answers import answers_match, canonicalize
from debategraph.policies.spans import normalize_span, span_exact_match, span_f1

FIXTURES = Path(__file__).parent / "fixtures" / "datasets"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "evaluation.md"

SEED_HUB = {
    "Idavidrein/gpqa": "gpqa",
    "cais/hle": "hle",
    "yuuwwang/aicrypto": "aicrypto",
    "HuggingFaceH4/aime_2024": "aime_2024",
    "opencompass/AIME2025": "aime_2025",
    "Hwilner/imo-answerbench": "imo_answerbench",
    "rajpurkar/squad": "squad",
    "THUDM/LongBench": "longbench",
    "cais/mmlu": "mmlu",
}
"""Each seed benchmark's hub dataset and the fixture that stands in for it."""


def fixture_rows(name: str) -> list[dict[str, Any]]:
    lines = (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []

    def load_dataset(
        path: str, name: str | None = None, *, split: str, **options: Any
    ) -> list[dict[str, Any]]:
        calls.append((path, name, split, options))
        return fixture_rows(SEED_HUB[path])

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    return calls


def test_gpqa_shuffles_options_by_record_and_keeps_the_right_one(
    fake_hub: list[tuple[Any, ...]],
) -> None:
    items = load_dataset("gpqa-main")
    assert fake_hub[0][:3] == ("Idavidrein/gpqa", "gpqa_main", "train")
    rows = fixture_rows("gpqa")
    for item, row in zip(items, rows, strict=True):
        assert item.id == f"gpqa-main-{row['Record ID']}"
        assert item.choices is not None and item.reference is not None
        assert item.choices["ABCD".index(item.reference)] == row["Correct Answer"]
        order = list(range(4))
        random.Random(f"gpqa:{row['Record ID']}").shuffle(order)
        assert item.reference == "ABCD"[order.index(0)]
    assert load_dataset("gpqa-main") == items  # the same order on every load
    assert load_dataset("gpqa-diamond")[0].id == "gpqa-diamond-recA1"


def test_gpqa_right_letters_spread_over_the_options() -> None:
    row = {"Question": "q", "Correct Answer": "r"}
    row |= {f"Incorrect Answer {k}": f"w{k}" for k in (1, 2, 3)}
    letters = {gpqa_row_to_item({**row, "Record ID": f"rec{i}"}, i).reference for i in range(40)}
    assert letters == {"A", "B", "C", "D"}


def test_hle_keeps_only_text_only_non_math_multiple_choice(
    fake_hub: list[tuple[Any, ...]],
) -> None:
    items = load_dataset("hle")
    assert [i.id for i in items] == ["hle-h1", "hle-h2"]
    assert items[0].question == "Which logician proved the incompleteness theorems?"
    assert items[0].choices == ("Frege", "Goedel", "Tarski", "Russell")
    assert [i.reference for i in items] == ["B", "C"]


def test_hle_choices_refuse_a_block_whose_letters_skip() -> None:
    assert hle_choices("Q?\n\nAnswer Choices:\nA. x\nC. y") is None
    assert hle_choices("Q? no options") is None
    assert hle_choices("Q?\nAnswer Choices:\nA. one\ntwo lines\nB. y") == (
        "Q?",
        ("one\ntwo lines", "y"),
    )


def test_aicrypto_keeps_single_answer_questions(fake_hub: list[tuple[Any, ...]]) -> None:
    items = load_dataset("aicrypto")
    assert [(i.id, i.reference) for i in items] == [("aicrypto-0", "B"), ("aicrypto-2", "B")]
    assert items[1].choices == ("64", "128", "192", "256", "None of the above")


def test_aime_sets_give_integer_references(fake_hub: list[tuple[Any, ...]]) -> None:
    assert [i.reference for i in load_dataset("aime2024")] == ["24", "9"]
    items = load_dataset("aime2025")
    assert [call[1] for call in fake_hub[1:]] == ["AIME2025-I", "AIME2025-II"]
    assert [i.id for i in items] == [
        "aime2025-I-00", "aime2025-I-01", "aime2025-II-00", "aime2025-II-01"
    ]  # fmt: skip
    assert answers_match(canonicalize("The answer is 024.", "number"), "24", "number")


@pytest.mark.parametrize("answer", ["1000", "-3", "12.5", "x"])
def test_an_aime_answer_outside_0_999_is_refused(answer: str) -> None:
    with pytest.raises(ValueError, match="integer 0-999"):
        aime_row_to_item({"problem": "p", "answer": answer}, 3)


def test_imo_answerbench_grades_short_and_boxed_answers(
    fake_hub: list[tuple[Any, ...]],
) -> None:
    items = load_dataset("imo-answerbench")
    assert [i.id for i in items] == ["imo-imo-bench-algebra-900", "imo-imo-bench-number_theory-901"]
    assert {i.task for i in items} == {"math"}
    assert answers_match(canonicalize(r"so $\boxed{2}$", "math"), items[0].reference, "math")
    assert answers_match(canonicalize("11", "math"), items[1].reference, "math")
    assert not answers_match(canonicalize("12", "math"), items[1].reference, "math")


def test_mmlu_subject_reads_its_configuration(fake_hub: list[tuple[Any, ...]]) -> None:
    items = load_dataset("mmlu-logical-fallacies")
    revision = {"revision": "c30699e8356da336a370243923dbaf21066bb9fe"}
    assert fake_hub == [("cais/mmlu", "logical_fallacies", "test", revision)]
    assert items[0].id == "mmlu-logical_fallacies-test-00000"


def test_squad_and_longbench_keep_every_accepted_answer(
    fake_hub: list[tuple[Any, ...]],
) -> None:
    squad = load_dataset("squad")
    assert fake_hub[0][:3] == ("rajpurkar/squad", None, "validation")
    assert squad[0].id == "squad-5733be284776f41900661182"
    assert squad[0].question.endswith("\n\nQuestion: Who built the lighthouse?")
    assert squad[0].metadata["answers"] == ["the Brown family", "Brown family", "Brown"]
    assert squad[0].reference == "brown family"
    hotpot = load_dataset("longbench-hotpotqa")
    assert fake_hub[1][:3] == ("THUDM/LongBench", "hotpotqa", "test")
    assert [i.id for i in hotpot] == ["longbench-hotpotqa-lb-0001", "longbench-hotpotqa-lb-0002"]
    load_dataset("longbench")
    assert [call[1] for call in fake_hub[2:]] == [
        "narrativeqa", "qasper", "multifieldqa_en", "hotpotqa", "2wikimqa", "musique"
    ]  # fmt: skip


def test_span_scores_follow_squads_normalisation() -> None:
    assert normalize_span("The  Brown-Family!") == "brownfamily"
    assert normalize_span("An apple, a pear") == "apple pear"
    golds = ["the Brown family", "Brown"]
    assert span_exact_match("Brown.", golds) == 1.0
    assert span_exact_match("the Browns", golds) == 0.0
    # "built by brown family" vs "brown family": 2 common, precision 2/4, recall 2/2
    assert span_f1("built by Brown family", ["Brown family"]) == pytest.approx(2 / 3)
    assert span_f1("Brown", golds) == 1.0  # the best over the golds
    assert span_f1("nothing shared", golds) == 0.0
    assert span_f1("anything", []) == 0.0
    assert span_f1("the", ["a"]) == 1.0  # both empty once normalised
    assert span_f1("", ["Brown"]) == 0.0


def test_a_failed_fetch_is_one_line_naming_the_set_and_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def offline(path: str, name: str | None = None, **_: Any) -> None:
        raise ConnectionError(f"Couldn't reach '{path}' on the Hub (LocalEntryNotFoundError)")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=offline))
    with pytest.raises(HubUnavailable) as raised:
        load_dataset("gpqa-diamond")
    message = str(raised.value)
    assert "\n" not in message
    assert "'Idavidrein/gpqa'" in message
    assert "accept its terms at https://huggingface.co/datasets/Idavidrein/gpqa" in message
    assert "huggingface-cli login" in message
    with pytest.raises(HubUnavailable, match="connect to the network"):
        load_dataset("squad")


def test_longbench_says_what_its_loading_script_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: str, name: str | None = None, **_: Any) -> None:
        raise RuntimeError(f"Dataset scripts are no longer supported, but found {path}.py")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=refuse))
    with pytest.raises(HubUnavailable) as raised:
        load_dataset("longbench-qasper")
    assert str(raised.value) == (
        "could not load the hub dataset 'THUDM/LongBench' (Dataset scripts are no longer "
        "supported, but found THUDM/LongBench.py): it is served by a loading script: use a "
        "`datasets` release that still runs loading scripts (`pip install 'datasets<4'`) and "
        "allow it with HF_DATASETS_TRUST_REMOTE_CODE=1"
    )
    monkeypatch.setitem(
        sys.modules,
        "datasets",
        types.SimpleNamespace(load_dataset=lambda *a, **k: (_ for _ in ()).throw(KeyError("x"))),
    )
    with pytest.raises(KeyError):  # anything else is not hidden
        load_dataset("squad")


def test_every_dataset_declares_its_source_licence_size_and_grader() -> None:
    for name, *rest in dataset_rows():
        assert all(rest), name
    assert len(dataset_rows()) == len(DATASETS)


def test_the_docs_dataset_table_is_the_commands_table() -> None:
    assert dataset_table() in DOCS.read_text(encoding="utf-8")


def test_the_datasets_command_prints_the_table() -> None:
    from typer.testing import CliRunner

    from debategraph.cli import app

    done = CliRunner().invoke(app, ["datasets"])
    assert done.exit_code == 0, done.output
    assert done.stdout.strip() == dataset_table()


def test_eval_on_a_gated_set_without_access_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from debategraph.cli import app

    class GatedRepoError(Exception):
        """As huggingface_hub names it."""

    def gated(path: str, name: str | None = None, **_: Any) -> None:
        raise GatedRepoError(f"Access to dataset {path} is restricted.\nLog in to ask for it.")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=gated))
    out = tmp_path / "out"
    done = CliRunner().invoke(
        app,
        ["eval", "--dataset", "hle", "--method", "cot", "--model", "simulated", "--quiet",
         "--limit", "1", "--out", str(out)],
    )  # fmt: skip
    assert done.exit_code == 2, done.output
    assert not out.exists()
    assert done.stderr.strip().splitlines() == [
        "error: could not fetch the hub dataset 'cais/hle' (Access to dataset cais/hle is "
        "restricted.): accept its terms at https://huggingface.co/datasets/cais/hle and log in "
        "with `huggingface-cli login` (or set HF_TOKEN), with network access"
    ]


def test_a_span_answer_is_graded_by_exact_match_and_f1_over_every_accepted_answer(
    fake_hub: list[tuple[Any, ...]],
) -> None:
    import debategraph as dg
    from debategraph.eval.log.rows import result_row
    from debategraph.eval.run.arms import Arm
    from debategraph.testing import ScriptedChatModel

    item = load_dataset("squad")[0]  # accepted: "the Brown family", "Brown family", "Brown"
    arm = Arm("cot", "cot", {})

    def row_for(reply: str) -> dict[str, Any]:
        result = dg.run(
            item.question, method="cot", models=ScriptedChatModel(replies=[reply]),
            task="text", reference=item.reference,
        )  # fmt: skip
        return result_row(arm, item, result, wall_s=0.0, dataset="squad")

    exact = row_for("Answer: Brown")  # the third accepted answer, not the reference's form
    assert exact["correct"] and exact["span_scores"] == {"exact_match": 1.0, "f1": 1.0}
    partial = row_for("Answer: the Brown brothers")  # best F1 against "Brown": 2/3
    assert not partial["correct"]
    assert partial["span_scores"] == {"exact_match": 0.0, "f1": round(2 / 3, 6)}
    other = row_for("Answer: the Smith family")  # "family" alone is shared
    assert other["span_scores"] == {"exact_match": 0.0, "f1": 0.5}
    assert exact["accepted"] == ["the Brown family", "Brown family", "Brown"]
    from debategraph.eval.analysis.dynamics import grade
    from debategraph.eval.analysis.rescore import rescore

    assert grade("Brown", exact) and not grade("the Browns", exact)  # every accepted answer
    (again,) = rescore([exact], "majority")  # a re-decided arm is graded the same way
    assert again["correct"] and again["span_scores"] == exact["span_scores"]
