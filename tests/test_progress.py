"""Progress outside a terminal: one plain line for the run at a steady interval."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from debategraph.eval.run.progress import IntervalProgress, TextProgress


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def row(method, correct=True, **extra):
    return {"method": method, "id": "q", "correct": correct, "input_tokens": 1,
            "output_tokens": 1, **extra}  # fmt: skip


def test_text_progress_prints_a_line_per_method_at_each_step_and_ignores_other_methods():
    lines: list[str] = []
    progress = TextProgress(every=0.5, write=lines.append)
    progress.start({"du": 4, "cot": 2}, [row("du")])  # one du row resumed: next line at 75%
    progress.advance(row("du", correct=False))  # du 2/4 = 50%: below 75%, no line
    progress.advance(row("mav"))  # not a method of this run
    assert lines == []
    progress.advance(row("du"))  # du 3/4 = 75%
    assert lines == ["du: 3/4 · acc 66.7% · 6 tok"]
    progress.advance(row("cot", error="Timeout"))  # cot 1/2 = 50%; a failed row adds no tokens
    progress.stop()
    assert lines[1:] == [
        "cot: 1/2 · acc — · 0 tok · 1 failed",
        "du: 3/4 · acc 66.7% · 6 tok",
        "cot: 1/2 · acc — · 0 tok · 1 failed",
    ]


def test_a_line_at_most_every_interval_with_counts_accuracy_and_eta():
    lines, clock = [], Clock()
    progress = IntervalProgress(30, write=lines.append, clock=clock)
    progress.start({"du": 4, "cot": 4}, [row("du")])  # one du row resumed
    assert lines == ["eval: 7 of 8 rows to run (1 resumed)"]
    clock.now = 10
    progress.advance(row("du", correct=False))
    assert len(lines) == 1  # 10 s < 30 s: no line yet
    clock.now = 31
    progress.advance(row("cot", error="Timeout"))
    # 3 of 8 done; 2 new rows in 31 s, 5 left -> 77.5 s
    assert lines[-1] == (
        "eval: 3/8 rows · du 2/4 acc 50.0% · cot 1/4 acc — · 1 failed · 0m31s elapsed · ETA 1m18s"
    )
    clock.now = 40
    progress.advance(row("cot"))
    assert len(lines) == 2  # 9 s since the last line
    progress.stop()
    assert lines[-1].startswith("eval: 4/8 rows") and "0m40s elapsed" in lines[-1]


@pytest.mark.slow
def test_a_piped_eval_prints_plain_lines_while_it_runs(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DEBATEGRAPH_PROGRESS_SECONDS": "0"}
    args = ["eval", "--method", "cot", "--dataset", "arithmetic", "--limit", "3", "--out",
            str(tmp_path / "run")]  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "debategraph", *args], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("eval: ")]
    assert lines[0] == "eval: 3 of 3 rows to run (0 resumed)"
    assert [line.split(" rows")[0] for line in lines[1:]] == [
        "eval: 1/3", "eval: 2/3", "eval: 3/3", "eval: 3/3",
    ]  # fmt: skip
    assert "\x1b[" not in done.stderr  # no terminal control codes in a log
    quiet = subprocess.run([sys.executable, "-m", "debategraph", *args, "--quiet"],
                           capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert "eval: " not in quiet.stderr
