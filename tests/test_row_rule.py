"""No module reads a result row's field by its name as a string (issue 38, "one row").

Rows and turns are typed (``eval/log/row.py``): they are no mappings, so mypy rejects
``row["correct"]`` on a typed row. What mypy cannot see is a row handed around as its JSON
object (a ``dict``) and read by key; this test scans every module of the package but the
declaration for ``X["f"]``, ``X.get("f")`` and ``"f" in X`` where ``f`` is a field only a
result row carries.

A turn's fields are left out of the scan: the debate's own turns (``state/``, ``nodes/``,
the methods) are dicts with the same names, and a row's turns are typed. Of the row's other
fields, :data:`SHARED` are names other dicts of the package use as well. A read of a
row-only name from a dict that is no result row is allowed by (module, name) in
:data:`ALLOWED`, each with its reason.

Modules that take rows as mappings but read them through ``as_row`` (``eval/run/progress.py``,
whose markers and rows are the runner's in-process dicts) are no hit: they read no field by
key. ``policies/sid_et.py`` reads rows as mappings because ``policies/`` may import nothing
of ``eval/`` (the floors); its one hit is allowed below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import debategraph
from debategraph.eval.log.row import ROW_FIELDS, TURN_FIELDS

PACKAGE = Path(debategraph.__file__).parent
DECLARATION = "eval/log/row.py"

SHARED = frozenset(
    {
        "method", "seed", "dataset", "settings",  # run.json's settings and arms
        "task", "question", "choices", "reference",  # a dataset's items
        "rounds", "agents", "calls",  # debate settings; a debate result's usage totals
        "turns", "decision", "method_state", "cut_off",  # a debate's state and result
        "accepted", "budget", "gate",  # method state (svr's ledger, the gate's verdict)
        "error", "requests",  # ledger and spend notes, executors' messages
    }
)  # fmt: skip
"""Row fields whose names other dicts of the package use as well: not scanned."""

ROW_ONLY = ROW_FIELDS - TURN_FIELDS - SHARED
"""The fields only a result row carries: a string read of one is a read of a row."""

ALLOWED = {
    ("eval/analysis/pareto.py", "correct"): "a ParetoPoint (a TypedDict mypy checks)",
    ("eval/analysis/rescore.py", "cached_calls"): "usage_totals of the kept turns",
    ("eval/analysis/summary_stream.py", "ncomm"): "the arm's running sums",
    ("eval/analysis/summary_stream.py", "cached_calls"): "the arm's bill",
    ("eval/analysis/ledger_bill.py", "failed_requests"): "a ledger entry",
    ("eval/commands.py", "screen"): "a MethodSummary (TypedDict)",
    ("eval/report/bill_table.py", "cached_calls"): "a MethodSummary's bill",
    ("eval/report/html.py", "cached_calls"): "a DebateResult's usage totals",
    ("eval/report/plots.py", "tokens_by_kind"): "a MethodSummary (TypedDict)",
    ("eval/report/tables.py", "answer_sources"): "a MethodSummary (TypedDict)",
    ("eval/report/tables.py", "screen"): "a MethodSummary (TypedDict)",
    ("eval/report/tables.py", "failed_requests"): "a MethodSummary (TypedDict)",
    ("eval/log/rows.py", "cached_calls"): "a DebateResult's usage totals, made into a row",
    ("policies/declarations.py", "correct"): "a word looked for in a reply's text",
    ("policies/sid_et.py", "correct"): "rows as mappings: policies/ imports nothing of eval/",
    ("transcript.py", "cached_calls"): "a DebateResult's usage totals",
}
"""(module, field) reads of a row-only name from a dict that is no result row, and why."""


def string_reads(source: str, names: frozenset[str]) -> list[tuple[str, int]]:
    """Each ``X["f"]``, ``X.get("f")`` and ``"f" in X`` of ``source`` with ``f`` in ``names``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key: object = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key = node.slice.value if isinstance(node.slice, ast.Constant) else None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            first = node.args[0] if node.args else None
            if node.func.attr == "get" and isinstance(first, ast.Constant):
                key = first.value
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant):
            tests_membership = any(isinstance(op, ast.In | ast.NotIn) for op in node.ops)
            key = node.left.value if tests_membership else None
        if isinstance(key, str) and key in names:
            found.append((key, node.lineno))
    return found


def package_reads() -> dict[tuple[str, str], list[int]]:
    """Every row-only string read of the package but the declaration, by (module, field)."""
    reads: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module == DECLARATION:
            continue
        for name, line in string_reads(path.read_text(encoding="utf-8"), ROW_ONLY):
            reads.setdefault((module, name), []).append(line)
    return reads


def test_the_scan_covers_the_row_only_fields() -> None:
    assert SHARED <= ROW_FIELDS  # a renamed field is noticed here
    assert {"correct", "round_answers", "wall_s", "wasted_input_tokens"} <= ROW_ONLY
    assert {"id", "answer", "input_tokens", "turns", "seed"}.isdisjoint(ROW_ONLY)


def test_the_scan_finds_each_form_of_string_read() -> None:
    source = """
row.get("wasted_input_tokens")
row["correct"]
if "round_answers" in row or "wall_s" not in other: pass
row["correct"] = True
row.get("seed")
"""
    assert string_reads(source, ROW_ONLY) == [
        ("wasted_input_tokens", 2),
        ("correct", 3),
        ("round_answers", 4),
        ("wall_s", 4),
    ]


def test_no_module_reads_a_row_field_by_string() -> None:
    reads = package_reads()
    unexpected = {
        f"{module}:{lines[0]}: {name!r}"
        for (module, name), lines in reads.items()
        if (module, name) not in ALLOWED
    }
    assert not unexpected, (
        "a result row read by string key: read the typed row's attribute "
        "(eval/log/row.py: decode_row, as_row, opt), or, where the dict is no result row, "
        f"add (module, field) to ALLOWED with the reason: {sorted(unexpected)}"
    )


def test_every_allowed_read_is_still_there() -> None:
    assert sorted(set(ALLOWED) - set(package_reads())) == []
