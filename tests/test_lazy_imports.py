"""What ``import debategraph``, ``debategraph --help`` and a simulated ``run`` load.

Behavioural, not timed (``bench/coldstart.py`` times them): each check runs in a fresh
interpreter and looks at ``sys.modules`` afterwards.
"""

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import debategraph

SRC = Path(debategraph.__file__).resolve().parents[1]
HEAVY = ["numpy", "networkx", "faiss", "openai", "langchain_openai", "sympy", "matplotlib", "ray"]
EVAL = [
    "debategraph.eval.run.runner",
    "debategraph.eval.log.store",
    "debategraph.eval.report.writer",
    "debategraph.eval.analysis.metrics",
]
ARITH = "What is the result of 3+4*5+6-7*2?"


def loaded_after(code: str) -> set[str]:
    """The top-level and debategraph modules loaded after running ``code`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_debategraph_loads_nothing_heavy():
    modules = loaded_after("import debategraph")
    assert not modules & {*HEAVY, "langgraph", "langchain_core", "pydantic", "typer", "rich"}


@pytest.mark.slow
def test_help_loads_neither_langgraph_nor_the_eval_harness():
    modules = loaded_after(
        "from typer.testing import CliRunner\n"
        "from debategraph.cli import app\n"
        "result = CliRunner().invoke(app, ['--help'])\n"
        "assert result.exit_code == 0 and 'eval' in result.output, result.output"
    )
    assert not modules & {*HEAVY, "langgraph", *EVAL}


@pytest.mark.slow
def test_simulated_run_loads_no_numpy_networkx_or_openai():
    modules = loaded_after(
        "import debategraph as dg\n"
        f"result = dg.run({ARITH!r}, method='du', agents=3, rounds=1)\n"
        "assert result.answer is not None"
    )
    assert "langgraph" in modules  # the debate did run
    # httpx is not listed: LangGraph itself imports it (langgraph_sdk).
    assert not modules & {*HEAVY, *EVAL}


@pytest.mark.slow
def test_cli_run_loads_no_eval_harness():
    modules = loaded_after(
        "from typer.testing import CliRunner\n"
        "from debategraph.cli import app\n"
        f"result = CliRunner().invoke(app, ['run', '--rounds', '1', {ARITH!r}])\n"
        "assert result.exit_code == 0, result.output"
    )
    assert not modules & {*HEAVY, *EVAL}


@pytest.mark.slow
def test_an_evaluation_loads_ray_only_on_the_ray_engine(tmp_path):
    evaluation = (
        "from debategraph.eval.datasets import load_dataset\n"
        "from debategraph.eval.run.executors import executor_for\n"
        "from debategraph.eval.run.runner import Arm, evaluate\n"
        "executor = executor_for('ray', workers=2)  # chosen, not run\n"
        f"outcome = evaluate(load_dataset('arithmetic', limit=2), [Arm('cot', 'cot')], "
        f"{str(tmp_path)!r}, dataset='arithmetic')\n"
        "assert outcome.count == 2"
    )
    assert "ray" not in loaded_after(evaluation)


@pytest.mark.slow
def test_cortex_loads_numpy_when_it_runs():
    modules = loaded_after("import debategraph as dg\nm = dg.get_method('cortex')\nm.options()")
    assert "numpy" not in modules
    modules = loaded_after(f"import debategraph as dg\ndg.run({ARITH!r}, method='cortex')")
    assert "numpy" in modules


@pytest.mark.parametrize("name", debategraph.__all__)
def test_every_export_resolves(name):
    assert getattr(debategraph, name) is not None
    assert name in dir(debategraph)


def test_run_is_the_function_and_no_module_shadows_it():
    import debategraph.api
    from debategraph import run
    from debategraph.api import DebateResult

    assert callable(run) and run.__module__ == "debategraph.api"
    assert debategraph.run is run is debategraph.api.run
    assert DebateResult.__module__ == "debategraph.result"
    assert type(debategraph) is types.ModuleType  # no class swap on the package module


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        debategraph.nope  # noqa: B018


def test_the_ctrl_c_guard_comes_before_any_import_that_could_be_interrupted():
    """Up to the package's Ctrl-C guard, only modules the interpreter loaded before any
    program ran are imported (``_signal``, not ``signal``, which loads ``enum``), so a Ctrl-C
    at any moment after the package's first line meets the guard, not a traceback."""
    import ast
    import subprocess
    import sys
    from pathlib import Path

    import debategraph

    tree = ast.parse(Path(debategraph.__file__).read_text())
    before = []
    for node in tree.body:
        if isinstance(node, ast.If) and "_interrupted_while_starting" in ast.unparse(node):
            break
        if isinstance(node, ast.Import):
            before += [alias.name for alias in node.names]
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            before.append(node.module)
    else:
        raise AssertionError("no Ctrl-C guard in debategraph/__init__.py")
    preloaded = subprocess.run(
        [sys.executable, "-S", "-c", "import sys; print(' '.join(sys.modules))"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert before == ["_signal", "os", "sys"]
    assert set(before) - {"os"} <= set(preloaded) | set(sys.builtin_module_names)


REPORT_MODULES = 122
"""The most modules importing the report may load beyond a bare interpreter's (standard
library included): what the report of the release before loaded. Reaching the model layer
for one constant had made it 1,000 and more."""


@pytest.mark.slow
def test_the_report_loads_no_model_layer_and_few_modules():
    before = loaded_after("pass")
    modules = loaded_after("from debategraph.eval.report.writer import write_report")
    assert not {m for m in modules if m.split(".")[0] in {"langchain_core", "langsmith"}}
    assert not {m for m in modules if m.startswith("debategraph.models")}
    assert "numpy" not in modules
    assert len(modules - before) <= REPORT_MODULES, sorted(modules - before)
