"""Shortcuts in the parsers' pattern scans change no match.

First-letter lookaheads: a pattern such as ``(?=[tT])\\b(?:the|them)`` is only faster than
``\\b(?:the|them)``; at every position of a text both must match the same span or both fail.
A letter missing from a lookahead (or a case-folding variant such as ``ſ`` for ``s`` left out)
would lose matches. Label and phrase markers are scanned from the line of the first "answer"
on: none may start earlier.
"""

from __future__ import annotations

import re
from types import ModuleType

import pytest

from debategraph.policies import attribution, confidence, declarations, peer_text

_LOOKAHEAD_RE = re.compile(r"\(\?=\[[^\]]*+\]\)")
_FOLDS = {"s": "ſ", "k": "K", "i": "ıİ"}


def prefiltered(*modules: ModuleType) -> list[tuple[str, re.Pattern[str]]]:
    found = []
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and _LOOKAHEAD_RE.match(value.pattern):
                found.append((f"{module.__name__.rsplit('.', 1)[-1]}.{name}", value))
    return found


PATTERNS = prefiltered(attribution, confidence, declarations, peer_text)


def snippets(pattern: str) -> list[str]:
    """The words of ``pattern``, alone and three in a row (in the pattern's order), in
    several cases and foldings, in varied company."""
    words = re.findall(r"[A-Za-z]{2,}+", pattern)
    phrases = sorted(set(words)) + [" ".join(words[i : i + 3]) for i in range(len(words))]
    variants = []
    for phrase in phrases:
        variants += [phrase, phrase.lower(), phrase.capitalize(), phrase.upper()]
        variants += [fold + phrase[1:] for fold in _FOLDS.get(phrase[0].lower(), "")]
    company = ["", " ", "the ", "I ", "i'm ", "if ", "Agent 2's ", "**", "(B) ", "0.8 ", "x"]
    ends = [" is 42.", ": 0.9\n", " (C)", "", "\n", " = 7;", "'s", " 80% sure, ", " the "]
    return [company[i % len(company)] + v + ends[i % len(ends)] for i, v in enumerate(variants)]


def test_the_patterns_are_found():
    names = {name for name, _ in PATTERNS}
    assert {"attribution._PEER_RE", "attribution._REPORT_RE", "declarations._PHRASE_RE"} <= names


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[n for n, _ in PATTERNS])
def test_a_lookahead_changes_no_match(name, pattern):
    plain = re.compile(_LOOKAHEAD_RE.sub("", pattern.pattern, count=1), pattern.flags)
    matched = 0
    for text in snippets(pattern.pattern):
        for pos in range(len(text) + 1):
            fast, slow = pattern.match(text, pos), plain.match(text, pos)
            assert (fast and fast.span()) == (slow and slow.span()), (name, text, pos)
            matched += slow is not None
    assert matched, f"{name}: the snippets exercise no match"


ANSWER_PIECES = [
    "answer", "Answer", "ANSWER", "anſwer", "answers", "final", "Final", "the", "my", "our",
    "correct", "is", "would be", ":", "=", "**", "_", "#", "-", "*", " ", " ", "\t", "\n", "\n",
    ".", "!", ")", "(B)", "42", "Agent 2's", "so", "x", "the answer is ", "\nAnswer: ",
    ". Final answer = ", "my final answer:", "\n**Answer**", "Our ANſWER would be",
]  # fmt: skip


def test_no_label_or_phrase_marker_starts_before_the_first_answer_line():
    """``find_declarations`` scans label and phrase markers from that line on."""
    import random

    rng = random.Random(0)
    marked = 0
    for _ in range(3000):
        text = "".join(rng.choice(ANSWER_PIECES) for _ in range(rng.randint(1, 30)))
        line = declarations._answer_line_start(text)
        for pattern in (declarations._LABEL_RE, declarations._PHRASE_RE):
            starts = [m.start() for m in pattern.finditer(text)]
            assert all(line >= 0 and start >= line for start in starts), (text, line)
            marked += bool(starts)
    assert marked > 1000  # the texts hold markers often enough to mean something
