"""Ending a local Ray cluster's processes once the process that started it is gone.

``ray.init`` ties the cluster's head processes (GCS, raylet) to the driver's life, but not
the processes the raylet starts: after a driver is SIGKILLed, Ray's ``DashboardAgent`` and
``RuntimeEnvAgent`` spend a minute trying to report the raylet's death to the dead GCS
before they exit. So the driver starts a watcher beside the cluster: a small process that
follows the cluster's process tree (the processes ``ray.init`` started and everything they
start) and ends it, SIGTERM then SIGKILL, as soon as the driver's end of a pipe closes.
The pipe closes however the driver ends: killed, crashed, or done (after ``ray.shutdown``,
when nothing is left to end).

The watcher is this file run as a script (``python -I -S reaper.py``): standard library
only, so it starts in milliseconds and imports nothing of the package. It runs in a session
of its own, so the terminal's Ctrl-C does not reach it. Processes are told apart by their
start time as well as their id, so an id the system reuses is never signalled. Linux only
(it reads ``/proc``); elsewhere no watcher starts and Ray's own clean-up applies.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

PROC = Path("/proc")

POLL_S = 0.5
"""How often the watcher reads the process table while the driver lives."""

GRACE_S = 1.0
"""How long the watcher waits after SIGTERM before it sends SIGKILL."""

Processes = dict[int, int]
"""Process id -> start time (clock ticks since boot): one process, whatever reuses its id."""


def process_table() -> dict[int, tuple[int, int]]:
    """Every live process: id -> (parent id, start time), zombies left out; none without /proc."""
    table: dict[int, tuple[int, int]] = {}
    if not PROC.is_dir():
        return table
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] not in ("Z", "X"):
            table[int(entry.name)] = (int(fields[1]), int(fields[19]))
    return table


def children(pid: int, table: dict[int, tuple[int, int]] | None = None) -> Processes:
    """The live children of ``pid``."""
    table = process_table() if table is None else table
    return {child: start for child, (parent, start) in table.items() if parent == pid}


def with_descendants(tracked: Processes, table: dict[int, tuple[int, int]]) -> Processes:
    """The processes of ``tracked`` still alive, and every live descendant of theirs."""
    found = {pid: start for pid, start in tracked.items() if table.get(pid, (0, -1))[1] == start}
    by_parent: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        by_parent.setdefault(parent, []).append(pid)
    todo = list(found)
    while todo:
        for child in by_parent.get(todo.pop(), ()):
            if child not in found:
                found[child] = table[child][1]
                todo.append(child)
    return found


class Watcher:
    """The driver's side: starts the watcher and, on :meth:`close`, lets it end the cluster.

    Args:
        process: The watcher process, reading the pipe on its standard input.
    """

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    @classmethod
    def start(cls, roots: Processes) -> Watcher | None:
        """Watch ``roots`` (and what they start) on behalf of this process.

        Returns:
            The watcher, or ``None`` where none can run (no ``/proc``, no interpreter path,
            nothing to watch).
        """
        if not roots or not PROC.is_dir() or not sys.executable:
            return None
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", __file__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:  # no watcher: Ray's own clean-up applies, as without /proc
            return None
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("".join(f"{p} {s}\n" for p, s in roots.items()).encode() + b"\n")
        process.stdin.flush()
        process.stdout.readline()  # it holds the tree from here on (or it could not start)
        process.stdout.close()
        return cls(process)

    def close(self, timeout: float = GRACE_S + 3.0) -> None:
        """Close the pipe (the watcher ends what is left of the cluster) and wait for it."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout)


def watch(
    pipe: IO[bytes], reply: IO[bytes], *, poll_s: float = POLL_S, grace_s: float = GRACE_S
) -> None:
    """The watcher's side: follow the processes named on ``pipe`` until it closes, then end them.

    Each line of ``pipe`` names a process to watch (``PID START``); an empty line ends the
    list, and the watcher answers ``ready`` on ``reply`` once it holds their tree.
    """
    tracked: Processes = {}
    pending = b""
    fd = pipe.fileno()
    while True:
        listed = False
        if select.select([fd], [], [], poll_s)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            for line in lines:
                if line.strip():
                    pid, start = line.split()
                    tracked[int(pid)] = int(start)
                else:
                    listed = True
        tracked = with_descendants(tracked, process_table())
        if listed:
            reply.write(b"ready\n")
            reply.flush()
    end(tracked, grace_s)


def end(tracked: Processes, grace_s: float = GRACE_S) -> None:
    """SIGTERM ``tracked`` and their descendants; SIGKILL what is left after ``grace_s``."""
    targets = with_descendants(tracked, process_table())
    _signal(targets, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while targets and time.monotonic() < deadline:
        time.sleep(0.05)
        targets = with_descendants(targets, process_table())
    deadline = time.monotonic() + grace_s  # a process the kernel holds may outlast SIGKILL
    while targets and time.monotonic() < deadline:
        _signal(targets, signal.SIGKILL)
        time.sleep(0.05)
        targets = with_descendants(targets, process_table())


def _signal(targets: Processes, number: signal.Signals) -> None:
    for pid in targets:
        if pid not in (os.getpid(), 1):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, number)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(sys.stdin.buffer, sys.stdout.buffer)
