"""The fault map of ``bench/fault_map.py``: which tests hold which fault, and their outcomes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[1] / "bench" / "fault_map.py"


@pytest.fixture(scope="module")
def fault_map():
    spec = importlib.util.spec_from_file_location("fault_map", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fault_map"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["fault_map"]


def test_each_fault_selects_its_tests_and_no_others(fault_map):
    nodes = [
        "tests/test_ray.py::test_an_interrupted_or_killed_driver_leaves_nothing_and_resumes",
        "tests/test_ray.py::test_a_killed_worker_is_restarted_and_every_row_written_once",
        "tests/test_reaper.py::test_closing_ends_the_watched_tree_and_nothing_else",
        "tests/test_models.py::test_a_model_object_works_on_every_call[chat]",
        "tests/test_eval_cli.py::test_an_empty_dataset_name_is_refused",
        "tests/test_eval_cli.py::test_empty_ids_are_refused_before_out_exists",
        "tests/test_datasets.py::test_ids_errors",
        "tests/test_engine.py::test_a_malformed_call_raises_plan_error",
        "tests/test_cache.py::test_a_read_only_cache_is_one_line",
        "tests/test_runner.py::test_a_finished_read_only_run_counts_only_the_contested_rows",
        "tests/test_dataset_errors.py::test_an_id_list_that_names_no_item_is_refused[,,,]",
        "tests/test_dataset_errors.py::test_a_latin1_id_file_and_sweep_file_name_the_file",
        "tests/test_giving_up.py::test_what_a_waiting_call_says",
    ]
    selected = fault_map.select(nodes)
    assert selected["10"] == [nodes[0], nodes[2]]  # the worker-restart test is not item 10
    assert selected["1"] == [nodes[3]]
    assert selected["4"] == [nodes[4]]
    assert selected["9"] == [nodes[5], nodes[10]]  # by its name, and by its file
    assert selected["12"] == [nodes[11]]
    assert selected["6"] == [nodes[12]]
    assert selected["11"] == [nodes[7]]
    assert selected["7"] == [nodes[8]]
    assert selected["import"] == selected["2"] == []


def test_the_table_counts_outcomes_and_calls_an_absent_fault_missing(fault_map):
    selected = {fault.key: [] for fault in fault_map.FAULTS}
    selected["10"] = ["tests/a.py::test_x", "tests/a.py::test_y[1]", "tests/a.py::T::test_z"]
    selected["4"] = ["tests/b.py::test_w"]
    outcomes = {
        "tests/a.py::test_x": "passed",
        "tests/a.py::test_y[1]": "skipped",
        "tests/a.py::T::test_z": "passed",
        "tests/b.py::test_w": "failed",
    }
    rows = {
        line.split(" | ")[0][2:]: line.split(" | ")[2:]
        for line in fault_map.table(selected, outcomes).splitlines()[2:]
    }
    assert rows["10"] == ["3", "2", "0", "1", "pass |"]
    assert rows["4"] == ["1", "0", "1", "0", "FAIL |"]
    assert rows["1"] == ["0", "0", "0", "0", "missing |"]


@pytest.mark.slow
def test_outcomes_are_read_from_pytests_junit_report(fault_map, tmp_path, monkeypatch):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "test_demo.py").write_text(
        "import pytest\n"
        "def test_ok(): pass\n"
        "def test_bad(): assert False\n"
        "@pytest.mark.parametrize('n', [1])\n"
        "def test_skip(n): pytest.skip('later')\n"
        "class TestGroup:\n"
        "    def test_in_class(self): pass\n"
    )
    monkeypatch.setattr(fault_map, "ROOT", tmp_path)
    monkeypatch.setattr(subprocess, "run", _without_config(subprocess.run))
    nodes = [
        "t/test_demo.py::test_ok",
        "t/test_demo.py::test_bad",
        "t/test_demo.py::test_skip[1]",
        "t/test_demo.py::TestGroup::test_in_class",
    ]
    assert fault_map.run(nodes) == {
        "t/test_demo.py::test_ok": "passed",
        "t/test_demo.py::test_bad": "failed",
        "t/test_demo.py::test_skip[1]": "skipped",
        "t/test_demo.py::TestGroup::test_in_class": "passed",
    }


def _without_config(run):
    def isolated(command, **kwargs):  # the demo directory is its own root, with no conftest
        return run([*command[:3], "-c", "/dev/null", "--rootdir", str(kwargs["cwd"]),
                    *command[3:]], **kwargs)  # fmt: skip

    return isolated
