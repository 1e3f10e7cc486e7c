"""Ctrl-C at any moment: one line, exit status 130, and the results so far intact and resumable.

The moments are events, not delays, so a loaded machine changes nothing: a real SIGINT raised
while a given module is being imported (a ``sitecustomize`` import hook in the child), or sent
once the run has written its header or a number of rows.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import without_timings

pytestmark = pytest.mark.slow

ITEMS = 40
MODEL = "simulated:latency_s=0.5"  # a whole run takes about 12 s: no interrupt comes too late
CONSOLE_SCRIPT = Path(sys.executable).with_name("debategraph")

# Raises a real SIGINT in the child when the named module is about to be imported.
HOOK = """
import os, signal, sys

class _SigintOnImport:
    def __init__(self, name):
        self.name = name

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.name:
            sys.meta_path.remove(self)
            signal.raise_signal(signal.SIGINT)
        return None

if os.environ.get("SIGINT_ON_IMPORT"):
    sys.meta_path.insert(0, _SigintOnImport(os.environ["SIGINT_ON_IMPORT"]))
"""


def command(out: Path, launcher: str = "module") -> list[str]:
    head = [str(CONSOLE_SCRIPT)] if launcher == "script" else [sys.executable, "-m", "debategraph"]
    return [*head, "eval", "--method", "du", "--dataset", "arithmetic", "--limit", str(ITEMS),
            "--model", MODEL, "--out", str(out), "--quiet"]  # fmt: skip


def rows(out: Path) -> list[dict]:
    file = out / "results.jsonl"
    if not file.exists():
        return []
    return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()]


def env_for(hooks: Path, module: str | None = None) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(hooks), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": path}
    env.pop("SIGINT_ON_IMPORT", None)
    if module:
        env["SIGINT_ON_IMPORT"] = module
    return env


def wait_for(done, proc: subprocess.Popen[str], what: str, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while not done():
        assert proc.poll() is None, f"the run ended before {what}"
        assert time.monotonic() < end, f"no {what} within {timeout} s"
        time.sleep(0.01)


def check_interrupted(proc: subprocess.Popen[str], moment: str, *, send: bool = True) -> None:
    sent = time.perf_counter()
    if send:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    took = time.perf_counter() - sent
    # Killed by SIGINT while the interpreter shuts down reads as 130 in a shell too.
    assert proc.returncode in (130, -signal.SIGINT), (moment, proc.returncode, err)
    # From the signal sent; an import moment's signal is raised by the child itself.
    assert not send or took < 5.0, f"Ctrl-C at {moment} took {took:.2f} s to end the run"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted"), (moment, err)
    if (out_file := proc.args[proc.args.index("--out") + 1]) and Path(out_file).exists():
        for row in rows(Path(out_file)):  # every line written so far is a whole row
            assert row["method"] == "du" and "id" in row


@pytest.fixture
def hooks(tmp_path: Path) -> Path:
    folder = tmp_path / "hooks"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(HOOK)
    return folder


# From the package's first line on: the entry point, the command line's own imports (LangGraph,
# pydantic), and the evaluation modules loaded once the command is known.
IMPORT_MOMENTS = [
    ("module", "debategraph.entry"),
    ("script", "debategraph.entry"),
    ("script", "debategraph.cli"),
    ("module", "langgraph.graph"),
    ("script", "pydantic"),
    ("script", "debategraph.models.simulated"),
    ("module", "debategraph.eval.run.runner"),
]


@pytest.mark.parametrize(("launcher", "module"), IMPORT_MOMENTS)
def test_ctrl_c_during_imports_is_one_line(tmp_path, hooks, launcher, module):
    out = tmp_path / "run"
    proc = subprocess.Popen(
        command(out, launcher), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env_for(hooks, module),
    )  # fmt: skip
    check_interrupted(proc, f"import of {module} ({launcher})", send=False)
    assert rows(out) == []


def test_ctrl_c_at_many_points_then_resume(tmp_path, hooks):
    out = tmp_path / "run"

    def interrupt_when(done, what: str, *, ignored_by_parent: bool = False) -> None:
        def ignore() -> None:  # what a shell does to a script's background job
            signal.signal(signal.SIGINT, signal.SIG_IGN)

        proc = subprocess.Popen(
            command(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env_for(hooks), preexec_fn=ignore if ignored_by_parent else None,
        )  # fmt: skip
        wait_for(done, proc, what)
        check_interrupted(proc, what)

    interrupt_when(lambda: (out / "run.json").exists(), "the run's header")
    for more in (1, 3, 8):
        start = len(rows(out))
        interrupt_when(lambda m=more, s=start: len(rows(out)) >= s + m, f"{more} more rows")
    start = len(rows(out))
    interrupt_when(lambda: len(rows(out)) > start, "a row", ignored_by_parent=True)
    assert 0 < len(rows(out)) < ITEMS
    done = subprocess.run(command(out), capture_output=True, text=True, env=env_for(hooks),
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    clean = tmp_path / "clean"
    subprocess.run(command(clean), capture_output=True, text=True, env=env_for(hooks), timeout=300)
    assert without_timings(rows(out)) == without_timings(rows(clean))
    assert len(rows(out)) == ITEMS
