r"""Literal replies to every built-in prompt that asks for an answer format (issue 43).

Each built-in method's templates are rendered for each task kind; a template whose text holds
the task's answer format (``\boxed{answer}``, a letter in parentheses, an ``Answer:`` line,
and the confidence line where the method asks for one) is a prompt that asks for that format.
Its replies are read with the parser the method uses (``Method.parser``, else the task's
built-in parser) and with the confidence reader the call node uses, for the shapes a model
that obeys the prompt to the letter writes: the format on its own line, wrapped in Markdown,
written twice (the last one counts, also when it corrects the first), after a preamble, and
missing (an abstention, ``answer_source`` ``none``, or the documented "last number" fallback
of ``number`` and ``math`` tasks).

Judge, ranking, ballot and evaluation formats are tested in ``tests/test_literal_replies.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

import debategraph as dg
from debategraph import Agent
from debategraph.methods.contract import Method
from debategraph.methods.registry import get_method, list_methods
from debategraph.policies.answers import AnswerParser, parser_for
from debategraph.policies.confidence import read_confidence
from debategraph.policies.types import TaskKind
from debategraph.prompts import decision
from debategraph.prompts.common import CONFIDENCE_REQUEST, FORMATS, PromptInput
from debategraph.state.records import Turn
from debategraph.testing import ScriptedChatModel

TASKS: tuple[TaskKind, ...] = ("number", "choice", "math", "text")
CHOICES = ("3", "4", "5", "6")
QUESTION = "A farmer has 7 sheep and buys 11 more. How many sheep does he have?"


@dataclass(frozen=True)
class Shape:
    """A literal reply and what the method's parser must read from it."""

    name: str
    reply: str
    answer: str | None
    source: str


NUMBER_SHAPES = (
    Shape("own-line", "He has 7 + 11 = 18 sheep.\n\\boxed{18}", "18", "declared"),
    Shape("bold", "7 + 11 = 18.\n\n**Final answer: \\boxed{18}**", "18", "declared"),
    Shape("markdown-heading", "7 + 11 = 18\n\n### Final Answer\n$\\boxed{18}$", "18", "declared"),
    Shape("twice", "\\boxed{18}\n\nSo the answer is \\boxed{18}.", "18", "declared"),
    Shape("twice-corrected", "\\boxed{17}\n\nWait, 7 + 11 is 18.\n\\boxed{18}", "18", "declared"),
    Shape(
        "preamble",
        "Sure! Let me solve this step by step.\n\n7 + 11 = 18\n\n\\boxed{18}",
        "18",
        "declared",
    ),
    Shape("missing-format", "7 sheep and 11 more make 18 sheep in all.", "18", "fallback"),
    Shape("missing-everything", "I cannot tell from the question.", None, "none"),
)
CHOICE_SHAPES = (
    Shape(
        "own-line",
        "Counting the sheep gives 18, which is not listed; the closest is\n(B)",
        "B",
        "declared",
    ),
    Shape("bold", "The option that fits is **(B)**.", "B", "declared"),
    Shape("markdown-heading", "Reasoning ...\n\n## Final choice\n(B)", "B", "declared"),
    Shape("twice", "(B)\n\nMy final choice is (B).", "B", "declared"),
    Shape("twice-corrected", "(A)\n\nActually no, it is (B).", "B", "declared"),
    Shape("preamble", "Happy to help.\n\nOnly one option fits.\n\n(B)", "B", "declared"),
    Shape("missing-format", "The second option is the one that fits.", None, "none"),
)
MATH_SHAPES = (
    Shape(
        "own-line",
        "Dividing gives three quarters.\n\\boxed{\\frac{3}{4}}",
        "\\frac{3}{4}",
        "declared",
    ),
    Shape("bold", "**Final Answer:** $\\boxed{\\dfrac{3}{4}}$", "\\frac{3}{4}", "declared"),
    Shape(
        "twice",
        "$\\boxed{0.75}$\n\nThus the answer is $\\boxed{\\frac34}$.",
        "\\frac{3}{4}",
        "declared",
    ),
    Shape(
        "twice-corrected",
        "\\boxed{\\frac{2}{3}}\n\nCorrected answer: \\boxed{\\frac{3}{4}}",
        "\\frac{3}{4}",
        "declared",
    ),
    Shape(
        "preamble",
        "Certainly.\n\nWe simplify 6/8.\n\n\\boxed{\\frac{3}{4}}",
        "\\frac{3}{4}",
        "declared",
    ),
    Shape("missing-format", "So the ratio simplifies to 0.75", "\\frac{3}{4}", "fallback"),
    Shape("missing-everything", "The ratio cannot be simplified further.", None, "none"),
)
TEXT_SHAPES = (
    Shape("own-line", "The capital of France is Paris.\nAnswer: Paris", "paris", "declared"),
    Shape("bold", "**Answer:** Paris", "paris", "declared"),
    Shape("bold-whole-line", "**Answer: Paris**", "paris", "declared"),
    Shape("twice", "Answer: Paris\n\nAnswer: Paris", "paris", "declared"),
    Shape("twice-corrected", "Answer: Lyon\n\nRevised answer: Paris", "paris", "declared"),
    Shape("preamble", "Of course! Here is my reply.\n\nAnswer: Paris", "paris", "declared"),
    Shape("missing-format", "It is Paris, of course.", None, "none"),
)
SHAPES: dict[TaskKind, tuple[Shape, ...]] = {
    "number": NUMBER_SHAPES,
    "choice": CHOICE_SHAPES,
    "math": MATH_SHAPES,
    "text": TEXT_SHAPES,
}

CONFIDENCE_SHAPES = (
    ("own-line", "\\boxed{18}\nConfidence: 0.8", 0.8),
    ("bold", "\\boxed{18}\n**Confidence:** 0.8", 0.8),
    ("percent", "\\boxed{18}\n\nConfidence: 80%", 0.8),
    ("twice", "Confidence: 0.6\n\\boxed{18}\nConfidence: 0.8", 0.8),
    ("preamble", "Here is my answer.\n\n\\boxed{18}\n\nConfidence: 0.8", 0.8),
    ("missing", "\\boxed{18}", None),
)

# The council and mad-judge templates belong to a method whose calls carry extra variables
# (a council chair reads the members' standing); others render from the generic input.
EXTRA_VARS: dict[tuple[str, str], dict[str, Any]] = {
    ("council", "chair"): {"answers": 2, "standing": [(1, 1.5), (2, 2.5)]},
}


def _turn(agent: str, text: str) -> Turn:
    return Turn(
        id=f"r0:{agent}",
        agent=agent,
        round=0,
        kind="answer",
        text=text,
        prompt="",
        answer=None,
        answer_source="declared",
        confidence=0.7,
        reads=[],
        input_tokens=1,
        output_tokens=1,
        usage_estimated=False,
        latency_s=0.0,
        model="m",
        logprobs=None,
    )


def prompt_input(method: Method[Any], template: str, task: TaskKind) -> PromptInput:
    """What a round-1 call of ``method`` gives ``template`` (two peers' answers)."""
    return PromptInput(
        question=QUESTION,
        task=task,
        choices=CHOICES if task == "choice" else None,
        peers=[_turn("a2", "7 + 11 = 18.\n\\boxed{18}"), _turn("a3", "I get \\boxed{17}.")],
        agent="a1",
        round=1,
        confidence=method.confidence,
        options=method.default_options or method.options(),
        vars=EXTRA_VARS.get((method.name, template), {}),
    )


def answer_prompts() -> list[tuple[str, str, Callable[[PromptInput], str], Method[Any]]]:
    """Every built-in template, with the method it belongs to."""
    found = []
    for method in list_methods():
        for template, render in method.prompts.items():
            found.append((method.name, template, render, method))
    judge = get_method("du")  # the judge decision rule's call reads like any answer call
    found.append(("decision", "judge", decision.judge, judge))
    return found


def asked_format(render: Callable[[PromptInput], str], p: PromptInput) -> tuple[bool, bool]:
    """Whether the rendered prompt asks for the task's answer format, and for a confidence."""
    text = render(p)
    return FORMATS[p.task] in text, CONFIDENCE_REQUEST in text


def parser_of(method: Method[Any], task: TaskKind) -> AnswerParser:
    return method.parser or parser_for(task)


def _asks_or_fails(render: Callable[[PromptInput], str], p: PromptInput) -> bool:
    """Collect a template that asks for the format, or that fails to render (so it shows)."""
    try:
        return asked_format(render, p)[0]
    except Exception:  # the test of this template reports the error
        return True


ASKING = [
    pytest.param(name, template, render, method, task, id=f"{name}.{template}.{task}")
    for name, template, render, method in answer_prompts()
    for task in TASKS
    if _asks_or_fails(render, prompt_input(method, template, task))
]


@pytest.mark.parametrize(("name", "template", "render", "method", "task"), ASKING)
def test_literal_replies_to_an_answer_prompt_read_as_the_prompt_meant(
    name: str,
    template: str,
    render: Callable[[PromptInput], str],
    method: Method[Any],
    task: TaskKind,
) -> None:
    assert asked_format(render, prompt_input(method, template, task))[0]
    parse = parser_of(method, task)
    num_choices = len(CHOICES) if task == "choice" else None
    for shape in SHAPES[task]:
        got = parse(shape.reply, task, num_choices)
        assert (got.answer, got.source) == (shape.answer, shape.source), shape.name


def test_the_catalogue_names_which_prompt_asks_for_which_format() -> None:
    asking: dict[str, set[str]] = {}
    confidence: set[str] = set()
    for name, template, render, method in answer_prompts():
        for task in TASKS:
            asks, conf = asked_format(render, prompt_input(method, template, task))
            if asks:
                asking.setdefault(f"{name}.{template}", set()).add(task)
            if conf:
                confidence.add(f"{name}.{template}")
    # Every template that asks for a format asks for the same one for every task kind.
    assert all(tasks == set(TASKS) for tasks in asking.values())
    for known in (
        "du.initial",
        "du.debate",
        "du.reflect",
        "cortex.debate",
        "reconcile.debate",
        "svr.pairwise",
        "moa.aggregate",
        "self-refine.refine",
        "s2mad.intra",
        "groupdebate.inter",
        "mad.debate",
        "mallm-relay.relay",
        "council.initial",
        "decision.judge",
        "freemad-n.debate",
        "sid-et.debate",
    ):
        assert known in asking, known
    for plain in ("du-sum.summary", "madm2-s.evaluate", "self-refine.feedback", "council.rank"):
        assert plain not in asking, plain
    assert {"cortex.initial", "cortex.debate", "cortex.reflect"} <= confidence
    assert {"reconcile.initial", "reconcile.debate", "reconcile.reflect"} <= confidence
    assert "du.debate" not in confidence
    assert len(asking) >= 80


CONFIDENCE_PROMPTS = [
    pytest.param(name, template, render, method, id=f"{name}.{template}")
    for name, template, render, method in answer_prompts()
    if name in ("cortex", "reconcile")
]


@pytest.mark.parametrize(("name", "template", "render", "method"), CONFIDENCE_PROMPTS)
def test_confidence_prompts_read_the_last_confidence_line_and_the_answer_apart(
    name: str, template: str, render: Callable[[PromptInput], str], method: Method[Any]
) -> None:
    assert asked_format(render, prompt_input(method, template, "number")) == (True, True)
    parse = parser_of(method, "number")
    for shape, reply, expected in CONFIDENCE_SHAPES:
        assert parse(reply, "number", None).answer == "18", shape
        assert read_confidence(reply).value == expected, shape


def test_svr_asks_the_first_answer_for_a_confidence_only_with_the_confidence_prior() -> None:
    svr = get_method("svr")
    plain = prompt_input(svr, "initial", "number")
    prior = PromptInput(
        question=QUESTION, options=svr.options(prior="confidence"), agent="a1", round=0
    )
    assert asked_format(svr.prompts["initial"], plain) == (True, False)
    assert asked_format(svr.prompts["initial"], prior) == (True, True)


def _run(method: str, reply: str, task: TaskKind, **kwargs: Any) -> dg.DebateResult:
    agents = [Agent(f"a{i}", ScriptedChatModel(replies=[reply])) for i in (1, 2, 3)]
    choices: Sequence[str] | None = CHOICES if task == "choice" else None
    return dg.run(QUESTION, method=method, agents=agents, task=task, choices=choices, **kwargs)


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("method", ["du", "mad", "mallm-relay"])
def test_a_debate_of_literal_repliers_records_each_reading_and_its_source(
    method: str, task: TaskKind
) -> None:
    for shape in SHAPES[task]:
        result = _run(method, shape.reply, task, rounds=1)
        answers = {(t["answer"], t["answer_source"]) for t in result.turns if t["kind"] == "answer"}
        assert answers == {(shape.answer, shape.source)}, shape.name
        assert result.answer == shape.answer, shape.name


@pytest.mark.parametrize("method", ["cortex", "reconcile"])
def test_a_confidence_debate_records_the_literal_confidence(method: str) -> None:
    for shape, reply, expected in CONFIDENCE_SHAPES:
        result = _run(method, reply, "number", rounds=1)
        turns = [t for t in result.turns if t["kind"] == "answer"]
        assert {t["answer"] for t in turns} == {"18"}, shape
        assert {t["confidence"] for t in turns} == {expected}, shape
