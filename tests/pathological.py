"""The 100 kB pathological responses of the linear-time guard (``test_answer_speed.py``).

Each input is about 100 kB and aims at one construct: long runs after a marker, thousands of
markers, unclosed braces and boxes, digit runs with separators, copied peer blocks, quotes,
and so on. ``bench/answers.py`` reads them too, against any source tree.
"""

from __future__ import annotations

SIZE = 100_000

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
    "peer-lead-ins": "For comparison, a3 wrote:\n" * (SIZE // 26),
    "described-lines": "a2's reply, in short: the answer is 5; " * (SIZE // 40),
    "values-handed-to-peers": "the answer is 5 in their solution " * (SIZE // 34),
    "turns-then-peer-verbs": "Agent 2 instead got 5 and concluded the answer is " * (SIZE // 50),
}
