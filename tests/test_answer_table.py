r"""Adversarial answer-extraction table: (response, task, expected canonical answer).

Every string here was written for this project. ``None`` is an abstention; where a form is
ambiguous, the case id says why no value is taken. Choice cases use four options unless the
id says otherwise (``n=10`` ...).

The debate replies (peers' answers quoted, reported, criticised, listed or copied around the
speaker's own declaration) are a fixture table of their own,
``tests/fixtures/answers/debate_replies.txt`` (see :mod:`tests.debate_table`); each gives an
answer and a source.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from debategraph.policies.answers import extract_answer, parse_answer
from tests.debate_table import HELDOUT, TABLE, Case, load_cases

P = pytest.param

NUMBER_CASES = [
    # --- debate rounds quoting peers
    P(r"Agent 2's answer of 42 is wrong; my final answer is \boxed{40}", "40", id="peer-42-own-40"),
    P("Agent 1's answer is 12. I disagree: the answer is 15.", "15", id="peer-possessive"),
    P("The other agents answered 7 and 9, but my answer is 8.", "8", id="peers-answered"),
    P("Both other answers (12 and 14) seem off. Final answer: 13", "13", id="answers-plural"),
    P(r"They think the answer is 30, and I agree with them. \boxed{30}", "30", id="agree-boxed"),
    P(r"The answer choices are 1, 2 and 3. I computed \boxed{2}.", "2", id="answer-choices"),
    P(r"I answered 5 last round. Now: \boxed{6}", "6", id="answered-past"),
    P(r"Agent 2 got 42, but my answer is \boxed{40}.", "40", id="peer-got"),
    P("Answer: 40 (Agent 2 said 42)", "40", id="label-then-peer-remark"),
    P("My answer is 40, unlike Agent 2's answer of 42.", "40", id="unlike-peer"),
    P("Unlike the others, I think the answer is 9.", "9", id="unlike-others-i-think"),
    P(r"According to Agent 1, the answer is 11. I get \boxed{12}.", "12", id="according-to"),
    P("Agent 2: the answer is 42\nAgent 3: the answer is 40\nMy answer: 41", "41", id="roster"),
    P("The other agents are wrong, the answer is 40.", "40", id="others-wrong-own"),
    P("Both agents got 36, so the answer is 36.", "36", id="peers-so-own"),
    P("Agent 3 says the answer is 100, but the answer is 90.", "90", id="peer-but-own"),
    P(r"I get \boxed{40}, unlike Agent 2's \boxed{42}.", "40", id="peer-box-last"),
    P("> Answer: 42\nThat quoted line is wrong; I get \\boxed{41}.", "41", id="quote-line"),
    P("The answer is 7.\nWait, I recheck: the final answer is 9.", "9", id="revised"),
    P(r"First \boxed{10}; after rechecking, \boxed{12}.", "12", id="two-boxes-revised"),
    P(
        "If the answer is 10, the total is 20. Checking again, the answer is 12.",
        "12",
        id="hypothetical-if",
    ),
    P("The answer is not 5; the answer is 6.", "6", id="negation"),
    P("The answer isn't 5. My final answer is 6.", "6", id="negation-contracted"),
    # --- formatting around the value
    P("**Final Answer:** 1,250", "1250", id="bold-label"),
    P("Final answer: **$1,250.00**.", "1250", id="bold-currency"),
    P("The answer is **42**.", "42", id="bold-value"),
    P("The answer is $42$.", "42", id="inline-math"),
    P(r"The answer is \(42\).", "42", id="paren-math"),
    P(r"The final answer is $\boxed{42}$", "42", id="boxed-in-math"),
    P("Final answer\n\n42", "42", id="heading-next-line"),
    P("ANSWER: 77", "77", id="upper-label"),
    P("She sells 9 eggs at $2 each, so she earns $18. Answer: 18", "18", id="inline-label"),
    P("That leaves 5 apples. **Answer:** 5", "5", id="inline-bold-label"),
    P("answer: 77", "77", id="lower-label"),
    P("The correct answer is 64.", "64", id="correct-answer"),
    P("Our answer would be 64.", "64", id="would-be"),
    P("The answer is: 64!", "64", id="exclamation"),
    P(r"\boxed{5}" + "\nConfidence: 0.9", "5", id="boxed-then-confidence"),
    P("The answer is 18\nConfidence: 0.95", "18", id="phrase-then-confidence"),
    P(r"\boxed{\boxed{7}}", "7", id="nested-boxed"),
    # --- separators, decimals, fractions
    P("The final answer is 1{,}250.", "1250", id="latex-comma-group"),
    P(r"The answer is 1\,250", "1250", id="latex-thin-space"),
    P("The answer is 1\u2009250", "1250", id="unicode-thin-space"),
    P("The answer is 10,000,000.", "10000000", id="millions"),
    P("The answer is .5", "0.5", id="leading-dot"),
    P("The answer is -.25", "-0.25", id="negative-leading-dot"),
    P("So the answer is 0.50", "0.5", id="trailing-zero"),
    P("Answer: 18.00", "18", id="integral-decimal"),
    P("Answer: 007", "7", id="leading-zeros"),
    P("Answer: 1/3", "0.3333333333", id="plain-fraction"),
    P("The answer is 12 / 4", "3", id="spaced-fraction"),
    P(r"\boxed{\frac{1}{2}}", "0.5", id="frac"),
    P(r"\boxed{\dfrac{3}{4}}", "0.75", id="dfrac"),
    P(r"\boxed{\tfrac{5}{2}}", "2.5", id="tfrac"),
    P(r"\boxed{\frac12}", "0.5", id="frac-short"),
    P(r"\boxed{-\frac{1}{4}}", "-0.25", id="negative-frac"),
    P(r"\boxed{\frac{1}{\sqrt{4}}}", "0.5", id="frac-rational-root"),
    P(r"\boxed{\sqrt{0.25}}", "0.5", id="rational-root-of-decimal"),
    P(r"\boxed{-\sqrt9}", "-3", id="negative-short-root"),
    P(r"\boxed{\sqrt{2}}", None, id="ambiguous-irrational-root"),
    P(r"\boxed{\frac{\sqrt{3}}{2}}", None, id="ambiguous-irrational-root-fraction"),
    P(r"\boxed{2\sqrt{4}}", None, id="ambiguous-coefficient-root"),
    P(r"\boxed{\frac{-3}{2}}", "-1.5", id="frac-negative-numerator"),
    # --- scientific notation and powers
    P("The answer is 1.5e3", "1500", id="e-notation"),
    P("Answer: 1e-3", "0.001", id="e-negative"),
    P("The answer is 10^6", "1000000", id="power-of-ten"),
    P("The answer is 10^{-3}", "0.001", id="power-braced-negative"),
    P(r"\boxed{2.5 \times 10^3}", "2500", id="times-ten-power"),
    P("Answer: 3 x 10^4 km", "30000", id="x-ten-power"),
    P(r"The answer is 2.5 \cdot 10^{2}", "250", id="cdot-ten-power"),
    P("The answer is 2^{10}.", "1024", id="power-of-two"),
    P("Answer: 1.5 million", "1500000", id="million"),
    # --- percent, currency, units, signs
    P("Answer: 45%", "45", id="percent"),
    P(r"Answer: 12.5\%", "12.5", id="latex-percent"),
    P("The answer is 30 percent.", "30", id="percent-word"),
    P("Answer: €12", "12", id="euro"),
    P("Answer: £7.50", "7.5", id="pound"),
    P(r"\boxed{\$18}", "18", id="escaped-dollar"),
    P(r"\boxed{18 \text{ dollars}}", "18", id="text-unit"),
    P("The answer is 12 cm.", "12", id="unit"),
    P("The answer is 60 km/h.", "60", id="rate-unit"),
    P("Answer: −7", "-7", id="unicode-minus"),
    P("Answer: -$5", "-5", id="minus-dollar"),
    P("Answer: $-5", "-5", id="dollar-minus"),
    P("Answer: -0", "0", id="negative-zero"),
    P("The answer is x = 5.", "5", id="assignment"),
    P(r"\boxed{x=5}", "5", id="boxed-assignment"),
    P("The answer is 100 - 25 = 75.", "75", id="worked-equation"),
    P("The answer is 100 - 25, i.e. 75.", "75", id="restated-ie"),
    P("The answer is 2/3 of 9, which is 6.", "6", id="restated-which-is"),
    P("The answer is 6, which is 2/3 of 9.", "6", id="value-then-remark"),
    P("The answer is half of 12.", None, id="ambiguous-of-unevaluated"),
    P("The answer is forty-two.", "42", id="number-words"),
    P("The answer is twelve.", "12", id="number-word"),
    P("The answer is one of the two totals, namely 7.", "7", id="one-of-is-not-a-number"),
    P("The answer is approximately 3.14", "3.14", id="approximately"),
    # --- ambiguous forms abstain
    P("The answer is 1 250", None, id="ambiguous-space-group"),
    P("Answer: 1,25", None, id="ambiguous-decimal-comma"),
    P("Answer: 1.234,5", None, id="ambiguous-european"),
    P("The answer is 100 - 25.", None, id="ambiguous-unevaluated"),
    P("The answer is 5-7 apples.", None, id="ambiguous-range-dash"),
    P("The answer is between 5 and 7.", None, id="ambiguous-range-and"),
    P("The answer is 5 to 7.", None, id="ambiguous-range-to"),
    P("The answer is 3:45.", None, id="ambiguous-time"),
    P("The train leaves at 3:45.", None, id="ambiguous-time-fallback"),
    P("The answer is 3/4/2020", None, id="ambiguous-date"),
    P("The answer is 3 1/2 cups.", "3.5", id="mixed-number"),
    P(r"\boxed{2\frac{1}{2}}", "2.5", id="latex-mixed-number"),
    P("The answer is 3 3/2 cups.", None, id="ambiguous-improper-mixed-number"),
    P("Answer: 2 1/2/2020", None, id="ambiguous-date-after-whole"),
    P("The answer is 3, 4.", None, id="ambiguous-list"),
    P("The answer is 5 or 6.", None, id="ambiguous-or"),
    P(r"The answer is 5 \pm 2", None, id="ambiguous-plus-minus"),
    P(r"\boxed{3} and \boxed{5}", None, id="ambiguous-two-boxes"),
    P(r"\boxed{2, 3}", None, id="ambiguous-boxed-list"),
    # --- fallback (no declaration): last number, confidences excluded
    P("We need 100 - 25", "25", id="fallback-binary-minus"),
    P("We need 100 -25", "25", id="fallback-binary-minus-attached"),
    P("The result is -3.", "-3", id="fallback-sign"),
    P("I computed 3 + 4 = 7 and then 7 * 2 = 14", "14", id="fallback-last"),
    P("I get 18. Confidence: 0.9", "18", id="fallback-not-confidence"),
    P("I am 90% confident it is 42", "42", id="fallback-not-percent-confident"),
    P("The answers are 3 and 4.", "4", id="fallback-answers-plural"),
    P("Agent 2's final answer is 42.", None, id="fallback-peer-only-abstains"),
    P("Agent 2 is wrong; the total is 40.", "40", id="fallback-own-not-peer-name"),
    P("#### 18", "18", id="fallback-gsm8k-marks"),
    P("Nothing to see here.", None, id="no-number"),
]

CHOICE_CASES = [
    P("The other answers were (B) and (C). I choose (A).", 4, "A", id="peers-then-choose"),
    P("Agent 2 chose (B), but I pick (D).", 4, "D", id="peer-chose-i-pick"),
    P(
        "Agent 1 picked (A). Agent 2 picked (B). I agree with Agent 2: (B).",
        4,
        "B",
        id="agree-colon",
    ),
    P("The answer is (B). Agent 3 chose (C).", 4, "B", id="own-then-peer"),
    P("I think (A) is tempting, but the correct answer is (C).", 4, "C", id="tempting"),
    P(
        "Answer choices: (A) 1 (B) 2 (C) 3 (D) 4. My final choice is (C).",
        4,
        "C",
        id="answer-choices-list",
    ),
    P(
        "Answer choices (A) through (D) were considered; my final answer is (B).",
        4,
        "B",
        id="answer-choices-through",
    ),
    P("Answer: Option C", 4, "C", id="option-word"),
    P("(d)", 4, "D", id="lone-lowercase"),
    P("Answer: (c)", 4, "C", id="lowercase-paren"),
    P("Answer: d", 4, "D", id="lowercase-bare"),
    P("Answer: d.", 4, "D", id="lowercase-period"),
    P("The answer is **B**.", 4, "B", id="bold"),
    P("The answer is B because the pressure rises.", 4, "B", id="because"),
    P("The answer is A because it is the only even option.", 4, "A", id="letter-a-because"),
    P("The answer is A.", 4, "A", id="letter-a"),
    P("The answer is A, since the others fail.", 4, "A", id="letter-a-comma"),
    P("The answer is I think B", 4, "B", id="pronoun-i-skipped"),
    P("(A) looks wrong; final answer: (B)", 4, "B", id="final-answer-colon"),
    P("My final choice is (B).\nConfidence: 0.8", 4, "B", id="choice-then-confidence"),
    P("I choose (B)\n\nConfidence: 90%", 4, "B", id="final-paren-confidence"),
    P("I'll go with C.", 4, "C", id="go-with"),
    P("We select option b.", 4, "B", id="select-lowercase"),
    P("Final answer: **(D)**", 4, "D", id="bold-paren"),
    P(r"\boxed{B}", 4, "B", id="boxed"),
    P(r"\boxed{\text{(C)}}", 4, "C", id="boxed-text"),
    P("After weighing everything:\nC", 4, "C", id="last-line-letter"),
    P("**Answer:** C) Paris", 4, "C", id="letter-with-option-text"),
    P("The capital is in the north.\nC) Paris", 4, "C", id="last-line-option"),
    P("Options A and B are wrong. So (C).", 4, "C", id="so-final-paren"),
    P("The answer is (a).", 4, "A", id="lowercase-a"),
    P("Answer:\n(B)", 4, "B", id="label-next-line"),
    P("Between (A) and (B), (B) is better. Final answer: (B)", 4, "B", id="between"),
    P("The answer is (B), not (C).", 4, "B", id="not-the-other"),
    P("**(C)**", 4, "C", id="bold-only"),
    P("The answer is option (c)", 4, "C", id="option-paren-lowercase"),
    P("Final Answer: B", 4, "B", id="final-answer-label"),
    P("The correct option is D.", 4, "D", id="correct-option"),
    P("Answer: I", 10, "I", id="letter-i-n10"),
    P("The answer is (E)", 5, "E", id="e-with-5"),
    P("The answer is (J).", 10, "J", id="j-with-10"),
    # ambiguous or undeclared
    P("The answer is (B) or (C).", 4, None, id="ambiguous-or-paren"),
    P("The answer is B or C.", 4, None, id="ambiguous-or-bare"),
    P("The answer is (E)", 4, None, id="invalid-letter-beyond-options"),
    P("Answer: I", 4, None, id="invalid-letter-i-n4"),
    P("Answer: A bicycle", 4, None, id="article-not-letter"),
    P("Answer: All of the above", 4, None, id="word-not-letter"),
    P("A) 3\nB) 4\nC) 5\nD) 6", 4, None, id="options-listed-not-chosen"),
    P("Hmm, I'd say B.", 4, None, id="bare-letter-in-prose-undeclared"),
    # fallback: last parenthesised letter
    P("Agent 1 picked (A).", 4, None, id="fallback-peer-only-abstains"),
    P("(B) seems right, and (C) is close.", 4, "C", id="fallback-last-paren"),
]

TEXT_CASES = [
    P("Answer: Yes, because penguins cannot fly.", "yes", id="yes-because"),
    P("Answer: No.", "no", id="no-period"),
    P("Answer: **Yes**", "yes", id="bold-yes"),
    P("Answer: True", "yes", id="true"),
    P("Answer: false", "no", id="false"),
    P("Answer: Yes!", "yes", id="yes-exclamation"),
    P("Answer: Yes \u2014 it does.", "yes", id="yes-dash"),
    P("The answer is yes.", "yes", id="phrase-yes"),
    P("Final answer: NO", "no", id="upper-no"),
    P("The final answer is: Yes, it is.", "yes", id="final-yes-it-is"),
    P("Agent 2's answer is no, but I think the answer is yes.", "yes", id="peer-no-own-yes"),
    P("If the answer is yes, more follows.\nAnswer: No", "no", id="hypothetical-then-label"),
    P("Answer: Yes\nConfidence: 0.9", "yes", id="yes-confidence"),
    P(r"\boxed{\text{yes}}", "yes", id="boxed-text-yes"),
    P("Answer: No one knows.", "no one knows", id="no-one-is-text"),
    P("Answer: The Eiffel Tower!", "eiffel tower", id="articles-punctuation"),
    P("Answer: x^2-1", "x^2-1", id="keeps-operators"),
    P("Answer: -3", "-3", id="keeps-sign"),
    P("Answer: (3,-2)", "(3,-2)", id="keeps-tuple"),
    P("Answer: Mount Everest.", "mount everest", id="trailing-period"),
    P('Answer: "Paris"', "paris", id="quotes"),
    P("Answer: an apple", "apple", id="article-an"),
    P("Answer: St. Louis", "st. louis", id="inner-period-kept"),
    P("My answer: New York City", "new york city", id="my-answer-colon"),
    P("Answer:   The   Great   Wall  ", "great wall", id="whitespace"),
    P("Answer: Yes/No", "yes/no", id="not-a-yes-no"),
    P("I think it is Paris", None, id="undeclared"),
    P("Answers: yes and no", None, id="answers-plural-not-declaration"),
    P("Agent 2 thinks the answer is yes.", None, id="peer-only-no-fallback"),
]

MATH_CASES = [
    P(r"\boxed{\dfrac{1}{2}}", r"\frac{1}{2}", id="dfrac"),
    P(r"\boxed{0.5}", r"\frac{1}{2}", id="decimal-as-fraction"),
    P(r"\boxed{1/2}", r"\frac{1}{2}", id="slash-fraction"),
    P(r"\boxed{\frac12}", r"\frac{1}{2}", id="frac-short"),
    P(r"\boxed{-3}", "-3", id="negative"),
    P(r"\boxed{−5}", "-5", id="unicode-minus"),
    P(r"\boxed{x^2+1}", "x^2+1", id="polynomial-plus"),
    P(r"\boxed{x^{2} - 1}", "x^2-1", id="polynomial-minus"),
    P(r"\boxed{(3,-2)}", "(3,-2)", id="point"),
    P(r"\boxed{\left( 3, \frac{\pi}{2} \right)}", r"(3,\frac{\pi}{2})", id="polar-point"),
    P(r"The answer is $\sqrt{2}$.", r"\sqrt{2}", id="phrase-inline-math"),
    P(r"\boxed{\sqrt2}", r"\sqrt{2}", id="sqrt-short"),
    P(r"\boxed{x = 5}", "5", id="assignment"),
    P(r"\boxed{y = 2x + 3}", "2x+3", id="line"),
    P(r"\boxed{1{,}000}", "1000", id="thousands"),
    P(r"\boxed{10\%}", "10", id="percent"),
    P(r"\boxed{90^\circ}", "90", id="degrees"),
    P(r"\boxed{5\text{ cm}}", "5", id="units"),
    P(r"\boxed{\text{Monday}}", "Monday", id="text-answer"),
    P(r"\boxed{[-2, 5)}", "[-2,5)", id="interval"),
    P(r"\boxed{x \le 3}", r"x\leq3", id="inequality"),
    P(r"\boxed{2\pi r}", r"2\pi r", id="command-space-kept"),
    P(r"\boxed{-\frac{3}{4}}", r"-\frac{3}{4}", id="negative-fraction"),
    P(r"\boxed{\frac{-3}{4}}", r"-\frac{3}{4}", id="negative-numerator"),
    P(r"Final answer: $\frac{\sqrt{3}}{2}$", r"\frac{\sqrt{3}}{2}", id="label-inline-math"),
    P(r"\boxed{3.14159}", "3.14159", id="long-decimal"),
    P(r"\boxed{0.25}", r"\frac{1}{4}", id="quarter"),
    P(r"\boxed{\{1, 2\}}", r"\{1,2\}", id="set"),
    P(r"\boxed{2\sqrt{3}}", r"2\sqrt{3}", id="surd"),
    P(r"\boxed{\infty}", r"\infty", id="infinity"),
    P(r"Agent 1 got \boxed{4}, but I get \boxed{-4}.", "-4", id="peer-box-then-own"),
    P(r"\boxed{x = -2 \text{ or } x = 3}", "-2,3", id="solutions-or"),
    P("The answer is x = -2 or x = 3.", "-2,3", id="phrase-solutions-or"),
    P(r"\boxed{3} and \boxed{5}", None, id="ambiguous-two-boxes"),
    P("The answer is below.", None, id="no-math-in-declaration"),
    P(r"\boxed{}", None, id="empty-box"),
    P("So x equals 7", "7", id="fallback-last-number"),
]


@pytest.mark.parametrize(("response", "expected"), NUMBER_CASES)
def test_number(response: str, expected: str | None) -> None:
    assert extract_answer(response, "number") == expected


@pytest.mark.parametrize(("response", "n", "expected"), CHOICE_CASES)
def test_choice(response: str, n: int, expected: str | None) -> None:
    assert extract_answer(response, "choice", n) == expected


@pytest.mark.parametrize(("response", "expected"), TEXT_CASES)
def test_text(response: str, expected: str | None) -> None:
    assert extract_answer(response, "text") == expected


@pytest.mark.parametrize(("response", "expected"), MATH_CASES)
def test_math(response: str, expected: str | None) -> None:
    assert extract_answer(response, "math") == expected


def test_table_size() -> None:
    # The issue asks for at least 150 adversarial strings across the four kinds.
    sizes = [len(NUMBER_CASES), len(CHOICE_CASES), len(TEXT_CASES), len(MATH_CASES)]
    assert sum(sizes) >= 150
    assert min(sizes) >= 25


@pytest.mark.parametrize(
    ("response", "task", "answer", "source"),
    [
        P(r"I get \boxed{40}.", "number", "40", "declared", id="declared"),
        P("Agent 3 says the answer is 100.", "number", None, "none", id="peer-only"),
        P("Agent 3 says 100; I get 90.", "number", "90", "fallback", id="own-fallback"),
        P("We need 100 - 25", "number", "25", "fallback", id="last-number"),
        P("The answer is 3:45.", "number", None, "none", id="ambiguous-declaration"),
        P("No numbers at all.", "number", None, "none", id="nothing"),
        P("Agent 1 picked (A).", "choice", None, "none", id="choice-peer-only"),
        P("Agent 1 picked (A); (C) fits.", "choice", "C", "fallback", id="choice-fallback"),
        P("I choose (D).", "choice", "D", "declared", id="choice-declared"),
        P("I think it is Paris", "text", None, "none", id="text-no-fallback"),
        P("So x equals 7", "math", "7", "fallback", id="math-fallback"),
    ],
)
def test_sources(response: str, task: str, answer: str | None, source: str) -> None:
    extraction = parse_answer(response, task, 4 if task == "choice" else None)  # type: ignore[arg-type]
    assert (extraction.answer, extraction.source) == (answer, source)


DEBATE_CASES = load_cases()


@pytest.mark.parametrize("case", DEBATE_CASES, ids=[case.id for case in DEBATE_CASES])
def test_debate_reply(case: Case) -> None:
    extraction = parse_answer(case.reply, case.task, case.options)
    assert (extraction.answer, extraction.source) == (case.answer, case.source)


def test_debate_table_size() -> None:
    # Issue 22: at least 150 debate replies, 40 with a peer's answer after the speaker's own
    # declaration, every task kind present.
    assert len(DEBATE_CASES) >= 150
    assert sum(case.after for case in DEBATE_CASES) >= 40
    kinds = {case.task: 0 for case in DEBATE_CASES}
    for case in DEBATE_CASES:
        kinds[case.task] += 1
    assert set(kinds) == {"number", "choice", "text", "math"}
    assert min(kinds.values()) >= 8
    assert all(case.reply for case in DEBATE_CASES)


def test_debate_table_loader_rejects_bad_headers(tmp_path: Path) -> None:
    table = tmp_path / "table.txt"
    table.write_text("--- ok | number | 1 | declared\nAnswer: 1\n--- bad | number | 1\nx\n")
    with pytest.raises(ValueError, match=r"table\.txt:3: not a case header"):
        load_cases(table)
    table.write_text("--- a | number | 1 | declared\nx\n--- a | number | - | none\ny\n")
    with pytest.raises(ValueError, match="repeated case ids"):
        load_cases(table)
    assert TABLE.is_file()


HELDOUT_CASES = load_cases(HELDOUT)


@pytest.mark.parametrize("case", HELDOUT_CASES, ids=[c.id for c in HELDOUT_CASES])
def test_heldout_reply_is_read_as_the_speaker_meant(case: Case) -> None:
    # Issue 31: the speaker declares its answer, then describes or quotes a peer's solution
    # reaching another answer, often with that solution's own closing "the answer is" line.
    extraction = parse_answer(case.reply, case.task, case.options)
    assert (extraction.answer, extraction.source) == (case.answer, case.source)


def test_heldout_table_shape() -> None:
    assert len(HELDOUT_CASES) >= 30
    assert all(case.after for case in HELDOUT_CASES)
    assert {case.task for case in HELDOUT_CASES} == {"number", "choice", "text", "math"}
    assert not {c.id for c in HELDOUT_CASES} & {c.id for c in DEBATE_CASES}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        P("Agent 2 is wrong:\n- 6 x 7 = 42 counts the tax twice\n- the answer is 40", "40",
          id="lead-in-judges-the-peer"),
        P("I checked Agent 2's steps:\n- 6 x 7 = 42\n- so the answer is 42", "42",
          id="lead-in-in-the-speakers-voice"),
        P("Agent 2 got 42, but the answer is 40.", "40", id="turn-then-own-phrase"),
        P("The answer is 40 according to my own count, not 42.", "40",
          id="according-to-the-speaker"),
        P("Agent 1 says 42. Agent 3 thinks that since the fee is fixed, 40 is right, and I "
          "agree: the answer is 40.", "40", id="frame-then-speaker-agrees"),
        P("I stand by my original answer of 40; Agent 2's 42 double counts.", "40",
          id="reaffirmed-earlier-answer"),
    ],
)  # fmt: skip
def test_the_speaker_keeps_what_it_declares_beside_peers(reply: str, expected: str) -> None:
    assert extract_answer(reply, "number") == expected
