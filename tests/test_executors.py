"""Executors: jobs shared out among workers, engine flags, sweep keys, rows written once.

Nothing here starts Ray (``tests/test_ray.py`` does); choosing the Ray engine imports nothing
of Ray until it runs.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.datasets import load_dataset
from debategraph.eval.log.store import RESULTS_FILE
from debategraph.eval.run.executors import Job, LocalExecutor, RayExecutor, executor_for
from debategraph.eval.run.runner import Arm, evaluate
from debategraph.eval.run.sweep import SweepError, load_sweep

runner = CliRunner()


@pytest.mark.parametrize(
    ("concurrency", "workers", "slots"),
    [(10, 4, [3, 3, 2, 2]), (16, 2, [8, 8]), (3, 8, [1, 1, 1]), (5, 1, [5])],
)
def test_a_job_is_shared_out_whole(concurrency, workers, slots):
    shares = Job((), "arithmetic", concurrency, rps=6.0).shares(workers)
    assert [share.concurrency for share in shares] == slots
    assert sum(share.rps or 0 for share in shares) == pytest.approx(6.0)
    assert Job((), "x", concurrency).shares(workers)[0].rps is None


def test_engines_by_name():
    assert isinstance(executor_for(None), LocalExecutor)
    assert isinstance(executor_for("local"), LocalExecutor)
    ray = executor_for("ray", address="auto", workers=3)
    assert isinstance(ray, RayExecutor) and (ray.address, ray.workers) == ("auto", 3)
    with pytest.raises(ValueError, match="local, ray"):
        executor_for("spark")
    with pytest.raises(ValueError, match="go with --engine ray"):
        executor_for("local", workers=2)
    with pytest.raises(ValueError, match="at least 1"):
        executor_for("ray", workers=0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "spark"], "--engine (engine in a sweep file) must be one of local, ray"),
        (["--address", "auto"], "--address and --workers go with --engine ray"),
        (["--workers", "2"], "--address and --workers go with --engine ray"),
        (["--engine", "ray", "--workers", "0"], "--workers must be 1 to 100000, got 0"),
    ],
)
def test_engine_flags_are_checked_before_anything_runs(tmp_path, args, message):
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["eval", "--method", "cot", "--limit", "2", *args, "--out", str(out)]
    )
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())
    assert not out.exists()


def test_a_sweep_file_names_its_engine(tmp_path):
    path = tmp_path / "sweep.toml"
    body = 'dataset = "arithmetic"\n[arms.cot]\nmethod = "cot"\n'
    path.write_text('engine = "ray"\naddress = "10.0.0.5:6379"\nworkers = 8\n' + body)
    sweep = load_sweep(path)
    assert {k: sweep.run[k] for k in ("engine", "address", "workers")} == {
        "engine": "ray",
        "address": "10.0.0.5:6379",
        "workers": 8,
    }
    path.write_text('workers = "eight"\n' + body)
    with pytest.raises(SweepError, match="workers must be int"):
        load_sweep(path)
    path.write_text('engine = "spark"\n' + body)
    result = runner.invoke(app, ["eval", "--config", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "must be one of local, ray" in " ".join(result.stderr.split())


class Twice:
    """An executor that runs each unit here and hands every row back twice, as a cluster
    might after a worker died (the second copy must not be written)."""

    def check(self, job):
        LocalExecutor().check(job)

    async def run(self, job, work, deliver) -> int:
        units = list(work)

        def both(row) -> None:
            deliver(row)
            deliver(dict(row, answer="a second, different copy"))

        await LocalExecutor().run(job, iter(units), both)
        return 0


def test_a_row_handed_back_twice_is_written_once(tmp_path):
    items = load_dataset("arithmetic", limit=5, seed=3)
    arms = [Arm("cot", "cot"), Arm("mav", "mav", {"agents": 2})]
    reference = evaluate(items, arms, tmp_path / "local", dataset="arithmetic")
    outcome = evaluate(items, arms, tmp_path / "twice", dataset="arithmetic", executor=Twice())
    assert (outcome.written, outcome.count, outcome.repeated) == (10, 10, 10)
    assert [r["answer"] for r in outcome.rows] == [r["answer"] for r in reference.rows]
    assert len((tmp_path / "twice" / RESULTS_FILE).read_text().splitlines()) == 10


class Never:
    """An executor that must not be started (it would start a cluster)."""

    def check(self, job):
        pass

    async def run(self, job, work, deliver) -> int:
        raise AssertionError("started with nothing to run")


def test_a_finished_run_starts_no_executor(tmp_path):
    items = load_dataset("arithmetic", limit=3, seed=3)
    arms = [Arm("cot", "cot")]
    first = evaluate(items, arms, tmp_path, dataset="arithmetic")
    again = evaluate(items, arms, tmp_path, dataset="arithmetic", executor=Never())
    assert (again.resumed, again.written, again.rows) == (3, 0, first.rows)
