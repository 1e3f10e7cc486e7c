"""What ``report --no-plots`` costs at the scale of a study, against a streaming floor.

Runs a small simulated ``eval`` (``du`` and ``mav``, with the budget arm ``sc@du~tokens``) for
template rows, pads every turn's text so a row is about ``--row-kib`` KiB (a real
model's replies are longer than the simulated model's), and writes ``N`` rows per size as
``eval`` writes them (turns and texts; ``--no-texts`` drops the texts): the template rows
cloned over items and five seeds, the ids varied and about a third of the answers turned wrong.

Each size then runs, in fresh processes, ``debategraph report DIR --no-plots`` and the floor:
a minimal script that reads the file once, decoding only the fields its tables need, and
computes what the report's headline tables do (per-arm accuracy with Wilson intervals, tokens
and calls per item, per-seed accuracy, and the report's paired comparisons: each debate and
its round-0 vote, the budget arm and its debate, each with a 10,000-resample bootstrap and a
sign-flip test). The floor decodes with a narrow ``msgspec`` struct (the texts skipped, never
built); a second floor (``json floor``) computes the same with the standard library's
``json.loads``, as the streaming script of issue 38's first measurement did (3.9 s CPU at
50,000 rows there). Each figure is the child's CPU seconds (user + system) and peak RSS
(``ru_maxrss`` of that child alone).

``--arms`` replaces the template run's arms (e.g. ``"--method sid-et --option mode=record"``),
``--report-args`` adds flags to ``report`` (e.g. ``"--decision majority"``), and ``--also SRC``
measures ``report`` once more with ``PYTHONPATH=SRC`` (another checkout's ``src``) on the same
file, right after: a before and after on one machine at one load.

Usage: python bench/report_scale.py [--sizes 10000,50000,300000] [--row-kib 10]
       [--no-texts] [--arms ARGS] [--report-args ARGS] [--also SRC]
       [--out bench/RESULTS-report-scale.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SEEDS = 5
ARMS = ["--method", "du", "--method", "mav", "--match-budget", "tokens"]

MEASURE = r"""
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
if done.returncode:
    raise SystemExit(done.stderr[-3000:])
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu_s": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024}))
"""

FLOOR = r"""
import math, sys
from collections import defaultdict
import msgspec
from debategraph.eval.analysis.stats import paired_bootstrap, sign_flip_test
from debategraph.eval.analysis.summary_fields import wilson_interval


class Turn(msgspec.Struct):
    round: int = 0
    answer: object = None


class Figures(msgspec.Struct):
    method: str
    id: str
    seed: int = 0
    correct: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    reference: object = None
    turns: list[Turn] = []


decode = msgspec.json.Decoder(Figures).decode
n = defaultdict(int)
right = defaultdict(int)
tokens = defaultdict(int)
calls = defaultdict(int)
per_seed = defaultdict(lambda: [0, 0])
scores = defaultdict(dict)  # arm -> (item, seed) -> 0/1
with open(sys.argv[1], "rb") as rows:
    for line in rows:
        row = decode(line)
        arm, key = row.method, (row.id, row.seed)
        n[arm] += 1
        right[arm] += row.correct
        tokens[arm] += row.input_tokens + row.output_tokens
        calls[arm] += row.calls
        per_seed[arm, row.seed][0] += row.correct
        per_seed[arm, row.seed][1] += 1
        scores[arm][key] = int(row.correct)
        first = [t.answer for t in row.turns if t.round == 0]
        if arm == "du" and first:
            vote = max(set(map(str, first)), key=[str(a) for a in first].count)
            scores["du@r0"][key] = int(vote == str(row.reference))
"""


TABLES = r"""
table = {
    arm: (right[arm] / n[arm], wilson_interval(right[arm], n[arm]), tokens[arm] / n[arm])
    for arm in n
}
for a, b in (("du", "du@r0"), ("sc@du~tokens", "du")):
    items = defaultdict(list)
    for key, score in scores[a].items():
        if key in scores[b]:
            items[key[0]].append(score - scores[b][key])
    differences = [sum(d) / len(d) for d in items.values()]
    paired_bootstrap(differences, resamples=10_000)
    sign_flip_test(differences, resamples=10_000)
print(len(table))
"""
"""The floors' tables from their per-arm counts and per-item scores."""

FLOOR += TABLES


FLOOR_JSON = r"""
import sys
from collections import defaultdict
from json import loads
from debategraph.eval.analysis.stats import paired_bootstrap, sign_flip_test
from debategraph.eval.analysis.summary_fields import wilson_interval

n = defaultdict(int)
right = defaultdict(int)
tokens = defaultdict(int)
calls = defaultdict(int)
per_seed = defaultdict(lambda: [0, 0])
scores = defaultdict(dict)  # arm -> (item, seed) -> 0/1
with open(sys.argv[1], "rb") as rows:
    for line in rows:
        row = loads(line)
        arm, seed = row["method"], row.get("seed", 0)
        key, correct = (row["id"], seed), bool(row.get("correct"))
        n[arm] += 1
        right[arm] += correct
        tokens[arm] += row.get("input_tokens", 0) + row.get("output_tokens", 0)
        calls[arm] += row.get("calls", 0)
        per_seed[arm, seed][0] += correct
        per_seed[arm, seed][1] += 1
        scores[arm][key] = int(correct)
        first = [t.get("answer") for t in row.get("turns", ()) if t.get("round") == 0]
        if arm == "du" and first:
            vote = max(set(map(str, first)), key=[str(a) for a in first].count)
            scores["du@r0"][key] = int(vote == str(row.get("reference")))
"""
FLOOR_JSON += TABLES
"""The same floor reading each line with the standard library's ``json.loads`` (every field
built, texts included), as the streaming script of issue 38's first measurement did."""


def templates(
    row_kib: float, folder: Path, arms: list[str] | None = None
) -> list[dict[str, object]]:
    """One row per arm of a small simulated run, each padded to about ``row_kib`` KiB."""
    out = folder / "template"
    command = [sys.executable, "-m", "debategraph.cli", "eval", *(arms or ARMS), "--dataset"]
    command += ["arithmetic", "--limit", "1", "--quiet", "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True)
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    words = "so the total is the sum of the parts, checked once more. "
    for row in rows:
        turns = row.get("turns") or []
        assert isinstance(turns, list)
        bare = len(json.dumps({**row, "turns": [{**t, "text": ""} for t in turns]}))
        pad = max(0, int((row_kib * 1024 - bare) / max(1, len(turns))))
        for turn in turns:
            turn["text"] = (words * (pad // len(words) + 1))[:pad]
    return rows


def write_rows(rows: list[dict[str, object]], count: int, folder: Path, *, texts: bool) -> int:
    """``count`` rows (template rows over items and seeds); returns the bytes written."""
    folder.mkdir(parents=True)
    parts = []
    for row in rows:
        kept = dict(row)
        if not texts:
            kept["turns"] = [
                {k: v for k, v in t.items() if k != "text"} for t in row.get("turns") or ()
            ]
        kept.pop("seed", None)
        line = json.dumps({**kept, "id": "\x00"})
        head, tail = line.split('"\\u0000"')
        wrong = head.replace('"correct": true', '"correct": false')
        parts.append((head, wrong, tail))
    with (folder / "results.jsonl").open("w", encoding="utf-8") as out:
        written = 0
        item = 0
        while written < count:
            for seed in range(SEEDS):
                for k, (head, wrong, tail) in enumerate(parts):
                    if written == count:
                        break
                    start = wrong if (item * 7 + seed * 3 + k) % 3 == 0 else head
                    out.write(f'{start}"item-{item:07d}", "seed": {seed}{tail}\n')
                    written += 1
            item += 1
    return (folder / "results.jsonl").stat().st_size


def measure(command: list[str], src: str | None = None) -> dict[str, float]:
    """CPU seconds and peak RSS of ``command`` run in a fresh process (``PYTHONPATH=src``)."""
    env = None if src is None else {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if done.returncode:
        raise SystemExit(f"{' '.join(command[:4])} failed: {done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,300000")
    parser.add_argument("--row-kib", type=float, default=10.0)
    parser.add_argument("--no-texts", action="store_true")
    parser.add_argument("--arms", help="eval arguments of the template run")
    parser.add_argument("--report-args", default="", help="flags added to report")
    parser.add_argument("--also", help="another src folder whose report is measured too")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows = templates(args.row_kib, folder, shlex.split(args.arms) if args.arms else None)
        for size in (int(s) for s in args.sizes.split(",")):
            run = folder / f"run-{size}"
            written = write_rows(rows, size, run, texts=not args.no_texts)
            cli = [sys.executable, "-m", "debategraph.cli"]
            command = [*cli, "report", str(run), "--no-plots", *shlex.split(args.report_args)]
            report = measure(command)
            floor = measure([sys.executable, "-c", FLOOR, str(run / "results.jsonl")])
            stdlib = measure([sys.executable, "-c", FLOOR_JSON, str(run / "results.jsonl")])
            if args.also:
                other = measure(command, args.also)
                also = f"{other['cpu_s']:.1f} | {other['peak_mib']:.0f} | "
            ratio = report["cpu_s"] / floor["cpu_s"]
            line = (
                f"| {size:,} | {written / 2**20:,.0f} | {report['cpu_s']:.1f} | "
                f"{report['peak_mib']:.0f} | {floor['cpu_s']:.1f} | {floor['peak_mib']:.0f} | "
                f"{ratio:.1f}x | {stdlib['cpu_s']:.1f} | {stdlib['peak_mib']:.0f} | "
                f"{report['cpu_s'] / stdlib['cpu_s']:.1f}x | "
                f"{also if args.also else ''}{os.getloadavg()[0]:.1f} |"
            )
            print(line, flush=True)
            lines.append(line)
            shutil.rmtree(run)
    header = [
        f"`python bench/report_scale.py --sizes {args.sizes} --row-kib {args.row_kib:g}"
        + (" --no-texts" if args.no_texts else "")
        + (f" --arms {shlex.quote(args.arms)}" if args.arms else "")
        + (f" --report-args {shlex.quote(args.report_args)}" if args.report_args else "")
        + (f" --also {shlex.quote(args.also)}" if args.also else "")
        + f"` (Python {platform.python_version()}, {os.cpu_count()} CPU(s), shared with other "
        "work: the load average is beside each size).",
        "",
        "| Rows | File MiB | Report CPU s | Report peak MiB | Floor CPU s | Floor peak MiB "
        "| Report / floor CPU | json floor CPU s | json floor peak MiB | Report / json floor CPU |"
        + (" Also CPU s | Also peak MiB |" if args.also else "")
        + " Load |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        + ("---:|---:|" if args.also else "")
        + "---:|",
    ]
    text = "\n".join(header + lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
