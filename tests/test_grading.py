"""Grading: canonical equality, symbolic equivalence for math, references that still match."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from debategraph.eval.datasets import load_jsonl, math_row_to_item, strategyqa_row_to_item
from debategraph.policies import mathgrade
from debategraph.policies.answers import answers_match, canonicalize, extract_answer

P = pytest.param


@pytest.mark.parametrize(
    ("answer", "reference", "task", "expected"),
    [
        P("18", "18", "number", True, id="number-equal"),
        P("18", "18.5", "number", False, id="number-different"),
        P(None, "18", "number", False, id="abstention-never-matches"),
        P("18", None, "number", False, id="no-reference"),
        P(None, None, "text", False, id="two-abstentions"),
        P("B", "B", "choice", True, id="choice"),
        P("yes", "yes", "text", True, id="text"),
        P("-3", "3", "text", False, id="text-keeps-sign"),
    ],
)
def test_answers_match_by_canonical_equality(
    answer: str | None, reference: str | None, task: str, expected: bool
) -> None:
    assert answers_match(answer, reference, task) is expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("predicted", "reference", "expected"),
    [
        P(r"\dfrac{1}{2}", "0.5", True, id="fraction-decimal"),
        P(r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}", True, id="rationalised"),
        P("x^2+7x+10", "(x+2)(x+5)", True, id="factored"),
        P(r"3\sqrt{3}", r"\sqrt{27}", True, id="surd"),
        P(r"\{1, 2\}", r"\{2,1\}", True, id="set-order"),
        P(r"\left[ -2, 5 \right)", "[-2,5)", True, id="interval"),
        P("y = 2x + 3", "2x+3", True, id="equation-rhs"),
        P(r"90^\circ", "90", True, id="degrees"),
        P("-3", "3", False, id="sign"),
        P("x^2+1", "x^2-1", False, id="operator"),
        P("(3,-2)", "(3,2)", False, id="tuple-sign"),
        P("[-2,5)", "(-2,5)", False, id="interval-bracket"),
    ],
)
def test_math_graded_by_symbolic_equivalence(
    predicted: str, reference: str, expected: bool
) -> None:
    pytest.importorskip("math_verify")
    answer = extract_answer(rf"So the result is \boxed{{{predicted}}}.", "math")
    assert answers_match(answer, canonicalize(reference, "math"), "math") is expected


def test_math_grade_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "math_verify", None)
    mathgrade._math_verify.cache_clear()
    mathgrade.math_equivalent.cache_clear()
    try:
        with pytest.raises(mathgrade.MathExtraMissingError, match=r"debategraph\[math\]"):
            answers_match("1", "2", "math")
        with pytest.raises(ImportError, match=r"debategraph\[math\]"):
            mathgrade.require_math_extra()
    finally:
        mathgrade._math_verify.cache_clear()
        mathgrade.math_equivalent.cache_clear()
    # Other kinds never need it.
    assert answers_match("1", "1", "number")


@pytest.mark.slow
def test_extraction_never_imports_sympy() -> None:
    code = (
        "import sys\n"
        "from debategraph.policies.answers import parse_answer\n"
        "parse_answer(r'\\boxed{\\frac{1}{2}}', 'math')\n"
        "parse_answer('The answer is 3', 'number')\n"
        "print('sympy' in sys.modules, 'math_verify' in sys.modules)\n"
    )
    src = str(Path(__file__).parents[1] / "src")
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": src, "PATH": ""},
    )
    assert out.stdout.split() == ["False", "False"]


def test_strategyqa_references_match_yes_no_answers() -> None:
    yes = strategyqa_row_to_item({"question": "q", "answer": True}, 0).reference
    no = strategyqa_row_to_item({"question": "q", "answer": "False"}, 1).reference
    assert extract_answer("Answer: Yes, because penguins cannot fly.", "text") == yes
    assert extract_answer("Answer: **No.**", "text") == no
    assert answers_match(extract_answer("Answer: True", "text"), yes, "text")


def test_math500_items_use_the_math_kind_and_keep_structure() -> None:
    item = math_row_to_item({"problem": "p", "answer": r"\left( 3, -\frac{\pi}{2} \right)"}, 0)
    assert item.task == "math"
    assert item.reference == r"(3,-\frac{\pi}{2})"


def test_jsonl_math_references(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    records = [
        {"id": "a", "question": "q", "task": "math", "reference": r"\boxed{\dfrac{3}{4}}"},
        {"id": "b", "question": "q", "task": "math", "reference": 0.25},
        {"id": "c", "question": "q", "task": "math", "reference": "x^2 - 1"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    assert [i.reference for i in load_jsonl(path)] == [r"\frac{3}{4}", r"\frac{1}{4}", "x^2-1"]
