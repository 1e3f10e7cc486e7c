"""``report`` writes byte-identical report.md and summary.json to the golden files.

The goldens were made by the code of the release before the typed row and the streaming
readers: the stored runs of docs/results, and a fresh seeded run of several methods and
seeds with budget arms (sc@M at M's tokens). Wall times and latencies are the figures a run
cannot repeat, so the fresh run's are set from each row's and turn's place before the report
reads them.
Regenerate deliberately, when a report is meant to change, with
``python -m tests.test_report_golden`` (from the repository root).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from debategraph.cli import app

GOLDEN = Path(__file__).parent / "golden"
RESULTS = Path(__file__).parents[1] / "docs" / "results" / "gsm8k" / "runs"
STORED = ("real", "simulated")
EVAL_ARGS = ["eval", "--method", "du", "--method", "mav", "--match-budget", "tokens"]
EVAL_ARGS += ["--dataset", "arithmetic", "--limit", "6", "--seeds", "0,1", "--quiet"]
REPORTS = {
    "plain": [],
    "priced": ["--prices", "0.15,0.60", "--baseline", "mav", "--holm", "--resamples", "500"],
}
OUTPUTS = ("report.md", "summary.json")
runner = CliRunner()


def fresh_run(folder: Path) -> Path:
    """A seeded multi-arm run with budget arms, its timings fixed by position."""
    out = folder / "fresh"
    result = runner.invoke(app, [*EVAL_ARGS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    path = out / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for k, row in enumerate(rows):
        row["wall_s"] = round(0.25 + 0.01 * k, 4)
        for t, turn in enumerate(row.get("turns") or ()):
            turn["latency_s"] = round(0.01 + 0.001 * t, 4)
        for part in (row.get("usage_by_source") or {}).values():
            if "latency_s" in part:
                part["latency_s"] = round(0.05 + 0.001 * k, 4)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return out


def report(results: Path, out: Path, flags: list[str]) -> dict[str, bytes]:
    """The bytes of ``report --no-plots`` of ``results`` written to ``out``."""
    result = runner.invoke(app, ["report", str(results), "--out", str(out), "--no-plots", *flags])
    assert result.exit_code == 0, result.output
    return {name: (out / name).read_bytes() for name in OUTPUTS}


def make(case: str, tmp: Path) -> dict[str, bytes]:
    """The bytes the report writes today for one golden case."""
    kind, name = case.split("-", 1)
    if kind == "docs":
        copy = tmp / name
        shutil.copytree(RESULTS / name, copy)
        return report(copy, tmp / f"out-{name}", [])
    fresh = tmp / "fresh" if (tmp / "fresh").is_dir() else fresh_run(tmp)
    return report(fresh, tmp / f"out-fresh-{name}", REPORTS[name])


CASES = [f"docs-{n}" for n in STORED] + [f"fresh-{n}" for n in REPORTS]


def cases(tmp: Path) -> dict[str, dict[str, bytes]]:
    """Every golden case: its name and the bytes the report writes today."""
    return {case: make(case, tmp) for case in CASES}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("golden")


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=[] if c == "docs-simulated" else [pytest.mark.slow]) for c in CASES],
)
def test_report_matches_golden(folder: Path, case: str) -> None:
    made = make(case, folder)
    for output in OUTPUTS:
        expected = (GOLDEN / case / output).read_bytes()
        assert made[output] == expected, f"{case}/{output} differs from tests/golden"


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for case, files in cases(Path(tmp)).items():
            (GOLDEN / case).mkdir(parents=True, exist_ok=True)
            for output, data in files.items():
                (GOLDEN / case / output).write_bytes(data)
                print(f"wrote tests/golden/{case}/{output}", file=sys.stderr)
