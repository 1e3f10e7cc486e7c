"""Self-reported confidences: reading them, counting unparsed ones, hiding them from peers."""

from __future__ import annotations

import pytest

from debategraph.policies.answers import extract_answer
from debategraph.policies.confidence import (
    blank_confidences,
    carries_confidence,
    extract_confidence,
    read_confidence,
    strip_confidence,
)
from debategraph.prompts import cortex

P = pytest.param


@pytest.mark.parametrize(
    ("response", "value"),
    [
        P("Confidence: 0.8", 0.8, id="label"),
        P("**Confidence:** 0.9", 0.9, id="bold-label"),
        P("Confidence Score: 85%", 0.85, id="percent"),
        P("confidence level: 90", 0.9, id="bare-percentage"),
        P("Confidence: 8/10", 0.8, id="fraction-of-ten"),
        P("Confidence: 4/5", 0.8, id="fraction"),
        P("Confidence: 9 out of 10", 0.9, id="out-of"),
        P("Confidence: .8", 0.8, id="leading-dot"),
        P("Confidence: 100%", 1.0, id="certain"),
        P("Confidence: 0", 0.0, id="zero"),
        P("Confidence = 0.65", 0.65, id="equals"),
        P("Confidence (0-1): 0.6", 0.6, id="scale-in-label"),
        P('{"answer": "B", "confidence_level": "0.85"}', 0.85, id="json-key"),
        P("Answer: 42. Confidence: 0.9.", 0.9, id="mid-line"),
        P("(Confidence: 0.75)", 0.75, id="parenthesised"),
        P("Confidence: 0.9 (90%)", 0.9, id="value-then-gloss"),
        P("My confidence is 0.95", 0.95, id="my-confidence-is"),
        P("my confidence level would be 80%", 0.8, id="my-confidence-would-be"),
        P("I answer with a confidence of 0.7", 0.7, id="with-a-confidence-of"),
        P("I am 90% confident", 0.9, id="i-am-confident"),
        P("I'm 85% sure this holds", 0.85, id="im-sure"),
        P("We are 0.8 certain", 0.8, id="we-are-certain"),
        P("I am about 9 out of 10 confident", 0.9, id="about-out-of"),
        P("Confidence score of 0.9", 0.9, id="noun-of"),
        P("The confidence is 0.75 for this one.", 0.75, id="noun-is"),
        P("Solution from a2:\nConfidence: 0.9\n\nConfidence: 0.6", 0.6, id="peer-block-then-own"),
        P("Confidence: 0.2\nOn reflection... Confidence: 0.7", 0.7, id="last-wins"),
        P("Agent 2's confidence: 0.9. Confidence: 0.4", 0.4, id="peer-then-own"),
    ],
)
def test_confidence_values(response: str, value: float) -> None:
    assert extract_confidence(response) == pytest.approx(value, abs=1e-12)
    assert read_confidence(response).stated


@pytest.mark.parametrize(
    "response",
    [
        P("Confidence: 150", id="over-100"),
        P("Confidence: 1.5", id="between-1-and-10"),
        P("Confidence: 8", id="eight-out-of-ten-or-percent"),
        P("Confidence: -0.2", id="negative"),
        P("Confidence: 12/10", id="fraction-over-one"),
        P("Confidence: 0,8", id="decimal-comma"),
        P("Confidence: high", id="word"),
        P("Confidence: 3/0", id="zero-denominator"),
    ],
)
def test_unparsed_confidences_are_counted(response: str) -> None:
    reading = read_confidence(response)
    assert reading.value is None
    assert reading.stated and reading.unparsed


@pytest.mark.parametrize(
    "response",
    [
        P("no confidence here", id="word-only"),
        P("Agent 2's confidence: 0.9", id="peer-possessive"),
        P("Their confidence is 0.9", id="peer-pronoun"),
        P("Agent 2 reported a confidence of 0.9", id="peer-reported"),
        P("Agent 2's confidence score of 0.9", id="peer-noun-of"),
        P("The confidence is low", id="noun-is-no-value"),
        P("Solution from a2:\n```\nConfidence: 0.9\n```", id="peer-block"),
        P("I am confident the answer is 4", id="no-value"),
        P("I am 5 years old", id="not-confidence"),
        P("", id="empty"),
    ],
)
def test_no_confidence_of_the_speaker(response: str) -> None:
    reading = read_confidence(response)
    assert (reading.value, reading.stated, reading.unparsed) == (None, False, False)


def test_strip_removes_every_line_that_carries_a_confidence() -> None:
    text = (
        "Reasoning line one.\n"
        "I am 90% confident it is 42.\n"
        "Answer: 42\n"
        "My confidence is 0.95\n"
        "Agent 2 was 80% sure.\n"
        "**Confidence:** high\n"
        '{"confidence_level": "0.8"}\n'
        "Done."
    )
    assert strip_confidence(text) == "Reasoning line one.\nAnswer: 42\nDone."
    assert extract_confidence(strip_confidence(text)) is None


def test_strip_keeps_lines_without_confidences() -> None:
    text = "  Make sure to check units.\nAnswer: 7\n"
    assert strip_confidence(text) == "Make sure to check units.\nAnswer: 7"
    assert not carries_confidence("Answer: 7")
    assert carries_confidence("  > Confidence: 0.3")
    assert carries_confidence("so I'm 70 percent sure")


def test_cortex_prompt_uses_the_shared_strip() -> None:
    assert cortex.strip_confidence is strip_confidence
    text = "Answer: (B)\nMy confidence is 0.95"
    assert cortex.strip_confidence(text) == "Answer: (B)"


def test_blank_confidences_keeps_offsets_and_numbers() -> None:
    text = "I get 18. Confidence: 0.9"
    blanked = blank_confidences(text)
    assert len(blanked) == len(text)
    assert blanked.rstrip() == "I get 18."
    assert extract_answer(text, "number") == "18"
    assert blank_confidences("nothing to blank") == "nothing to blank"
