"""Methods and rules as plugins: the registry, the author's kit, and a plugin from outside.

The plugin under test is ``examples/review_plugin``, a package outside ``src/``. It is made
visible as an installed distribution would be: a ``.dist-info`` directory with its
``pyproject.toml``'s entry points, on ``PYTHONPATH``. Every use then goes through a fresh
process, as a user's would.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import debategraph as dg
import debategraph.testing
from debategraph.methods import Method, get_method, register_method, register_rule
from debategraph.methods.registry import (
    PluginError,
    get_rule,
    list_methods,
    method_plugins,
    unregister_method,
    unregister_rule,
)
from debategraph.prompts import du

ROOT = Path(__file__).parents[1]
EXAMPLE = ROOT / "examples" / "review_plugin"
ARITH = "What is the result of 3+4*5+6-7*2?"
BUILTINS = {
    "cot", "sc", "mav", "du", "ring", "freemad-n", "freemad-c", "reconcile", "cortex", "svr",
    "groupdebate", "du-sum", "chateval", "madm2-s", "madm2-o", "mad", "s2mad", "sid-et",
    "mallm-memory", "mallm-report", "mallm-relay", "mallm-collective",
    "council", "mad-judge", "moa", "self-moa", "self-refine",
}  # fmt: skip


def toy(name: str = "toy") -> Method:
    return Method(
        name=name,
        description="A toy.",
        prompts=du.PROMPTS,
        plan=lambda view: [dg.methods.call(view, a, template="initial") for a in view.agents],
        default_rounds=0,
    )


# --- the registry -------------------------------------------------------------------------


def test_every_builtin_comes_from_an_entry_point_of_debategraph():
    plugins, broken = method_plugins()
    assert not broken
    builtin = {p.name for p in plugins if p.builtin}
    assert builtin == BUILTINS
    for p in plugins:
        if p.builtin:
            assert p.source.startswith(f"entry point {p.name} = debategraph.methods."), p.source
    assert {m.name for m in list_methods()} >= BUILTINS


def test_a_registered_method_runs_by_name_and_conflicts_are_refused():
    method = toy()
    try:
        assert register_method(method) is method
        assert get_method("toy") is method
        assert dg.run(ARITH, method="toy", agents=2).usage["calls"] == 2
        register_method(method)  # the same object again is fine
        with pytest.raises(PluginError, match="'toy' is already registered"):
            register_method(toy())
        with pytest.raises(PluginError, match="'du' is already registered"):
            register_method(toy("du"))
    finally:
        unregister_method("toy")
    with pytest.raises(PluginError, match=r"unknown method 'toy'; choose one of: .*cortex"):
        get_method("toy")


def test_module_attr_strings_load_and_register():
    method = get_method("debategraph.methods.basic:DU")
    assert method is get_method("du")
    with pytest.raises(PluginError, match="has no attribute 'NOPE'"):
        get_method("debategraph.methods.basic:NOPE")
    with pytest.raises(PluginError, match="cannot import 'no_such_module'"):
        get_method("no_such_module:X")
    with pytest.raises(PluginError, match="not a debategraph Method"):
        get_method("debategraph.prompts.du:PROMPTS")
    rule = get_rule("debategraph.policies.decisions:majority_rule")
    assert rule is get_rule("majority")


def test_register_rule_and_use_it_from_a_context():
    def first(trajectory, *, seed: int = 0):
        return dg.methods.Decision(trajectory.final_answers()[0], "first-agent", {})

    register_rule("first-agent", first)
    try:
        r = dg.run(ARITH, method="mav", decision="first-agent")
        assert r.decision["rule"] == "first-agent"
        with pytest.raises(PluginError, match="already registered"):
            register_rule("majority", first)
    finally:
        unregister_rule("first-agent")
    with pytest.raises(dg.DebateConfigError, match="unknown decision rule 'first-agent'"):
        dg.run(ARITH, method="mav", decision="first-agent")


def test_builtin_methods_import_only_what_an_outside_author_can():
    allowed = ("debategraph.methods", "debategraph.policies.", "debategraph.prompts.")
    engine = {"contract.py", "registry.py", "rules.py", "plugins.py", "gate.py", "embeddings.py"}
    engine.add("__init__.py")
    kit_parts = {"debategraph.methods.embeddings", "debategraph.methods.grouping"}
    folder = ROOT / "src" / "debategraph" / "methods"
    checked = 0
    for path in folder.rglob("*.py"):
        if path.parent == folder and path.name in engine:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                name = node.module
                if name.startswith("debategraph"):
                    own = name.startswith("debategraph.methods.") and path.parent != folder
                    kit = name == "debategraph.methods" or name in kit_parts
                    public = name.startswith(allowed[1:]) or name + "." in allowed[1:]
                    assert kit or own or public, (path.name, name)
                    checked += 1
    assert checked > 20


REMOVED_PATHS = [
    "debategraph.graphs.cortex",
    "debategraph.graphs.groupdebate",
    "debategraph.graphs.madm2",
    "debategraph.graphs.presets",
    "debategraph.graphs.summaries",
    "debategraph.graphs.svr",
    "debategraph.graphs.svr_options",
    "debategraph.graphs.svr_state",
    "debategraph.nodes.method",
]


@pytest.mark.parametrize("old", REMOVED_PATHS)
def test_forwarding_paths_are_gone(old):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def test_removed_names_say_where_they_are():
    with pytest.raises(AttributeError, match=r"debategraph\.methods\.cortex\.CortexOptions"):
        dg.CortexOptions  # noqa: B018
    assert not hasattr(dg, "METHODS")
    with pytest.raises(AttributeError, match=r"import it from debategraph\.methods\.registry"):
        dg.methods.method_plugins  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'nonsense'"):
        dg.methods.nonsense  # noqa: B018


def test_keyword_spellings_still_work_and_warn():
    with pytest.warns(DeprecationWarning, match="template"):
        view = dg.testing.make_view(get_method("du"))
        assert dg.methods.call(view, "a1", prompt="initial")["template"] == "initial"
    with pytest.warns(DeprecationWarning, match="models="):
        assert dg.run(ARITH, method="cot", model="simulated").answer is not None


# --- a plugin from outside the repository ---------------------------------------------------


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory):
    """The example plugin on the path, with the metadata pip would write when installing it."""
    site = tmp_path_factory.mktemp("site")
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    info = site / "debate_review-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    groups = [
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entry_points.items())
        for group, entry_points in project["entry-points"].items()
    ]
    (info / "entry_points.txt").write_text("\n".join(groups))
    path = os.pathsep.join([str(site), str(EXAMPLE), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1"}


def cli(env, *args, cwd=None):
    proc = subprocess.run(
        [sys.executable, "-m", "debategraph", *args],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc.stdout


@pytest.mark.slow
def test_the_plugin_is_listed_with_where_it_comes_from(plugin_env):
    out = cli(plugin_env, "methods")
    line = next(line for line in out.splitlines() if line.startswith("review "))
    assert "entry point review = debate_review:REVIEW (debate-review 0.1.0)" in line
    assert "du " in out  # the built-ins are still there


@pytest.mark.slow
def test_the_plugin_runs_from_the_command_line_with_its_rule(plugin_env):
    data = json.loads(
        cli(plugin_env, "run", "--method", "review", "--option", "reviewers=2", "--json", ARITH)
    )
    assert data["method"] == "review" and data["decision"]["rule"] == "quorum"
    kinds = [t["kind"] for t in data["turns"]]
    assert kinds.count("evaluation") == 6 and kinds.count("answer") == 6
    assert data["settings"]["options"] == {"reviewers": 2}


@pytest.mark.slow
def test_the_plugin_evaluates_from_a_sweep_and_reports_with_its_rule(plugin_env, tmp_path):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        textwrap.dedent(
            f"""
            dataset = "arithmetic"
            limit = 3
            out = "{tmp_path / "out"}"

            [arms.review]
            method = "review"
            options = {{ reviewers = 1 }}

            [arms.du-super]
            method = "du"
            decision = "quorum"
            decision_options = {{ threshold = 0.6 }}
            """
        )
    )
    cli(plugin_env, "eval", "--config", str(sweep), "--quiet")
    rows = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert sorted({r["method"] for r in rows}) == ["du-super", "review"] and len(rows) == 6
    assert all("error" not in r for r in rows)
    cli(plugin_env, "report", str(tmp_path / "out"), "--no-plots", "--decision", "quorum")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "review [quorum]" in json.dumps(summary)


@pytest.mark.slow
def test_the_plugin_builds_graphs_and_tools_by_name(plugin_env):
    code = textwrap.dedent(
        f"""
        import debategraph as dg
        graph = dg.build_debate_graph("review", agents=3).compile()
        assert "round:reviews" in graph.get_graph(xray=True).nodes, "the plan node's name"
        out = graph.invoke({{"question": {ARITH!r}}}, context={{"rounds": 1}})
        assert out["decision"]["rule"] == "quorum"
        tool = dg.debate_tool("review", agents=3)
        assert tool.invoke({{"question": {ARITH!r}}})["decision"]["rule"] == "quorum"
        r = dg.run({ARITH!r}, method="debate_review:REVIEW", agents=2)
        assert r.method == "review"
        import asyncio
        r = asyncio.run(dg.arun({ARITH!r}, method="debate_review:REVIEW", agents=2))
        assert r.method == "review"
        node = dg.debate_node("debate_review:REVIEW", agents=2)
        assert node.invoke({{"question": {ARITH!r}}})["debate"]["decision"]["rule"] == (
            "quorum")
        import tempfile
        from debategraph.eval.datasets import load_dataset
        from debategraph.eval.run.runner import Arm, evaluate
        items = load_dataset("arithmetic", limit=2)
        with tempfile.TemporaryDirectory() as out:
            done = evaluate(items, [Arm("r", "debate_review:REVIEW", {{"rounds": 1}})], out,
                            dataset="arithmetic")
            assert (done.written, done.failed) == (2, 0)
        print("ok")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=plugin_env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    shown = cli(plugin_env, "run", "--method", "debate_review:REVIEW", "--agents", "2", ARITH)
    assert "review" in shown


@pytest.mark.slow
def test_a_broken_plugin_is_reported_not_fatal(plugin_env, tmp_path):
    info = tmp_path / "broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[debategraph.methods]\nbad = no_such_pkg:X\n")
    env = {**plugin_env, "PYTHONPATH": f"{tmp_path}{os.pathsep}{plugin_env['PYTHONPATH']}"}
    proc = subprocess.run(
        [sys.executable, "-m", "debategraph", "methods"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0
    assert "review " in proc.stdout
    assert "plugin not loaded: method 'bad' from broken failed to load" in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "debategraph", "run", "--method", "bad", ARITH],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2 and "no_such_pkg" in proc.stderr


def test_the_package_is_typed_and_old_turn_records_are_read_with_a_warning():
    from importlib.resources import files

    from debategraph.state.records import upgrade_turn

    assert files("debategraph").joinpath("py.typed").is_file()
    old = {"speaker": "a1", "round": 1, "read": ["a2"]}
    with pytest.warns(DeprecationWarning, match="'read' key is now 'reads'"):
        turn = upgrade_turn(old)
    assert turn["reads"] == ["a2"] and "read" not in turn
    assert upgrade_turn(turn) is turn  # today's records pass as they are


def test_every_name_of_the_kit_is_documented_and_nothing_else_is_exported():
    guide = (ROOT / "docs" / "writing-a-method.md").read_text()
    undocumented = [n for n in dg.methods.__all__ if f"`{n}`" not in guide]
    assert undocumented == []
    assert len(dg.methods.__all__) <= 36
    assert {"register_method", "get_method", "Method", "call"} <= set(dg.methods.__all__)
    assert not {"method_plugins", "unregister_method", "load_object", "METHOD_GROUP"} & set(
        dg.methods.__all__
    )
    assert not [n for n in dg.__all__ if n.endswith("Options") and n != "MethodOptions"]
