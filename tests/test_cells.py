"""Report table cells: numbers as the tables show them, a dash where there is none."""

from __future__ import annotations

from debategraph.eval.report.cells import MISSING, number_cell


def test_a_number_is_scaled_then_formatted():
    assert number_cell(0.725, ".1f", 100) == "72.5"
    assert number_cell(-0.05, "+.1f", 100) == "-5.0"
    assert number_cell(1234567, ",") == "1,234,567"  # a count stays an integer
    assert number_cell(0.123456, ".5f") == "0.12346"


def test_none_and_nan_are_a_dash():
    assert number_cell(None, ".1f", 100) == MISSING == "—"
    assert number_cell(float("nan"), ",") == "—"
