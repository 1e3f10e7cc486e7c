"""Floors only point down, and no module of the package imports itself in a circle.

The imports are read from the source with ``ast``: every ``import`` and ``from ... import``
of a ``debategraph`` module, at module level or inside a function (a lazy import still ties
two modules together). Imports under ``if TYPE_CHECKING:`` are left out: they never run.
A package's ``__init__`` run by importing one of its submodules is not counted as an edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "src" / "debategraph"


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


MODULES = _modules()


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(name: str, path: Path, is_package: bool) -> set[str]:
    """Names of ``debategraph`` modules (or their attributes) that module ``name`` imports."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for stmt in child.orelse:
                    visit_one(stmt)
            else:
                visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: None if is_package else -1]
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
        else:
            visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in out if m == "debategraph" or m.startswith("debategraph.")}


def _module_of(dotted: str) -> str:
    while dotted not in MODULES:
        dotted = dotted.rpartition(".")[0]
    return dotted


def _edges() -> dict[str, set[str]]:
    edges = {}
    for name, (path, is_package) in MODULES.items():
        targets = {_module_of(m) for m in _imported(name, path, is_package)}
        edges[name] = targets - {name}
    return edges


EDGES = _edges()


def _within(module: str, floor: str) -> bool:
    return module == floor or module.startswith(floor + ".")


def test_policies_import_nothing_else_of_the_package():
    leaks = {
        (m, t)
        for m, ts in EDGES.items()
        if _within(m, "debategraph.policies")
        for t in ts
        if not _within(t, "debategraph.policies")
    }
    assert not leaks


def test_state_imports_only_policies_and_the_errors():
    allowed = ("debategraph.state", "debategraph.policies", "debategraph.errors")
    leaks = {
        (m, t)
        for m, ts in EDGES.items()
        if _within(m, "debategraph.state")
        for t in ts
        if not any(_within(t, floor) for floor in allowed)
    }
    assert not leaks


def test_the_errors_module_imports_nothing_of_the_package():
    assert EDGES["debategraph.errors"] == set()


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def test_no_import_circle_anywhere():
    assert _circles(EDGES) == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_lazy_imports_count_and_type_checking_ones_do_not(tmp_path):
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from debategraph.api import run\n"
        "def f():\n    from debategraph.methods.registry import get_rule\n"
        "from . import errors\n"
    )
    path = tmp_path / "mod.py"
    path.write_text(source)
    found = _imported("debategraph.state.mod", path, False)
    assert "debategraph.methods.registry.get_rule" in found
    assert "debategraph.state.errors" in found
    assert not any(m.startswith("debategraph.api") for m in found)


def test_the_generic_decision_path_knows_no_method_or_rule_by_name():
    method_modules = ("debategraph.methods.cortex", "debategraph.policies.mdm")
    for module in ("debategraph.methods.contract", "debategraph.methods.rules"):
        tree = ast.parse(MODULES[module][0].read_text(encoding="utf-8"))
        literals = {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        assert "credibility" not in literals, module
        assert not any(_within(t, m) for t in EDGES[module] for m in method_modules), module


EVAL_STAGES: dict[str, tuple[str, ...]] = {
    "log": (),
    "analysis": ("log",),
    "run": ("log", "analysis"),
    "report": ("log", "analysis"),
    "export": ("log", "analysis", "report"),
}
"""Each stage of ``eval/`` and the stages it may import.

``log`` (the row, the store, the ledger) is the lowest floor: the runner writes rows through
it and every reader reads them through it. ``analysis`` computes over logged rows;
``report`` and ``export`` read the analysis (``export`` may reuse ``report``). ``run`` sits on
``log`` and ``analysis`` (its executors screen contested items with ``analysis.dynamics``)
and no stage imports ``run``. ``datasets`` and ``commands`` (the command-line front end) are
outside the order: every stage may import ``datasets``, ``commands`` may import every stage.
"""


def _eval_stage(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "eval" and parts[2] in EVAL_STAGES:
        return parts[2]
    return None


def test_eval_stages_import_only_the_stages_below_them():
    reverse = {
        (m, t)
        for m, ts in EDGES.items()
        if (stage := _eval_stage(m)) is not None
        for t in ts
        if _eval_stage(t) not in (None, stage, *EVAL_STAGES[stage])
    }
    assert not reverse


def test_eval_is_laid_out_by_stage():
    loose = {
        m
        for m in MODULES
        if _within(m, "debategraph.eval")
        and m.count(".") == 2
        and m.rpartition(".")[2] not in {*EVAL_STAGES, "datasets", "commands"}
    }
    assert loose == set()
    assert all(f"debategraph.eval.{stage}" in MODULES for stage in EVAL_STAGES)
