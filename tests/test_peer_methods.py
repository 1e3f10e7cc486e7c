"""The methods from the peers (issue 34): listed, written with the kit alone, run everywhere."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from debategraph.cli import app

ROOT = Path(__file__).parents[1]
NEW = {
    "self-refine": "self_refine",
    "moa": "moa",
    "self-moa": "self_moa",
    "council": "council",
    "mad-judge": "mad_judge",
}
ARITH = "What is the result of 3+4*5+6-7*2?"
runner = CliRunner()


def test_debategraph_methods_lists_each_with_its_card():
    out = runner.invoke(app, ["methods"])
    assert out.exit_code == 0, out.output
    for name in NEW:
        line = next(x for x in out.stdout.splitlines() if x.startswith(f"{name} "))
        assert (ROOT / "docs" / "methods" / f"{name}.md").exists(), name
        assert line.split()[0] == name


@pytest.mark.parametrize("module", sorted(NEW.values()))
def test_each_module_imports_nothing_of_debategraph_but_the_kit(module):
    tree = ast.parse((ROOT / "src" / "debategraph" / "methods" / f"{module}.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("debategraph"):
            assert node.module == "debategraph.methods", (module, node.module)
        if isinstance(node, ast.Import):
            assert not any(a.name.startswith("debategraph") for a in node.names), module


@pytest.mark.parametrize("name", sorted(NEW))
def test_each_runs_from_the_command_line(name):
    out = runner.invoke(app, ["run", "--method", name, "--json", ARITH])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["method"] == name and data["answer"] is not None
