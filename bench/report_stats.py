"""What the paired comparisons cost the report on a large run: time and peak memory.

Synthesises the rows of a run of ``--items`` items x 6 arms x ``--seeds`` seeds (three
debates with three agents and three rounds, ``cot``, ``sc``, and a token-matched
``sc@groupdebate~tokens``; each row carries a ``seed``), writes them as ``results.jsonl``, and
runs the report (``write_report`` without plots, as ``debategraph report --no-plots`` does) in
a fresh process, as it is and with the comparisons switched off, interleaved ``--repeats``
times (the machine is shared: the spread between repeats is the noise). Each run reports
wall time and peak resident memory (the process's ``ru_maxrss``); the comparisons' own time
is measured once more in-process on the loaded rows. The report makes 4 comparisons (three
debates against their round-0 vote, the budget arm against its debate), each with 10,000
bootstrap resamples and, with several seeds, a 10,000-draw Monte Carlo sign-flip test.

Usage: python bench/report_stats.py [--items 10000] [--seeds 5] [--repeats 2]
       [--out bench/RESULTS-report.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ARMS = ("cot", "sc", "du", "groupdebate", "sc@groupdebate~tokens", "svr")
DEBATES = {"du": 0.06, "groupdebate": 0.04, "svr": 0.05}  # what debating adds to the skill
SKILL = {"cot": 0.55, "sc": 0.62, "sc@groupdebate~tokens": 0.64}

RUN = """
import json, resource, sys, time
from debategraph.eval.report import writer as report
if sys.argv[2] == "off":
    report.paired_comparisons = lambda rows, **kwargs: []
start = time.perf_counter()
report.write_report(sys.argv[1], plots=False)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"wall_s": wall, "peak_mib": peak}))
"""


def synthesise(items: int, seeds: int, path: Path) -> int:
    """Write the rows; returns how many."""
    rng = random.Random(0)
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for k in range(items):
            ease = rng.random()  # the same item is easy or hard for every arm
            for seed in range(seeds):
                for arm in ARMS:
                    base = SKILL.get(arm, 0.58)
                    agents = [rng.random() < base + 0.3 * (ease - 0.5) for _ in range(3)]
                    first = ["7" if right else str(rng.randint(1, 6)) for right in agents]
                    rounds = [first]
                    final_right = agents[0]
                    if arm in DEBATES:
                        final_right = rng.random() < base + DEBATES[arm] + 0.3 * (ease - 0.5)
                        answer = "7" if final_right else first[0] if first[0] != "7" else "3"
                        rounds += [[answer, first[1], answer], [answer] * 3]
                    row = {
                        "method": arm,
                        "id": f"bench-{k:05d}",
                        "seed": seed,
                        "dataset": "synthetic",
                        "source": "simulated",
                        "task": "number",
                        "answer": rounds[-1][0],
                        "reference": "7",
                        "correct": rounds[-1][0] == "7",
                        "abstained": False,
                        "input_tokens": 900 * len(rounds),
                        "output_tokens": 300 * len(rounds),
                        "calls": 3 * len(rounds),
                        "ncomm": 6 * (len(rounds) - 1),
                        "rounds": len(rounds) - 1,
                        "wall_s": 0.1,
                        "round_answers": rounds,
                    }
                    if arm.startswith("sc@"):
                        row.update(budget_of="groupdebate", budget="tokens")
                    out.write(json.dumps(row) + "\n")
                    count += 1
    return count


def run_report(folder: Path, mode: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(folder), mode],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    from debategraph.eval.analysis.comparisons import paired_comparisons
    from debategraph.eval.analysis.results import load_rows
    from debategraph.eval.analysis.stats import paired_bootstrap, sign_flip_test

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows = synthesise(args.items, args.seeds, folder / "results.jsonl")
        size = (folder / "results.jsonl").stat().st_size / 2**20
        runs: dict[str, list[dict[str, float]]] = {"on": [], "off": []}
        for _ in range(args.repeats):
            for mode in runs:
                runs[mode].append(run_report(folder, mode))
        loaded = load_rows(folder).rows
        start = time.perf_counter()
        found = paired_comparisons(loaded)
        alone = time.perf_counter() - start
    spread = random.Random(1)
    differences = [spread.randint(-args.seeds, args.seeds) / args.seeds for _ in range(args.items)]
    start = time.perf_counter()
    for _ in found:
        paired_bootstrap(differences)
        sign_flip_test(differences)
    math_only = time.perf_counter() - start
    lines = [
        "# Report with paired comparisons",
        "",
        f"`python bench/report_stats.py {' '.join(sys.argv[1:])}` "
        f"(Python {platform.python_version()}, {os.cpu_count()} CPU(s), shared machine): "
        f"{rows:,} synthetic rows ({args.items:,} items x {len(ARMS)} arms x {args.seeds} "
        f"seeds, {size:.0f} MiB of JSON lines); the report without plots in a fresh "
        f"process, each mode {args.repeats} time(s), interleaved. {len(found)} comparisons, "
        "each 10,000 bootstrap resamples"
        + (" and a 10,000-draw sign-flip test." if args.seeds > 1 else " and McNemar."),
        "",
        "| Report | Wall s (each run) | Peak RSS MiB |",
        "|---|---:|---:|",
        *(
            f"| {label} | {', '.join(format(r['wall_s'], '.1f') for r in runs[mode])} | "
            f"{max(r['peak_mib'] for r in runs[mode]):,.0f} |"
            for mode, label in (("on", "with comparisons"), ("off", "comparisons switched off"))
        ),
        "",
        f"The comparisons alone, on the loaded rows: {alone:.2f} s "
        f"({', '.join(c['test'] for c in found[:1])}; "
        f"n = {found[0]['n']:,} items, {found[0]['pairs']:,} pairs each), of which the "
        f"bootstrap and the test take {math_only:.2f} s ({len(found)} x `paired_bootstrap` and "
        f"`sign_flip_test` on {args.items:,} per-item differences); the rest is pairing the "
        "rows and grading the debates' round-0 votes.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
