"""Extraction is linear: 100 kB pathological responses parse in well under 50 ms.

The old "answer" regex backtracked catastrophically ("answer" and a few hundred newlines
took seconds). Each input below is about 100 kB and aims at one construct: long runs after a
marker, thousands of markers, unclosed braces and boxes, digit runs with separators, and so
on. Every task kind parses each of them; the best of three runs must stay under 50 ms of
CPU time (process time, so that other processes loading the machine do not count).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from debategraph.policies.answers import parse_answer
from debategraph.policies.confidence import read_confidence, strip_confidence

SIZE = 100_000
BUDGET_S = 0.050

PATHOLOGICAL = {
    "answer-newlines": "answer" + "\n" * SIZE,
    "label-newlines": "Answer:" + "\n" * SIZE,
    "phrase-spaces": "the answer is" + " " * SIZE,
    "many-phrases": "the answer is " * (SIZE // 14),
    "many-labels": "Answer: x\n" * (SIZE // 10),
    "many-final-answers": "final answer " * (SIZE // 13),
    "open-boxes": "\\boxed{" * (SIZE // 7),
    "open-braces": "{" * SIZE,
    "digits": "1" * SIZE,
    "digit-commas": "1," * (SIZE // 2),
    "digit-spaces": "1 " * (SIZE // 2),
    "paren-letters": "(A) " * (SIZE // 4),
    "confidence-labels": "Confidence: " * (SIZE // 12),
    "self-confidence": "I am " * (SIZE // 5),
    "fractions": "\\frac{" * (SIZE // 6),
    "dollars": "$" * SIZE,
    "minus-signs": "-" * SIZE,
    "times-ten": "2 \\times " * (SIZE // 9),
    "powers": "10^" * (SIZE // 3),
    "peer-quotes": "Agent 2 says " * (SIZE // 13),
    "choose": "I choose " * (SIZE // 9),
    "letters-lines": "C\n" * (SIZE // 2),
    "peer-labels": "Solution from a2:\n" * (SIZE // 18),
    "peer-labels-answers": "Solution from a2:\nAnswer: 5\n" * (SIZE // 28),
    "fences": "```\n" * (SIZE // 4),
    "quote-marks": '"' * SIZE,
    "quoted-declarations": 'a2 says "the answer is 5" ' * (SIZE // 26),
    "peer-numbers": "Agent 2 got 5. " * (SIZE // 15),
    "peer-letters": "Agent 2 picked (B). " * (SIZE // 20),
    "agreements": "the answer is 4, and I agree. " * (SIZE // 30),
    "roots": "\\sqrt{" * (SIZE // 6),
    "restatements": "the answer is 1 - 2, i.e. " * (SIZE // 26),
}


def best_of_three(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_response_parses_fast(name: str) -> None:
    text = PATHOLOGICAL[name]
    assert len(text) >= SIZE * 0.9
    for task in ("number", "choice", "text", "math"):
        elapsed = best_of_three(lambda: parse_answer(text, task, 4))  # noqa: B023
        assert elapsed < BUDGET_S, f"{name}/{task}: {elapsed * 1000:.1f} ms"
    elapsed = best_of_three(lambda: (read_confidence(text), strip_confidence(text)))
    assert elapsed < BUDGET_S, f"{name}/confidence: {elapsed * 1000:.1f} ms"
