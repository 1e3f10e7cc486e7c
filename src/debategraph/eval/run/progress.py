"""Progress of evaluation runs: bars in a terminal, plain lines elsewhere.

:class:`RichProgress` draws one bar per method (items done, ETA, running accuracy, tokens,
failed items); :class:`TextProgress` prints a line per method at steps of its items (for
notebooks); :class:`IntervalProgress` prints one line for the run at a steady interval (for
logs and pipes).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from debategraph.eval.log.row import as_row, opt

SKIPPED = "skipped"
"""The key of the marker progress gets for an arm that skips an item a screen settled:
``{"method": label, "id": item, "skipped": True}`` (no row is written)."""


class _Tally:
    def __init__(self) -> None:
        self.scored = self.correct = self.tokens = self.failed = 0

    def add(self, row: Mapping[str, Any]) -> None:
        if row.get(SKIPPED):  # an item a screen found settled: done, never scored
            return
        written = as_row(row)
        if opt(written.error) is not None:
            self.failed += 1
            return
        self.scored += 1
        self.correct += bool(written.correct)
        self.tokens += (written.input_tokens or 0) + (written.output_tokens or 0)

    def fields(self) -> dict[str, Any]:
        acc = f"{100 * self.correct / self.scored:5.1f}%" if self.scored else "    —"
        failed = f" · {self.failed} failed" if self.failed else ""
        return {"acc": acc, "tokens": _short_number(self.tokens), "failed": failed}


def _resumed(label: str, done: Sequence[Mapping[str, Any]]) -> tuple[_Tally, int]:
    """The tally of a method's resumed rows, and how many there are."""
    tally = _Tally()
    resumed = [row for row in done if _label(row) == label]
    for row in resumed:
        tally.add(row)
    return tally, len(resumed)


def _label(row: Mapping[str, Any]) -> str:
    """The method label of a row (or of a skipped item's marker)."""
    return as_row(row).method


def _short_number(n: int) -> str:
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{n / size:.1f}{suffix}"
    return str(n)


class RichProgress:
    """Progress bars on stderr, one per method label (see ``runner.Progress``).

    Args:
        console: Where to draw; defaults to a stderr console.
    """

    def __init__(self, console: Console | None = None) -> None:
        self._progress = Progress(
            TextColumn("{task.description:<14}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("acc {task.fields[acc]} · {task.fields[tokens]} tok{task.fields[failed]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
        )
        self._tasks: dict[str, TaskID] = {}
        self._tallies: dict[str, _Tally] = {}

    def start(self, totals: Mapping[str, int], done: Sequence[Mapping[str, Any]]) -> None:
        """Add one bar per method; count the resumed rows as done."""
        for label, total in totals.items():
            tally, resumed = _resumed(label, done)
            self._tallies[label] = tally
            self._tasks[label] = self._progress.add_task(
                label, total=total, completed=resumed, **tally.fields()
            )
        self._progress.start()

    def advance(self, row: Mapping[str, Any]) -> None:
        """Count one finished row."""
        label = _label(row)
        if label not in self._tasks:
            return
        tally = self._tallies[label]
        tally.add(row)
        self._progress.update(self._tasks[label], advance=1, **tally.fields())

    def stop(self) -> None:
        """Leave the final bars on screen."""
        self._progress.stop()


class _RowCounts:
    """Per method: its total, the rows done and their running tally."""

    def __init__(self) -> None:
        self._totals: dict[str, int] = {}
        self._done: dict[str, int] = {}
        self._tallies: dict[str, _Tally] = {}

    def _count(self, row: Mapping[str, Any]) -> str | None:
        """Count one finished row: its method's label, or ``None`` for a method not started."""
        label = _label(row)
        if label not in self._totals:
            return None
        self._tallies[label].add(row)
        self._done[label] += 1
        return label


class TextProgress(_RowCounts):
    """Plain progress lines (no live display): for notebooks without ipywidgets and for logs.

    Prints one line per method each time another ``every`` fraction of its items is done,
    and a last line at the end.

    Args:
        every: Fraction of a method's items between two lines.
        write: Where lines go (``print`` by default).
    """

    def __init__(self, every: float = 0.25, write: Any = print) -> None:
        super().__init__()
        self.every = every
        self.write = write
        self._next: dict[str, float] = {}

    def start(self, totals: Mapping[str, int], done: Sequence[Mapping[str, Any]]) -> None:
        """Note the totals and count the resumed rows as done."""
        for label, total in totals.items():
            self._tallies[label], resumed = _resumed(label, done)
            self._totals[label], self._done[label] = total, resumed
            self._next[label] = (resumed / total if total else 1.0) + self.every

    def advance(self, row: Mapping[str, Any]) -> None:
        """Count one finished row; print a line at every ``every`` step."""
        label = self._count(row)
        if label is None:
            return
        share = self._done[label] / self._totals[label]
        if share + 1e-9 >= self._next[label] and share < 1:
            self._line(label)
            self._next[label] = share + self.every

    def stop(self) -> None:
        """One last line per method."""
        for label in self._totals:
            self._line(label)

    def _line(self, label: str) -> None:
        f = self._tallies[label].fields()
        self.write(
            f"{label}: {self._done[label]}/{self._totals[label]} · acc {f['acc'].strip()} · "
            f"{f['tokens']} tok{f['failed']}"
        )


class IntervalProgress(_RowCounts):
    """One plain line for the whole run at a steady interval: for logs and pipes.

    A run whose output is not a terminal (``eval ... > log``, a scheduler's job) prints, every
    ``interval`` seconds at most, one line with the rows done, each method's count and running
    accuracy, the elapsed time and an estimate of the time left; and one line at the start and
    one at the end.

    Args:
        interval: Seconds between two lines.
        write: Where lines go.
        clock: The monotonic clock (tests pass their own).
    """

    def __init__(
        self, interval: float = 30.0, write: Any = print, clock: Any = time.monotonic
    ) -> None:
        super().__init__()
        self.interval = interval
        self.write = write
        self.clock = clock
        self._new = 0

    def start(self, totals: Mapping[str, int], done: Sequence[Mapping[str, Any]]) -> None:
        """Note the totals, count the resumed rows, and say what is to run."""
        for label, total in totals.items():
            self._tallies[label], self._done[label] = _resumed(label, done)
            self._totals[label] = total
        self._start = self._last = self.clock()
        total, finished = sum(self._totals.values()), sum(self._done.values())
        self.write(f"eval: {total - finished} of {total} rows to run ({finished} resumed)")

    def advance(self, row: Mapping[str, Any]) -> None:
        """Count one finished row; print the line when ``interval`` has passed."""
        if self._count(row) is None:
            return
        self._new += 1
        if self.clock() - self._last >= self.interval:
            self._line()

    def stop(self) -> None:
        """The last line."""
        self._line()

    def _line(self) -> None:
        now = self.clock()
        self._last = now
        elapsed = now - self._start
        total, finished = sum(self._totals.values()), sum(self._done.values())
        left = total - finished
        eta = f" · ETA {_clock(elapsed / self._new * left)}" if self._new and left else ""
        methods = " · ".join(
            f"{label} {self._done[label]}/{self._totals[label]} acc "
            f"{self._tallies[label].fields()['acc'].strip()}{self._tallies[label].fields()['failed']}"
            for label in self._totals
        )
        self.write(f"eval: {finished}/{total} rows · {methods} · {_clock(elapsed)} elapsed{eta}")


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def auto_progress() -> Any:
    """Bars in a terminal, plain lines in a notebook (live widgets need ipywidgets)."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None and type(shell).__name__ == "ZMQInteractiveShell":
        return TextProgress()
    return RichProgress()
