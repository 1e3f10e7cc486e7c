"""The watcher that ends a local Ray cluster's processes once its driver is gone (no Ray)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debategraph.eval.run.executors.reaper import Watcher, children, process_table, with_descendants

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]
TREE = [  # a cluster in small: starts a grandchild, says its id, and exits when told
    sys.executable,
    "-c",
    "import subprocess, sys\n"
    "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
    "print(g.pid, flush=True)\n"
    "sys.stdin.readline()\n",
]


def alive(pid: int) -> bool:
    return pid in process_table()


def gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(alive(p) for p in pids)


def test_descendants_follow_parents_and_skip_reused_ids():
    table = {
        10: (1, 100),
        11: (10, 101),
        12: (11, 102),
        20: (12, 200),
        13: (1, 103),
        14: (13, 104),
    }
    assert with_descendants({10: 100}, table) == {10: 100, 11: 101, 12: 102, 20: 200}
    assert with_descendants({11: 101, 99: 5}, table) == {11: 101, 12: 102, 20: 200}
    assert with_descendants({10: 999}, table) == {}  # the id now names another process
    # An orphan stays tracked once seen, wherever it was moved.
    orphaned = {**table, 12: (1, 102)}
    del orphaned[11]
    assert with_descendants({10: 100, 12: 102, 20: 200}, orphaned) == {10: 100, 12: 102, 20: 200}


@pytest.mark.slow
def test_closing_ends_the_watched_tree_and_nothing_else():
    before = children(os.getpid())
    root = subprocess.Popen(TREE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert root.stdout is not None
    grandchild = int(root.stdout.readline())
    roots = dict(children(os.getpid()).items() - before.items())
    other = subprocess.Popen(SLEEPER)
    try:
        assert set(roots) == {root.pid}
        watcher = Watcher.start(roots)
        assert watcher is not None
        watcher.close()
        assert watcher.process.returncode == 0
        root.wait(5)
        assert gone_within([grandchild], 5)
        assert other.poll() is None
    finally:
        for process in (root, other):
            process.kill()
            process.wait()
        if alive(grandchild):
            os.kill(grandchild, signal.SIGKILL)


DRIVER = """
import json, os, subprocess, sys, time
from debategraph.eval.run.executors.reaper import Watcher, children
before = children(os.getpid())
root = subprocess.Popen(json.loads(sys.argv[1]), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        text=True)
grandchild = int(root.stdout.readline())
roots = dict(children(os.getpid()).items() - before.items())
other = subprocess.Popen(json.loads(sys.argv[2]))
watcher = Watcher.start(roots)
root.stdin.close()  # the root exits: its child is an orphan now, as Ray's agents become
root.wait()
ids = {"grandchild": grandchild, "other": other.pid, "watcher": watcher.process.pid}
print(json.dumps(ids), flush=True)
time.sleep(120)
"""


@pytest.mark.slow
def test_a_killed_driver_takes_the_watched_tree_with_it_within_seconds():
    driver = subprocess.Popen(
        [sys.executable, "-c", DRIVER, json.dumps(TREE), json.dumps(SLEEPER)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert driver.stdout is not None
    ids = json.loads(driver.stdout.readline())
    try:
        assert alive(ids["grandchild"])  # an orphan now, outside the driver's tree
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        assert gone_within([ids["grandchild"], ids["watcher"]], 10)
        assert alive(ids["other"])  # a process of the driver's own is not the cluster's
    finally:
        for pid in ids.values():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
