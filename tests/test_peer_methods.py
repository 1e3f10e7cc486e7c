"""The methods from the peers (issue 34): listed, written with the kit alone, run everywhere."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from debategraph.cli import app

ROOT = Path(__file__).parents[1]
NEW = {
    "self-refine": "self_refine",
    "moa": "moa",
    "self-moa": "moa",
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


METHODS = ROOT / "src" / "debategraph" / "methods"
KIT_ONLY = [f"{m}.py" for m in sorted(set(NEW.values()))] + [
    f"paradigms/{f.name}" for f in sorted((METHODS / "paradigms").glob("*.py"))
]
"""The modules written as an outside author would: the peers' methods, MALLM's paradigms."""


@pytest.mark.parametrize("module", KIT_ONLY)
def test_each_module_imports_only_the_kit_its_own_package_and_the_standard_library(module):
    own = f"debategraph.methods.{module.split('/')[0]}" if "/" in module else None
    for node in ast.walk(ast.parse((METHODS / module).read_text())):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, (module, "a relative import")
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.startswith("debategraph"):
                mine = own is not None and (name == own or name.startswith(f"{own}."))
                assert name == "debategraph.methods" or mine, (module, name)
            else:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", (module, name)


def test_the_paradigms_package_is_checked_whole():
    assert {"paradigms/__init__.py", "paradigms/turns.py", "paradigms/prompts.py"} <= set(KIT_ONLY)


@pytest.mark.parametrize("name", sorted(NEW))
def test_each_runs_from_the_command_line(name):
    out = runner.invoke(app, ["run", "--method", name, "--json", ARITH])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["method"] == name and data["answer"] is not None
