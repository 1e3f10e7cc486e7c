"""Answer extraction before and after a change: the debate tables' pass rates and parse time.

Two source trees are compared: the working tree's ``src`` ("after") and ``src`` of a git
revision ("before", extracted with ``git archive REV src``). Each runs in its own worker
process (``--worker SRC``) that imports ``debategraph`` from that tree, so both arms parse
the same replies with their own code:

* the debate-reply fixture table (``tests/fixtures/answers/debate_replies.txt``) and the
  held-out replies of issue 31 (``tests/fixtures/answers/heldout_peer_after.txt``): how many
  cases give the expected answer and source;
* the parse time of typical debate replies of about 1.7 kB (a GSM8K-style number reply that
  discusses its peers and ends with ``\\boxed{}`` and a confidence line, and a choice, a
  text and a math reply of the same shape): ``parse_answer`` called BATCH times per sample
  on distinct copies of the reply (so that no per-text cache serves a call), CPU time
  (``time.process_time``) and wall time per call; batches of the two arms interleaved
  (ABBA order), medians with the min-max spread over the rounds;
* the slowest of the 100 kB pathological inputs of the linear-time guard
  (``tests/pathological.py``; best of three, CPU time, each run reading the text afresh).

Usage: python bench/answers.py --base REV [--rounds 15] [--batch 300]
       [--out bench/RESULTS-answers.md]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import date
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# A debate reply as models write it: one line per paragraph, about 1.7 kB.
NUMBER_REPLY = (
    "\n\n".join(
        [
            "Let me go through the other agents' solutions before giving my own.",
            (
                "Solution from another agent: they computed 16 - 3 = 13 eggs and then 13 * $2 ="
                " $26. That skips the four eggs Janet uses for muffins, so $26 is too high."
            ),
            (
                "Agent 3 reached $18 with 16 - 3 - 4 = 9 eggs and 9 * $2 = $18. I agree with "
                "each step."
            ),
            (
                "My own working:\n"
                "1. The ducks lay 16 eggs per day.\n"
                "2. Janet eats 3 for breakfast, which leaves 16 - 3 = 13 eggs.\n"
                "3. She bakes muffins with 4 of them, which leaves 13 - 4 = 9 eggs.\n"
                "4. She sells each remaining egg for $2, so she makes 9 * 2 = $18 per day."
            ),
            (
                "Checking in another order: she uses 3 + 4 = 7 eggs, sells 16 - 7 = 9 eggs and "
                "earns 9 * $2 = $18. Both orders agree. The question asks for dollars per day "
                "at the market, not for a week, so no further multiplication is needed. The "
                "other agent's $26 would be right only if the muffins needed no eggs, which the"
                " question rules out; and a price of $2 per egg is already the price of one "
                "fresh duck egg, so no conversion is needed either."
            ),
            (
                "One more check on units: 9 eggs times 2 dollars per egg is 18 dollars, and the"
                " daily count of 16 eggs does not change from day to day, so the daily income "
                "is the same every day. Nothing in the question mentions broken eggs, gifts or "
                "eggs kept for the next day, so all 9 remaining eggs are sold. Agent 2's "
                "earlier figure of $224 multiplied the eggs by the meals, which has no meaning "
                "here."
            ),
            (
                'To be sure about the reading of "the remainder", I reread the question: it '
                "says she sells the remainder at the farmers' market daily, which means every "
                "egg left after breakfast and baking. So the remainder is the 9 eggs found "
                "above, not the 13 eggs left after breakfast alone, and the daily takings are "
                "$18 whatever the day of the week."
            ),
            ("The final answer is \\boxed{18}.\nConfidence: 0.9"),
        ]
    )
    + "\n"
)


VARIANTS = 64
"""How many distinct copies of a reply a batch cycles through (leading spaces differ)."""


def _reshape(reply: str, ending: str, swaps: dict[str, str]) -> str:
    body = reply.rsplit("The final answer is", 1)[0]
    for old, new in swaps.items():
        body = body.replace(old, new)
    return body + ending


SAMPLES = {
    "number": (NUMBER_REPLY, "number", None),
    "choice": (
        _reshape(NUMBER_REPLY, "My final choice is (B).\nConfidence: 0.9\n", {"$26": "(C)"}),
        "choice",
        4,
    ),
    "text": (
        _reshape(NUMBER_REPLY, "Answer: eighteen dollars\nConfidence: 0.9\n", {}),
        "text",
        None,
    ),
    "math": (_reshape(NUMBER_REPLY, "The final answer is $\\frac{36}{2}$.\n", {}), "math", None),
}


def worker(src: str) -> None:
    """Serve one arm: import debategraph from ``src`` and answer commands on stdin."""
    sys.path.insert(0, src)
    sys.path.insert(1, str(ROOT))
    from tests.debate_table import HELDOUT, TABLE, load_cases
    from tests.pathological import PATHOLOGICAL

    import debategraph
    from debategraph.policies.answers import parse_answer

    assert Path(debategraph.__file__).resolve().is_relative_to(Path(src).resolve())

    for line in sys.stdin:
        command, _, arg = line.strip().partition(" ")
        if command == "table":
            cases = load_cases(HELDOUT if arg == "heldout" else TABLE)
            passed = []
            for case in cases:
                found = parse_answer(case.reply, case.task, case.options)
                passed.append((found.answer, found.source) == (case.answer, case.source))
            result: Any = {
                "cases": len(cases),
                "passed": sum(passed),
                "after_cases": sum(c.after for c in cases),
                "after_passed": sum(p for p, c in zip(passed, cases, strict=True) if c.after),
                "failed": [c.id for p, c in zip(passed, cases, strict=True) if not p],
            }
        elif command == "time":
            batch = int(arg)
            result = {}
            for name, (reply, task, options) in SAMPLES.items():
                # Distinct texts, so that no per-text cache serves a call: each reply is read
                # once, as in a debate.
                replies = [" " * (i % VARIANTS) + reply for i in range(batch)]
                cpu, wall = time.process_time(), time.perf_counter()
                for text in replies:
                    parse_answer(text, task, options)  # type: ignore[arg-type]
                result[name] = (
                    (time.process_time() - cpu) / batch,
                    (time.perf_counter() - wall) / batch,
                )
        elif command == "guard":
            worst = (0.0, "")
            try:
                from debategraph.policies.peer_text import peer_labels

                fresh = peer_labels.cache_clear
            except ImportError:  # a tree from before the peer-label cache

                def fresh() -> None:
                    pass

            for name, text in PATHOLOGICAL.items():
                for task in ("number", "choice", "text", "math"):
                    best = float("inf")
                    for _ in range(3):
                        fresh()
                        cpu = time.process_time()
                        parse_answer(text, task, 4)  # type: ignore[arg-type]
                        best = min(best, time.process_time() - cpu)
                    worst = max(worst, (best, f"{name}/{task}"))
            result = {"seconds": worst[0], "input": worst[1]}
        else:
            raise SystemExit(f"unknown command {command!r}")
        print(json.dumps(result), flush=True)


class Arm:
    """A worker process for one source tree."""

    def __init__(self, label: str, src: Path) -> None:
        self.label = label
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(src)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, command: str) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def extract_src(revision: str, into: Path) -> Path:
    """``src`` of a git revision, extracted under ``into``."""
    archive = subprocess.run(
        ["git", "archive", revision, "src"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _us(values: list[float]) -> str:
    return (
        f"{statistics.median(values) * 1e6:.0f} ({min(values) * 1e6:.0f}–{max(values) * 1e6:.0f})"
    )


def report(args: argparse.Namespace, base: str, results: dict[str, Any]) -> str:
    lines = [
        "# Answer extraction: debate-reply table and parse time, before and after",
        "",
        f"Command: `python bench/answers.py --base {args.base} --rounds {args.rounds} "
        f"--batch {args.batch}` · {date.today()} · Python {platform.python_version()} · "
        f"{platform.machine()}, 2 cores shared with other jobs · before = `src` of "
        f"{base} (`git archive`), after = the working tree's `src`; each arm in its own "
        "worker process, batches interleaved (ABBA), median (min–max) over the rounds.",
        "",
        "## Debate-reply table (`tests/fixtures/answers/debate_replies.txt`)",
        "",
        "| arm | cases | pass | pass % | peer after own declaration: pass |",
        "|---|---:|---:|---:|---:|",
    ]
    for label in ("before", "after"):
        t = results[label]["table"]
        lines.append(
            f"| {label} | {t['cases']} | {t['passed']} | {100 * t['passed'] / t['cases']:.1f} "
            f"| {t['after_passed']}/{t['after_cases']} |"
        )
    for label in ("before", "after"):
        failed = results[label]["table"]["failed"]
        if failed:
            names = ", ".join(f"`{f}`" for f in failed)
            lines += ["", f"Failing {label} ({len(failed)}): {names}."]
    lines += [
        "",
        "## Held-out replies (`tests/fixtures/answers/heldout_peer_after.txt`)",
        "",
        "The speaker declares its answer, then describes or quotes a peer's solution that "
        'reaches another answer (often with that solution\'s own closing "the answer is" '
        "line). A case passes when both the answer and its source are as expected.",
        "",
        "| arm | cases | pass | misread |",
        "|---|---:|---:|---:|",
    ]
    for label in ("before", "after"):
        t = results[label]["heldout"]
        lines.append(f"| {label} | {t['cases']} | {t['passed']} | {t['cases'] - t['passed']} |")
    for label in ("before", "after"):
        failed = results[label]["heldout"]["failed"]
        if failed:
            names = ", ".join(f"`{f}`" for f in failed)
            lines += ["", f"Misread {label} ({len(failed)}): {names}."]
    lines += [
        "",
        f"## Parse time of a typical reply (µs per `parse_answer` call, {args.batch} calls per "
        f"batch, {args.rounds} rounds)",
        "",
        "| reply | chars | before CPU | after CPU | before wall | after wall | after/before CPU |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, (reply, _, _) in SAMPLES.items():
        before, after = results["before"]["time"][name], results["after"]["time"][name]
        ratio = statistics.median(after["cpu"]) / statistics.median(before["cpu"])
        lines.append(
            f"| {name} | {len(reply):,} | {_us(before['cpu'])} | {_us(after['cpu'])} | "
            f"{_us(before['wall'])} | {_us(after['wall'])} | {ratio:.2f}x |"
        )
    lines += [
        "",
        "## Linear-time guard (`tests/test_answer_speed.py`, 100 kB inputs, budget 50 ms CPU)",
        "",
        "| arm | slowest input/task | best-of-3 CPU ms |",
        "|---|---|---:|",
    ]
    for label in ("before", "after"):
        g = results[label]["guard"]
        lines.append(f"| {label} | {g['input']} | {g['seconds'] * 1000:.1f} |")
    lines.append(
        "\nThe guard's inputs are those of the after tree's `tests/pathological.py`, so the "
        "before arm may parse inputs it was not written against."
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--base", help="git revision of the 'before' arm")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--batch", type=int, default=300)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS-answers.md")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    if not args.base:
        parser.error("--base REV is required (the revision to compare with)")
    base = subprocess.run(
        ["git", "rev-parse", "--short", args.base],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        arms = {
            "before": Arm("before", extract_src(base, Path(tmp))),
            "after": Arm("after", ROOT / "src"),
        }
        results: dict[str, Any] = {
            label: {"time": {name: {"cpu": [], "wall": []} for name in SAMPLES}} for label in arms
        }
        try:
            for label, arm in arms.items():
                results[label]["table"] = arm.ask("table")
                results[label]["heldout"] = arm.ask("table heldout")
                arm.ask(f"time {args.batch}")  # warm-up
            for round_ in range(args.rounds):
                order = ["before", "after"] if round_ % 2 == 0 else ["after", "before"]
                for label in order:
                    for name, (cpu, wall) in arms[label].ask(f"time {args.batch}").items():
                        results[label]["time"][name]["cpu"].append(cpu)
                        results[label]["time"][name]["wall"].append(wall)
            for label, arm in arms.items():
                results[label]["guard"] = arm.ask("guard")
        finally:
            for arm in arms.values():
                arm.close()
    text = report(args, base, results)
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
