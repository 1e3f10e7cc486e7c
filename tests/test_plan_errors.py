"""A planner's malformed call is a PlanError naming the method, the call and the field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import debategraph as dg
from debategraph import Method
from debategraph.methods import call
from debategraph.nodes.plan import PlanError
from debategraph.prompts import du

ARITH = "What is the result of 3+4*5+6-7*2?"


def planning(change: Callable[[dict[str, Any]], object]) -> Method[Any]:
    def plan(view: Any) -> object:
        return None if view.phase else [change(dict(call(view, "a1", template="initial")))]

    return Method(name="sloppy", description="", prompts=du.PROMPTS, plan=plan)


def without(field: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda c: {k: v for k, v in c.items() if k != field}


def message(change: Callable[[dict[str, Any]], object]) -> str:
    with pytest.raises(PlanError) as info:
        dg.run(ARITH, method=planning(change), agents=2, rounds=0)
    return str(info.value)


@pytest.mark.parametrize(
    "field", ["speaker", "kind", "round", "reads", "template", "vars", "history"]
)
def test_a_missing_field_is_named_with_the_call(field: str) -> None:
    assert message(without(field)) == (
        f"sloppy: call 'r0:a1' has no field {field!r}; build calls with "
        "debategraph.methods.call(view, ...)"
    )


def test_a_call_without_an_id_is_named_by_its_place_and_a_misspelling_is_suggested() -> None:
    text = message(without("id"))
    assert text.startswith("sloppy: call 0 of the phase ({'kind': 'answer', 'speaker': 'a1',")
    assert text.endswith("has no field 'id'; build calls with debategraph.methods.call(view, ...)")
    typo = message(lambda c: {**without("template")(c), "tempalte": "initial"})
    assert "call 'r0:a1' has no field 'template' (is 'tempalte' a misspelling?)" in typo


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("reads", "r0:a2", "a list of turn ids"),
        ("reads", None, "a list of turn ids"),
        ("reads", [1, 2], "a list of turn ids"),
        ("round", "0", "an integer"),
        ("round", True, "an integer"),
        ("speaker", ["a1"], "a string"),
        ("template", 1, "a string"),
        ("vars", [], "a mapping"),
        ("history", "yes", "true or false"),
    ],
)
def test_a_field_of_the_wrong_type_is_named_with_its_value(
    field: str, value: object, words: str
) -> None:
    assert message(lambda c: {**c, field: value}) == (
        f"sloppy: call 'r0:a1' has {field}={value!r}, which must be {words}"
    )


def test_an_id_that_is_not_a_string_and_a_call_that_is_not_a_record() -> None:
    assert "has id=3, which must be a string" in message(lambda c: {**c, "id": 3})
    assert message(lambda c: "r0:a1") == (
        "sloppy: call 0 of the phase is a str ('r0:a1'), not a call record: build calls with "
        "debategraph.methods.call(view, ...)"
    )


def test_a_planner_returning_a_string_is_refused_as_a_whole() -> None:
    method = Method(name="sloppy", description="", prompts=du.PROMPTS, plan=lambda v: "r0:a1")
    with pytest.raises(PlanError, match="returns a Phase, a list of calls or None, got 'r0:a1'"):
        dg.run(ARITH, method=method, agents=1, rounds=0)
