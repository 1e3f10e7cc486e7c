import pytest

from debategraph.policies.answers import (
    canonical_number,
    extract_answer,
    extract_confidence,
    same_answer,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("18", "18"),
        ("$1,234.50.", "1234.5"),
        ("-7", "-7"),
        ("−7", "-7"),
        ("18.00", "18"),
        ("3/4", "0.75"),
        ("12 / 4", "3"),
        ("0.1", "0.1"),
        ("about 1,000,000 dollars", "1000000"),
        ("no digits", None),
        ("1/0", None),
    ],
)
def test_canonical_number(text, expected):
    assert canonical_number(text) == expected


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("So the total is \\boxed{42}.", "42"),
        ("First \\boxed{10}, but after checking, \\boxed{12}.", "12"),
        ("Answer: $1,250", "1250"),
        ("The answer is 7.\nWait, I recheck: the final answer is 9.", "9"),
        ("I computed 3 + 4 = 7 and then 7 * 2 = 14", "14"),
        ("\\boxed{x} and then the answer: 5", "5"),
        ("The result is -3.", "-3"),
        ("It costs 2.50.", "2.5"),
        ("Nothing to see here.", None),
        ("", None),
    ],
)
def test_extract_number_last_valid_declaration_wins(response, expected):
    assert extract_answer(response, "number") == expected


def test_declaration_beats_later_loose_number():
    # A declared answer wins over numbers that merely appear after it.
    assert extract_answer("Answer: 18\nConfidence: 0.9", "number") == "18"


@pytest.mark.parametrize(
    ("response", "n", "expected"),
    [
        ("I pick (C).", None, "C"),
        ("(A) looks wrong; final answer: (B)", None, "B"),
        ("Answer: d", None, "D"),
        ("The answer is (E)", 4, None),
        ("The answer is (E)", 5, "E"),
        ("no letter at all", 4, None),
        ("\\boxed{B}", 4, "B"),
    ],
)
def test_extract_choice(response, n, expected):
    assert extract_answer(response, "choice", n) == expected


def test_extract_text():
    assert extract_answer("Reasoning...\nAnswer: The Eiffel Tower!", "text") == "eiffel tower"
    assert extract_answer("I think it is Paris", "text") is None


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("Confidence: 0.8", 0.8),
        ("Confidence Score: 85%", 0.85),
        ("confidence level: 90", 0.9),
        ("Confidence: 0.2\n... Confidence: 0.7", 0.7),
        ("Confidence: 150", None),
        ("no confidence here", None),
    ],
)
def test_extract_confidence(response, expected):
    assert extract_confidence(response) == expected


def test_abstentions_never_agree():
    assert not same_answer(None, None)
    assert same_answer("3", "3")
    assert not same_answer("3", "4")


@pytest.mark.parametrize(
    "digits",
    [
        *("0", "7", "18", "007", "000", "1234567890123", "9" * 400, "9" * 401, "٣"),
        *("-15", "-0", "-007", "--5", "-", "- 15", "−15", "-" + "9" * 399, "-" + "9" * 400),
    ],
)
def test_plain_integer_shortcut_reads_as_the_rules_do(digits):
    from debategraph.policies.numbers import _read_span, read_declared_number

    assert read_declared_number(digits) == _read_span(digits)
    assert read_declared_number(f"\\boxed{{{digits}}}") == _read_span(f"\\boxed{{{digits}}}")
