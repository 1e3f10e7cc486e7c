"""Copied peer blocks, quotations, and who a value or statement belongs to."""

from __future__ import annotations

import pytest

from debategraph.policies.attribution import (
    is_adopted,
    is_peer_value,
    statement_owner,
)
from debategraph.policies.numbers import last_number
from debategraph.policies.peer_text import BLOCK_LIMIT, in_peer_block, quotation_start

P = pytest.param


def at(text: str, marker: str) -> int:
    """The position of the only occurrence of ``marker`` in ``text``."""
    assert text.count(marker) == 1, marker
    return text.index(marker)


FENCED = "Mine is 15.\n\nSolution from a2:\n```\nThe answer is 99.\n\nStill a2: 98.\n```\nBack: 15."


@pytest.mark.parametrize(
    ("marker", "inside"),
    [
        P("Mine", False, id="before-the-label"),
        P("Solution", False, id="the-label-line"),
        P("The answer is 99", True, id="first-line-of-the-fence"),
        P("Still a2", True, id="a-blank-line-inside-the-fence-does-not-end-it"),
        P("Back", False, id="after-the-closing-fence"),
    ],
)
def test_a_fenced_block_runs_to_its_closing_fence(marker: str, inside: bool) -> None:
    assert in_peer_block(FENCED, at(FENCED, marker)) is inside


UNFENCED = (
    "### Agent 2's solution\n\nThe answer is 99.\nIt adds 3.\n\nMy view: 15.\n"
    "Answer from another agent:\nThe answer is 98.\nMy answer: 15\nAgent 3:\nAnswer: 97"
)


@pytest.mark.parametrize(
    ("marker", "inside"),
    [
        P("The answer is 99", True, id="first-line-after-blank-lines"),
        P("It adds", True, id="second-line"),
        P("My view", False, id="after-a-blank-line"),
        P("The answer is 98", True, id="cortex-label"),
        P("My answer", False, id="a-speaker-label-ends-the-block"),
        P("Answer: 97", True, id="roster-label"),
    ],
)
def test_an_unfenced_block_ends_at_a_blank_line_or_the_next_label(
    marker: str, inside: bool
) -> None:
    assert in_peer_block(UNFENCED, at(UNFENCED, marker)) is inside


@pytest.mark.parametrize(
    "label",
    ["Solution from a2:", "**Solution from another agent:**", "> Response of agent 3:", "a1:",
     "## Agent B", "Summary of the discussion:", "The other agents' answers:",
     "Here is a solution from another agent:", "The other agents' latest solutions:"],
)  # fmt: skip
def test_peer_labels(label: str) -> None:
    text = f"{label}\nAnswer: 9"
    assert in_peer_block(text, at(text, "Answer"))


@pytest.mark.parametrize(
    "label",
    ["Solution:", "Solution from me:", "Answer:", "Agent 2: the answer is 9", "The others agree:",
     "Your own latest answer:", "Agent 2 is wrong:", "I checked the solution from a2:"],
)  # fmt: skip
def test_not_peer_labels(label: str) -> None:
    text = f"{label}\nAnswer: 9"
    assert not in_peer_block(text, at(text, "Answer: 9"))


def test_a_label_further_back_than_the_limit_is_not_read() -> None:
    text = "Solution from a2:\n" + "x" * BLOCK_LIMIT + " Answer: 9"
    assert not in_peer_block(text, at(text, "Answer"))
    assert in_peer_block(text[: 18 + 100] + " Answer: 9", 18 + 101)


@pytest.mark.parametrize(
    ("text", "marker", "opened"),
    [
        P('a2 says "the answer is 99"', "the", True, id="straight"),
        P("a2 says “the answer is 99”", "the", True, id="curly"),
        P('"Paris" is wrong; the answer is 9', "the", False, id="closed-before"),
        P('The TV is 32" wide; the answer is 9', "the", False, id="inch-mark"),
        P('{"confidence": 0.9}', "confidence", False, id="json-key"),
        P('a2: "x"\nthe answer is 9', "the", False, id="other-line"),
    ],
)
def test_quotations(text: str, marker: str, opened: bool) -> None:
    assert (quotation_start(text, at(text, marker)) >= 0) is opened


@pytest.mark.parametrize(
    ("text", "marker", "owner"),
    [
        P("Agent 2 says the answer is 12.", "the", "peer", id="reported"),
        P("Agent 2 is wrong: the answer is 40.", "the", "speaker", id="judged-head"),
        P("Agent 2: the answer is 42.", "the", "peer", id="roster-head"),
        P("If a1 were right, the answer would be 12.", "the", "hypothetical", id="counterfactual"),
        P("If you add them, the answer is 12.", "the answer", "speaker", id="generic-you"),
        P('a1 wrote "the answer is 12".', "the", "reproduced", id="quoted"),
        P('I conclude: "the answer is 12".', "the", "speaker", id="self-quoted"),
        P("Solution from a2:\nThe answer is 12.", "The", "reproduced", id="copied-block"),
        P("Unlike the other agents' answer, the answer is 40.", "the answer", "speaker",
          id="unlike"),
        P("Agent 2 agrees with Agent 3 that the answer is 12.", "the", "peer",
          id="peer-agrees-with-peer"),
        P("After reading the other agents' solutions, the answer is 12.", "the answer",
          "speaker", id="report-before-the-last-comma"),
        P("According to Agent 1, the answer is 11.", "the", "peer", id="according-to"),
        P("In Agent 2's view, the answer is 12.", "the answer", "peer", id="in-peer-view"),
    ],
)  # fmt: skip
def test_statement_owner(text: str, marker: str, owner: str) -> None:
    assert statement_owner(text, at(text, marker)) == owner


@pytest.mark.parametrize(
    ("text", "adopted"),
    [
        P("Agent 2 says the answer is 12, and I agree.", True, id="and-i-agree"),
        P("Agent 2 says the answer is 12, which is correct.", True, id="which-is-correct"),
        P("Agent 2 says the answer is 12. I agree.", True, id="bare-next-sentence"),
        P("Agent 2 says the answer is 12. I agree with it.", True, id="bare-with-it"),
        P("Agent 2 says the answer is 12, and I disagree.", False, id="disagree"),
        P("Agent 2 says the answer is 12. I do not agree.", False, id="negated"),
        P("Agent 2 says the answer is 12, which is correct only if", False, id="only-if"),
        P("Agent 2 says the answer is 12; I agree with Agent 3.", False, id="other-sentence"),
        P("Agent 2 says the answer is 12, and I agree with Agent 3", False, id="someone-else"),
        P("Agent 2 says the answer is 12. I agree that 14 fits.", False, id="not-bare"),
        P("Agent 2 says the answer is 12, which matches mine.", True, id="matches-mine"),
        P("Agent 2 says the answer is 12, as I found too.", True, id="as-i-found"),
    ],
)
def test_is_adopted(text: str, adopted: bool) -> None:
    assert is_adopted(text, at(text, "the answer is") + len("the answer is")) is adopted


@pytest.mark.parametrize(
    ("text", "marker", "peer"),
    [
        P("Agent 2 got 42.", "42", True, id="reported"),
        P("Agent 2 is wrong.", "2", True, id="part-of-a-name"),
        P("Agent 2's 42 is off.", "42", True, id="possessive"),
        P("- a1: 18", "18", True, id="roster-line"),
        P("The other agents' answers (22 and 23) fail.", "23", True, id="answers-noun"),
        P("the solution that says 30 fails", "30", True, id="relative"),
        P("Agent 2 got 20, but I get 18.", "18", False, id="speaker-turns"),
        P("She gets 9 * 2 = 18 dollars.", "18", False, id="word-problem-pronoun"),
        P("They get 30 cards.", "30", False, id="word-problem-they"),
        P("Add the other baked goods: 280 feet.", "280", False, id="other-is-not-a-peer"),
        P("Unlike the others, 40.", "40", False, id="unlike"),
        P("The other agents got 18, 20 and 22.", "20", True, id="rest-of-a-reported-list"),
        P(
            "After reading the other agents' solutions, the total is 12",
            "12",
            False,
            id="report-before-the-last-comma",
        ),
    ],
)
def test_is_peer_value(text: str, marker: str, peer: bool) -> None:
    assert is_peer_value(text, at(text, marker)) is peer


def test_last_number_skips_and_examines_a_bounded_number_of_values() -> None:
    assert last_number("I get 18. Agent 2 got 20.", skip=is_peer_value) == ("18", True)
    assert last_number("Agent 2 got 20.", skip=is_peer_value) == (None, False)
    assert last_number("Agent 2 got 20.") == ("20", True)
    # Each "Agent 2 got 20." holds two peer values (the name's 2 and the 20).
    assert last_number("I get 18. " + "Agent 2 got 20. " * 31, skip=is_peer_value) == ("18", True)
    assert last_number("I get 18. " + "Agent 2 got 20. " * 32, skip=is_peer_value) == (None, False)
    long_tail = "I get 18. " + "x" * 5000 + " Agent 2 got 20."
    assert last_number(long_tail, skip=is_peer_value) == ("18", True)
