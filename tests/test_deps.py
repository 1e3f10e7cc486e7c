"""The pinned test environment: the README's test command is CI's, and the pin tools read right."""

from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def deps_script():
    spec = importlib.util.spec_from_file_location("deps", ROOT / "scripts" / "deps.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["deps"] = module
    spec.loader.exec_module(module)
    return module


def test_ci_runs_the_readmes_pinned_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert (
        'pip install -c constraints.txt ".[dev]" && HF_HUB_OFFLINE=1 python -m pytest -q' in readme
    )
    assert 'pip install -q -c constraints.txt ".[dev]"' in ci
    assert "\npython -m pytest -q\n" in ci and "HF_HUB_OFFLINE=1" in ci


def test_every_dependency_of_the_test_environment_is_pinned_within_its_range():
    deps = deps_script()
    pins = deps.parse((ROOT / "constraints.txt").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["dev"]
    for requirement in wanted:
        name = re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9._-]+", requirement)[0]).lower()
        assert name in pins, f"{requirement} is not pinned: run python scripts/deps.py lock"
        low = re.search(r">=\s*([0-9][^,\s]*)", requirement)
        if low:
            pinned = tuple(int(x) for x in re.findall(r"\d+", pins[name])[:3])
            floor = tuple(int(x) for x in re.findall(r"\d+", low[1])[:3])
            assert pinned >= floor, (requirement, pins[name])
    # The ranges stay ranges: the library pins nothing itself.
    assert not any("==" in requirement for requirement in project["dependencies"])


def test_parse_and_moved_name_each_change():
    deps = deps_script()
    pinned = deps.parse("# header\nlangsmith==0.14.2\nNumPy==2.4.6\nold_pkg==1.0\n")
    assert pinned == {"langsmith": "0.14.2", "numpy": "2.4.6", "old-pkg": "1.0"}
    newest = deps.parse("langsmith==0.15.1\nnumpy==2.4.6\nnew.pkg==3\n")
    assert deps.moved(pinned, newest) == [
        "langsmith: 0.14.2 -> 0.15.1",
        "new-pkg: new, 3",
        "old-pkg: no longer needed",
    ]
    assert deps.moved(pinned, pinned) == []
