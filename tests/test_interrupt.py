"""Ctrl-C at any moment: one line, exit status 130, and the results so far intact and resumable."""

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

ITEMS = "40"
MODEL = "simulated:latency_s=0.5"  # a whole run takes about 12 s: no interrupt comes too late


def command(out: Path) -> list[str]:
    return [sys.executable, "-m", "debategraph", "eval", "--method", "du", "--dataset",
            "arithmetic", "--limit", ITEMS, "--model", MODEL, "--out", str(out),
            "--quiet"]  # fmt: skip


def rows(out: Path) -> list[dict]:
    text = (out / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def interrupt(out: Path, delay: float, *, ignored_by_parent: bool = False) -> None:
    def ignore() -> None:  # what a shell does to a script's background job
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        command(out), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=ignore if ignored_by_parent else None,
    )  # fmt: skip
    time.sleep(delay)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    took = time.perf_counter() - sent
    assert proc.returncode != 0, f"Ctrl-C after {delay} s was ignored: the run finished"
    # Killed by SIGINT while the interpreter shuts down reads as 130 in a shell too.
    assert proc.returncode in (130, -signal.SIGINT), (delay, err)
    assert took < 2.0, f"Ctrl-C after {delay} s took {took:.2f} s to end the run"
    lines = err.strip().splitlines()
    assert len(lines) <= 1 and all(x.startswith("interrupted") for x in lines), (delay, err)
    if (out / "results.jsonl").exists():
        for row in rows(out):  # every line written so far is a whole row
            assert row["method"] == "du" and "id" in row


def test_ctrl_c_at_many_points_then_resume(tmp_path):
    out = tmp_path / "run"
    # From 60 ms on: before that the interpreter itself is starting (its own traceback).
    for delay in (0.06, 0.15, 0.4, 0.8, 1.2, 1.6, 2.2, 3.0):
        interrupt(out, delay)
    interrupt(out, 1.4, ignored_by_parent=True)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(command(out), capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    clean = tmp_path / "clean"
    subprocess.run(command(clean), capture_output=True, text=True, env=env, timeout=300)
    assert without_timings(rows(out)) == without_timings(rows(clean))
    assert len(rows(out)) == int(ITEMS)
