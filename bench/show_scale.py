"""``debategraph show DIR ITEM`` on a large run: wall seconds and peak memory of one lookup.

Makes a results directory of ``--rows`` rows as ``eval`` writes them (turns and texts;
:mod:`bench.synthetic_results`), then runs ``debategraph show DIR ITEM`` in fresh processes:
first with no index beside ``results.jsonl`` (the lookup makes it in one pass), then with
the index kept (``--repeats`` times, items spread over the file), and reports each run's wall
seconds and peak RSS (``ru_maxrss`` of the child).

Usage: python bench/show_scale.py [--rows 300000] [--repeats 3] [--out bench/RESULTS-show.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_results import METHODS, make_results

_CHILD = """
import contextlib, io, resource, runpy, sys
sys.argv = ["debategraph", "show", sys.argv[1], sys.argv[2]]
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    try:
        runpy.run_module("debategraph", run_name="__main__")
    except SystemExit as stop:
        assert not stop.code, stop.code
assert "answer:" in printed.getvalue(), printed.getvalue()[-300:]
own = resource.getrusage(resource.RUSAGE_SELF)
print(own.ru_maxrss, own.ru_utime + own.ru_stime)
"""


def show(folder: Path, item: str) -> tuple[float, float, float]:
    """Wall and CPU seconds and peak RSS (MiB) of one ``debategraph show``, a fresh process."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(folder), item],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"show failed: {done.stderr[-800:]}")
    peak, cpu = done.stdout.strip().splitlines()[-1].split()
    return wall, float(cpu), float(peak) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("RESULTS-show.md"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        ids = make_results(folder, args.rows)
        size = (folder / "results.jsonl").stat().st_size
        rows = len(ids) * len(METHODS)
        first = show(folder, ids[len(ids) // 2])
        index_size = (folder / "results.jsonl.index").stat().st_size
        kept = [show(folder, ids[(k * 7919) % len(ids)]) for k in range(args.repeats)]
    lines = [
        "# show on a large run",
        "",
        f"`python bench/show_scale.py --rows {args.rows} --repeats {args.repeats}` (Python "
        f"{platform.python_version()}, {os.cpu_count()} CPU(s), shared machine): {rows:,} rows "
        f"({len(ids):,} items x {len(METHODS)} arms) as `eval` writes them, turns and texts, "
        f"{size / 2**20:,.0f} MiB of JSON lines. Each `debategraph show DIR ITEM` runs in a "
        "fresh process (interpreter start and imports included); CPU seconds and peak RSS are "
        "the child's own.",
        "",
        "| Lookup | Wall s | CPU s | Peak RSS MiB |",
        "|---|---:|---:|---:|",
        f"| first (makes the index: {index_size / 2**20:,.1f} MiB) | {first[0]:.2f} "
        f"| {first[1]:.2f} | {first[2]:.0f} |",
        *(
            f"| index kept, repeat {k + 1} | {w:.2f} | {c:.2f} | {m:.0f} |"
            for k, (w, c, m) in enumerate(kept)
        ),
        "",
        "Before the index (issue 38): 11 s and 2,445 MiB at 50,000 such rows (every row read "
        "and held).",
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
