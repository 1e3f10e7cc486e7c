"""``debategraph export DIR --to inspect`` on a large run: CPU seconds and peak memory.

Makes a results directory of ``--rows`` rows as ``eval`` writes them (turns and texts;
:mod:`synthetic_results`), then runs the export in a fresh process and reports its wall and
CPU seconds, peak RSS and the logs' size. With ``--baseline SRC`` it runs the same export with
another checkout's ``src`` first (e.g. the release before the export went arm by arm), on the
same rows, in the same run.

Usage: python bench/export_scale.py [--rows 10000] [--baseline /path/to/other/src]
       [--out bench/RESULTS-export.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_results import METHODS, make_results

_CHILD = """
import contextlib, io, resource, runpy, sys
sys.argv = ["debategraph", "export", sys.argv[1], "--to", "inspect", "--out", sys.argv[2]]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        runpy.run_module("debategraph", run_name="__main__")
    except SystemExit as stop:
        assert not stop.code, stop.code
own = resource.getrusage(resource.RUSAGE_SELF)
print(own.ru_maxrss, own.ru_utime + own.ru_stime)
"""


def export(folder: Path, logs: Path, src: str | None) -> tuple[float, float, float, float]:
    """Wall s, CPU s, peak RSS MiB and the logs' MiB of one export, in a fresh process."""
    shutil.rmtree(logs, ignore_errors=True)
    env = {**os.environ, **({"PYTHONPATH": src} if src else {})}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(folder), str(logs)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"export failed: {done.stderr[-800:]}")
    peak, cpu = done.stdout.strip().splitlines()[-1].split()
    size = sum(f.stat().st_size for f in logs.glob("*.eval")) / 2**20
    return wall, float(cpu), float(peak) / 1024, size


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--baseline", help="another checkout's src directory, run first")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("RESULTS-export.md"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "run"
        ids = make_results(folder, args.rows)
        size = (folder / "results.jsonl").stat().st_size / 2**20
        measured = []
        if args.baseline:
            measured.append(
                ("baseline (`--baseline`)", export(folder, Path(tmp) / "a", args.baseline))
            )
        measured.append(("this checkout", export(folder, Path(tmp) / "b", None)))
    rows = len(ids) * len(METHODS)
    lines = [
        "# export --to inspect on a large run",
        "",
        f"`python bench/export_scale.py --rows {args.rows}` (Python "
        f"{platform.python_version()}, {os.cpu_count()} CPU(s), shared machine): {rows:,} rows "
        f"({len(ids):,} items x {len(METHODS)} arms) as `eval` writes them, turns and texts, "
        f"{size:,.0f} MiB of JSON lines. Each export runs in a fresh process; CPU seconds and "
        "peak RSS are the child's own.",
        "",
        "| Export | Wall s | CPU s | Peak RSS MiB | Logs MiB |",
        "|---|---:|---:|---:|---:|",
        *(
            f"| {name} | {w:.1f} | {c:.1f} | {m:,.0f} | {z:,.1f} |"
            for name, (w, c, m, z) in measured
        ),
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
