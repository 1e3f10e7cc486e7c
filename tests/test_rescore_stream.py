"""report --decision and --sid-et-skip-rate read the rows pass by pass and hold none."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET

from debategraph.eval.analysis.rescore import rescore_all, rescored_rows, sid_et_arm
from debategraph.eval.log.row import Row, TurnFigures, row_dict
from tests.test_sid_et import recorded

FIELDS = ("method", "id", "answer", "correct", "input_tokens", "output_tokens", "calls")


def stored() -> list[dict[str, Any]]:
    rows = [recorded("p", -0.1, "15", "15"), recorded("q", -3.0, "9", "15"),
            recorded("r", -0.5, "7", "8", "8"), recorded("s", -2.0, "4", "4", "5")]  # fmt: skip
    svr = [dict(r, method="svr", correct=True, input_tokens=500, output_tokens=0) for r in rows]
    failed = {"method": "sid-et", "id": "t", "error": "APITimeoutError: no answer"}
    return [*rows, failed, *svr]


class Passes:
    """A results directory's rows, counting the passes made over them."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.count = 0

    def __call__(self) -> list[dict[str, Any]]:
        self.count += 1
        return self.rows


def fields(rows: list[Any]) -> list[tuple[Any, ...]]:
    return [tuple(row_dict(r).get(f) if isinstance(r, Row) else r.get(f) for f in FIELDS)
            for r in rows]  # fmt: skip


def test_sid_et_rates_read_the_rows_once_more_each_and_give_the_arms_rows():
    rows = stored()
    passes = Passes(rows)
    streamed = list(rescored_rows(passes, [], [0.5, "auto"]))
    held = rows + sid_et_arm(rows, 0.5) + sid_et_arm(rows, "auto")
    assert fields(streamed) == fields(held)
    assert passes.count == 3  # the rows, then one pass per skip rate
    skipped = next(r for r in streamed if r.method == "sid-et · skip 50%" and r.id == "r")
    assert (skipped.answer, skipped.calls, skipped.input_tokens) == ("7", 1, 60)
    assert all(isinstance(t, TurnFigures) for r in streamed for t in r.turns or ())
    assert all(r.decision is UNSET and r.method_state is UNSET for r in streamed)


def test_rules_read_the_rows_once_each_in_rule_order():
    rows = stored()
    passes = Passes(rows)
    streamed = list(rescored_rows(passes, ["majority", "freemad"], []))
    assert fields(streamed) == fields(rescore_all(rows, ["majority", "freemad"]))
    assert passes.count == 2
    assert [r.method for r in streamed[:2]] == ["sid-et [majority]"] * 2
