"""Question sets: JSONL validation, bundled and generated sets, hub row converters, sampling."""

from __future__ import annotations

import gzip
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from debategraph.eval import datasets as ds
from debategraph.eval.datasets import (
    DATASETS,
    DatasetFormatError,
    Item,
    arc_row_to_item,
    arithmetic_items,
    gsm8k_row_to_item,
    load_dataset,
    load_gsm8k_bundled,
    load_jsonl,
    math_row_to_item,
    mmlu_pro_row_to_item,
    mmlu_row_to_item,
    save_jsonl,
    select_items,
    strategyqa_row_to_item,
    strip_boxed,
)
from debategraph.policies.answers import canonicalize

FIXTURES = Path(__file__).parent / "fixtures" / "datasets"


def fixture_rows(name: str) -> list[dict[str, Any]]:
    lines = (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def write_lines(path: Path, records: list[Any]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


# ----------------------------------------------------------------------------- Item


def test_item_json_round_trip_and_hashable() -> None:
    item = Item("q1", "Pick one", "B", "choice", ("x", "y"), {"subject": "s"})
    data = item.to_json()
    assert data == {
        "id": "q1",
        "question": "Pick one",
        "reference": "B",
        "task": "choice",
        "choices": ["x", "y"],
        "metadata": {"subject": "s"},
    }
    assert Item.from_json(data) == item
    assert Item.from_json(json.dumps(data)) == item
    assert item.num_choices == 2
    assert len({item, Item.from_json(data)}) == 1


def test_item_from_json_allows_missing_reference_but_validates() -> None:
    assert Item.from_json({"id": "a", "question": "q?"}).reference is None
    with pytest.raises(DatasetFormatError, match="unknown task"):
        Item.from_json({"id": "a", "question": "q?", "task": "essay"})


# ----------------------------------------------------------------------------- JSONL


def test_load_jsonl_canonicalises_references_and_keeps_metadata() -> None:
    items = load_jsonl(FIXTURES / "questions.jsonl")
    assert [i.id for i in items] == ["q-001", "q-002", "q-003", "4", "q-005"]
    assert [i.reference for i in items] == ["1234.5", "B", "eiffel tower", "8", "0.5"]
    assert [i.task for i in items] == ["number", "choice", "text", "number", "number"]
    assert items[1].choices == ("Mars", "Jupiter", "Venus")
    assert items[2].metadata == {"topic": "geography", "difficulty": "easy"}


def test_load_jsonl_reads_gzip_and_round_trips_save(tmp_path: Path) -> None:
    items = load_jsonl(FIXTURES / "questions.jsonl")
    plain = save_jsonl(items, tmp_path / "sub" / "set.jsonl")
    packed = tmp_path / "set.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert load_jsonl(plain) == items
    assert load_jsonl(packed) == items


def test_float_references_are_not_read_in_scientific_notation(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "f.jsonl", [{"id": "a", "question": "q", "reference": 1e-05}])
    # str(1e-05) is "1e-05", whose first number is 1: the loader must see 0.00001 instead,
    # and canonicalise it exactly like a model answer "0.00001".
    assert load_jsonl(path)[0].reference == canonicalize("0.00001", "number") == "1e-05"


BASE = {"id": "x", "question": "What?", "reference": "1"}


@pytest.mark.parametrize(
    ("record", "fragment"),
    [
        ({"question": "What?", "reference": "1"}, 'missing required field "id"'),
        ({"id": "x", "reference": "1"}, 'missing required field "question"'),
        ({"id": "x", "question": "What?"}, 'missing required field "reference"'),
        ({**BASE, "task": "essay"}, "unknown task 'essay': use one of \"number\""),
        ({**BASE, "reference": "many"}, "\"reference\" 'many' is not a number"),
        ({**BASE, "reference": True}, "is not a number"),
        ({**BASE, "choices": ["a", "b"]}, 'add "task": "choice"'),
        (
            {**BASE, "task": "choice", "choices": ["a", "b", "c", "d"], "reference": "E"},
            "not a valid letter for 4 choices: use one of A-D",
        ),
        (
            {**BASE, "task": "choice", "choices": ["a", "b"], "reference": 1},
            "give the letter",
        ),
        ({**BASE, "task": "choice", "choices": ["only"], "reference": "A"}, "give 2 to 10"),
        ({**BASE, "question": "   "}, '"question" must be a non-empty string'),
        ({**BASE, "id": ""}, '"id" is empty'),
        ({**BASE, "task": "text", "reference": "!!"}, "empty once normalised"),
        ({**BASE, "metadata": [1]}, '"metadata" must be a JSON object'),
        (["not", "an", "object"], "expected a JSON object"),
    ],
)
def test_load_jsonl_errors_name_the_line_and_the_fix(
    tmp_path: Path, record: Any, fragment: str
) -> None:
    path = write_lines(tmp_path / "bad.jsonl", [{**BASE, "id": "ok"}, record])
    with pytest.raises(DatasetFormatError) as info:
        load_jsonl(path)
    message = str(info.value)
    assert f"{path}, line 2: " in message
    assert fragment in message


def test_load_jsonl_reports_every_bad_line_including_duplicates_and_bad_json(
    tmp_path: Path,
) -> None:
    path = write_lines(
        tmp_path / "bad.jsonl",
        [BASE, "{not json", "", BASE, {"id": "y", "question": "q"}],
    )
    with pytest.raises(DatasetFormatError) as info:
        load_jsonl(path)
    message = str(info.value)
    assert message.startswith(f"{path}, line 2: not valid JSON")
    assert "; line 4: duplicate id 'x' (first used on line 1)" in message
    assert '; line 5: missing required field "reference"' in message
    assert message.endswith(" (3 problems)")
    assert "\n" not in message


def test_dataset_errors_by_the_dozen_are_one_line_naming_the_file(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "bad.jsonl", ["{not json"] * 19)
    with pytest.raises(DatasetFormatError) as info:
        load_jsonl(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}, line 1: not valid JSON")
    assert message.count("not valid JSON") == 3
    assert message.endswith("(19 problems, 16 more not shown)")


def test_load_jsonl_without_reference_requirement_and_empty_file(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "q.jsonl", [{"id": "a", "question": "q"}])
    assert load_jsonl(path, require_reference=False)[0].reference is None
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(DatasetFormatError, match="no records"):
        load_jsonl(tmp_path / "empty.jsonl")


# ----------------------------------------------------------------------------- offline sets


def test_bundled_gsm8k() -> None:
    items = load_gsm8k_bundled()
    assert len(items) == 1319
    assert len({i.id for i in items}) == 1319
    first = items[0]
    assert first.id == "gsm8k-test-0000"
    assert first.question.startswith("Janet")
    assert first.reference == "18"
    assert first.task == "number"
    assert set(first.metadata["model_solutions"]) == {
        "6b_finetuning",
        "6b_verification",
        "175b_finetuning",
        "175b_verification",
    }
    assert first.metadata["model_solutions"]["175b_verification"]["is_correct"] is True
    assert all(re.fullmatch(r"-?\d+(\.\d+)?", i.reference or "") for i in items)
    assert items[-1].id == "gsm8k-test-1318"
    assert load_gsm8k_bundled() is not load_gsm8k_bundled()  # callers get their own list


def test_arithmetic_items_are_seeded_and_correct() -> None:
    items = arithmetic_items(50, seed=7)
    assert [i.id for i in items[:3]] == ["arith-7-0", "arith-7-1", "arith-7-2"]
    for item in items:
        match = re.search(r"(\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)", item.question)
        assert match is not None, item.question
        a, b, c, d, e, f = map(int, match.groups())
        assert all(0 <= v < 30 for v in (a, b, c, d, e, f))
        assert item.reference == str(a + b * c + d - e * f)
        assert item.metadata["operands"] == [a, b, c, d, e, f]
    assert arithmetic_items(50, seed=7) == items
    assert arithmetic_items(10, seed=7) == items[:10]
    assert arithmetic_items(10, seed=8) != items[:10]
    assert arithmetic_items(0) == []
    with pytest.raises(ValueError, match="n must be >= 0"):
        arithmetic_items(-1)


def test_arithmetic_first_item_matches_hand_computation() -> None:
    # random.Random(0).randrange(30) six times gives 27, 12, 24, 28, 13, 1; pinning it keeps
    # the task (and so published item ids) reproducible across releases.
    first = arithmetic_items(1, seed=0)[0]
    assert first.question == "What is the result of 27+12*24+28-13*1?"
    assert first.reference == str(27 + 12 * 24 + 28 - 13 * 1) == "330"


# ----------------------------------------------------------------------------- hub rows


def test_gsm8k_row_to_item() -> None:
    items = [gsm8k_row_to_item(row, i) for i, row in enumerate(fixture_rows("gsm8k"))]
    assert [i.id for i in items] == ["gsm8k-test-0000", "gsm8k-test-0001", "gsm8k-test-0002"]
    assert [i.reference for i in items] == ["9", "1250", "-3"]
    assert items[0].metadata["rationale"] == (
        "The baker sells 3 * 5 = 15 rolls.\nSo 24 - 15 = 9 rolls are left."
    )
    assert gsm8k_row_to_item(fixture_rows("gsm8k")[0], 5, split="train").id == "gsm8k-train-0005"
    with pytest.raises(ValueError, match="no final '#### <number>'"):
        gsm8k_row_to_item({"question": "q", "answer": "it is 5"}, 0)


def test_mmlu_row_to_item() -> None:
    items = [mmlu_row_to_item(row, i) for i, row in enumerate(fixture_rows("mmlu"))]
    assert [i.reference for i in items] == ["C", "A", "D"]
    assert items[0].id == "mmlu-test-00000"
    assert items[0].choices == ("Ribosome", "Golgi apparatus", "Mitochondrion", "Lysosome")
    assert items[0].metadata == {"subject": "high_school_biology"}
    assert {i.task for i in items} == {"choice"}
    assert mmlu_row_to_item({**fixture_rows("mmlu")[0], "answer": "b"}, 0).reference == "B"
    with pytest.raises(ValueError, match="outside the 4 options"):
        mmlu_row_to_item({**fixture_rows("mmlu")[0], "answer": 4}, 0)


def test_mmlu_pro_row_to_item() -> None:
    rows = fixture_rows("mmlu_pro")
    ten, nine = (mmlu_pro_row_to_item(row, i) for i, row in enumerate(rows))
    assert (ten.id, ten.reference, ten.num_choices) == ("mmlu-pro-70", "I", 10)
    assert (nine.id, nine.reference, nine.num_choices) == ("mmlu-pro-71", "B", 9)
    assert ten.metadata["category"] == "math"
    assert ten.metadata["src"] == "ori_mmlu-high_school_mathematics"
    with pytest.raises(ValueError, match="disagrees with answer_index"):
        mmlu_pro_row_to_item({**rows[0], "answer_index": 2}, 0)


def test_arc_row_to_item_handles_digit_labels_and_odd_option_counts() -> None:
    items = [arc_row_to_item(row, i) for i, row in enumerate(fixture_rows("arc_challenge"))]
    assert [i.reference for i in items] == ["B", "B", "C", "E"]
    assert [i.num_choices for i in items] == [4, 4, 3, 5]
    digit = items[1]
    assert digit.id == "arc-NYSEDREGENTS_2015_8_12"
    assert digit.choices == ("sound", "elastic potential", "thermal", "light")
    assert digit.metadata["labels"] == ["1", "2", "3", "4"]
    assert digit.metadata["answer_key"] == "2"
    with pytest.raises(ValueError, match="not one of the labels"):
        arc_row_to_item({**fixture_rows("arc_challenge")[0], "answerKey": "Z"}, 0)


def test_math_row_to_item() -> None:
    items = [math_row_to_item(row, i) for i, row in enumerate(fixture_rows("math500"))]
    # Math keys keep signs, operators and structure (the old text form dropped them all).
    assert [i.reference for i in items] == [r"\frac{1}{2}", "10", r"(3,\frac{\pi}{2})"]
    assert items[0].id == "math500-000"
    assert items[0].task == "math"
    assert items[0].metadata["unique_id"] == "test/prealgebra/101.json"
    assert items[0].metadata["level"] == 1
    original = {"problem": "p", "solution": r"So $x=\boxed{\frac{3}{4}}$.", "level": "Level 3"}
    assert math_row_to_item(original, 0).reference == r"\frac{3}{4}"
    assert math_row_to_item({"problem": "p", "answer": r"\boxed{7}"}, 1).reference == "7"


def test_strip_boxed() -> None:
    assert strip_boxed(r"so \boxed{\frac{1}{2}} and \boxed{\sqrt{3}}") == r"\sqrt{3}"
    assert strip_boxed(r"$\fbox{5}$") == "5"
    assert strip_boxed(" $42$ ") == "42"
    assert strip_boxed(r"\boxed{unclosed") == r"\boxed{unclosed"


def test_strategyqa_row_to_item() -> None:
    items = [strategyqa_row_to_item(row, i) for i, row in enumerate(fixture_rows("strategyqa"))]
    assert [i.reference for i in items] == ["no", "yes"]
    assert items[0].id == "strategyqa-a1b2c3d4e5f6a7b8c9d0"
    assert items[0].task == "text"
    assert items[0].metadata["term"] == "Penguin"
    assert strategyqa_row_to_item({"question": "q", "answer": "Yes"}, 3).reference == "yes"
    with pytest.raises(ValueError, match="not a yes/no value"):
        strategyqa_row_to_item({"question": "q", "answer": "maybe"}, 0)


# ----------------------------------------------------------------------------- hub fetches

HUB = {
    "gsm8k-hub": ("openai/gsm8k", "main", "gsm8k"),
    "mmlu": ("cais/mmlu", "all", "mmlu"),
    "mmlu-pro": ("TIGER-Lab/MMLU-Pro", None, "mmlu_pro"),
    "arc-challenge": ("allenai/ai2_arc", "ARC-Challenge", "arc_challenge"),
    "math500": ("HuggingFaceH4/MATH-500", None, "math500"),
    "strategyqa": ("ChilleD/StrategyQA", None, "strategyqa"),
}


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    by_path = {path: fixture for path, _, fixture in HUB.values()}

    def load_dataset(
        path: str, name: str | None = None, *, split: str, revision: str
    ) -> list[dict[str, Any]]:
        calls.append((path, name, split, revision))
        return fixture_rows(by_path[path])

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    return calls


@pytest.mark.parametrize("name", sorted(HUB))
def test_hub_loaders_fetch_the_right_dataset(name: str, fake_hub: list[tuple[Any, ...]]) -> None:
    path, config, fixture = HUB[name]
    items = load_dataset(name)
    assert fake_hub == [(path, config, "test", DATASETS[name].revision)]
    assert len(items) == len(fixture_rows(fixture))
    assert {i.task for i in items} == {DATASETS[name].task}
    assert not DATASETS[name].offline


def test_hub_loader_without_datasets_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ImportError, match=re.escape("pip install 'debategraph[datasets]'")):
        load_dataset("mmlu")


# ----------------------------------------------------------------------------- sampling


def test_registry_names() -> None:
    assert set(DATASETS) == {
        "gsm8k",
        "gsm8k-hub",
        "arithmetic",
        "jsonl",
        "mmlu",
        "mmlu-pro",
        "arc-challenge",
        "math500",
        "strategyqa",
        "gsm-ic-2step",
        "gsm-ic-mstep",
        "gpqa-main",
        "gpqa-diamond",
        "longbench",
        *(
            f"longbench-{task}"
            for task in ("narrativeqa", "qasper", "multifieldqa_en", "hotpotqa", "2wikimqa")
        ),
        "longbench-musique",
        "squad",
        "aime2024",
        "aime2025",
        "gsm-ranges-4",
        "gsm-ranges-6",
        "mmlu-logical-fallacies",
        "aicrypto",
        "imo-answerbench",
        "hle",
    }
    assert DATASETS["gsm8k"].offline and DATASETS["arithmetic"].offline


def test_unknown_dataset_lists_valid_names() -> None:
    with pytest.raises(ValueError, match=r"unknown dataset 'gsm9k'; valid names: gsm8k, "):
        load_dataset("gsm9k")


def test_limit_sample_is_seeded_ordered_and_nested() -> None:
    first = load_dataset("gsm8k", limit=20, seed=3)
    again = load_dataset("gsm8k", limit=20, seed=3)
    other = load_dataset("gsm8k", limit=20, seed=4)
    bigger = load_dataset("gsm8k", limit=40, seed=3)
    ids = [i.id for i in first]
    assert ids == [i.id for i in again]
    assert ids != [i.id for i in other]
    assert ids == sorted(ids)  # original order kept
    assert len(set(ids)) == 20
    assert set(ids) <= {i.id for i in bigger}
    assert ids != [f"gsm8k-test-{k:04d}" for k in range(20)]  # a sample, not the head


def test_limit_larger_than_dataset_and_zero() -> None:
    items = arithmetic_items(5)
    assert select_items(items, limit=99) == items
    assert select_items(items, limit=0) == []
    with pytest.raises(ValueError, match="limit must be >= 0"):
        select_items(items, limit=-1)


def test_ids_select_exactly_those_in_order(tmp_path: Path) -> None:
    wanted = ["gsm8k-test-0100", "gsm8k-test-0002", "gsm8k-test-0050"]
    assert [i.id for i in load_dataset("gsm8k", ids=wanted)] == wanted
    id_file = tmp_path / "ids.txt"
    id_file.write_text("# my subset\ngsm8k-test-0100\n\ngsm8k-test-0002\ngsm8k-test-0050\n")
    assert [i.id for i in load_dataset("gsm8k", ids=id_file)] == wanted
    assert [i.id for i in load_dataset("gsm8k", ids=str(id_file))] == wanted


def test_ids_errors() -> None:
    with pytest.raises(ValueError, match=r"2 unknown id\(s\): 'nope', 'gsm8k-test-9999'"):
        load_dataset("gsm8k", ids=["gsm8k-test-0001", "nope", "gsm8k-test-9999"])
    with pytest.raises(ValueError, match="repeated"):
        load_dataset("gsm8k", ids=["gsm8k-test-0001", "gsm8k-test-0001"])
    with pytest.raises(ValueError, match="either ids or limit"):
        load_dataset("gsm8k", ids=["gsm8k-test-0001"], limit=3)


def test_arithmetic_through_load_dataset() -> None:
    assert len(load_dataset("arithmetic")) == ds.ARITHMETIC_DEFAULT_SIZE
    assert load_dataset("arithmetic", limit=5, seed=2) == arithmetic_items(5, seed=2)
    picked = load_dataset("arithmetic", ids=["arith-3-7", "arith-0-1"])
    assert picked == [arithmetic_items(8, 3)[7], arithmetic_items(2, 0)[1]]
    with pytest.raises(ValueError, match=r"unknown id\(s\): 'arith-x'"):
        load_dataset("arithmetic", ids=["arith-x"])


def test_jsonl_through_load_dataset() -> None:
    items = load_dataset("jsonl", path=FIXTURES / "questions.jsonl", ids=["q-003", "q-001"])
    assert [i.id for i in items] == ["q-003", "q-001"]
    with pytest.raises(ValueError, match="needs path"):
        load_dataset("jsonl")
    with pytest.raises(ValueError, match="path is only used by dataset 'jsonl'"):
        load_dataset("gsm8k", path=FIXTURES / "questions.jsonl")


def test_hub_loaders_turn_each_row_of_the_split_into_an_item(monkeypatch):
    from debategraph.eval.datasets import hub

    asked = []

    def rows(path, config, split, revision):
        asked.append((path, config, split, revision))
        return [
            {"question": "1+1?", "answer": "1+1=2 #### 2"},
            {"question": "2*3?", "answer": "#### 6"},
        ]

    monkeypatch.setattr(hub, "hub_rows", rows)
    items = ds.load_gsm8k_hub("train")
    assert asked == [("openai/gsm8k", "main", "train", "cc7b047b6e5bb11b4f1af84efc572db110a51b3c")]
    assert [(i.id, i.question, i.reference) for i in items] == [
        ("gsm8k-train-0000", "1+1?", "2"),
        ("gsm8k-train-0001", "2*3?", "6"),
    ]
