"""Ctrl-C during a Ray eval: what the workers' cancelled debates spent reaches the ledger."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import pytest

from debategraph.eval.run.cut_short import read_cut_short

from .openai_server import serve
from .test_interrupted_spend import in_rows, served, settle
from .test_ray import RAY_NOISE, quiet_env

pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.slow]


@pytest.fixture
def server(loopback):
    with serve(seed=3, latency=0.05) as running:
        yield running


def command(server, out):
    return [sys.executable, "-m", "debategraph", "eval", "--method", "du", "--dataset",
            "arithmetic", "--limit", "12", "--model", "sim-0", "--base-url", server.base_url,
            "--concurrency", "4", "--engine", "ray", "--workers", "2", "--out", str(out),
            "--quiet"]  # fmt: skip


def test_tokens_of_rows_and_of_debates_cut_short_on_workers_equal_the_servers(server, tmp_path):
    env = {**quiet_env(), "OPENAI_API_KEY": "sk-test"}
    out = tmp_path / "run"
    proc = subprocess.Popen(command(server, out), stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 180
    while server.stats()["completed"] < 40 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    settle(server)
    rows, tokens = in_rows(out)
    cut = read_cut_short(out)
    assert len(rows) < 12 and cut["debates"] > 0  # the interrupt landed mid-run
    assert (tokens[0] + cut["input_tokens"], tokens[1] + cut["output_tokens"]) == served(server)
    assert f"{cut['debates']} debate(s) cut short had spent {cut['input_tokens']} input" in err
    # Over HTTP as well, Ctrl-C ends with the one line: no raw Ray line, warning or traceback.
    assert err.splitlines()[-1].startswith("interrupted: finished rows are saved"), err
    assert not RAY_NOISE.search(err), err
    assert not re.search(r"Warning|Traceback|coroutine .* was never awaited", err), err

    done = subprocess.run(command(server, out), capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows, tokens = in_rows(out)
    assert len({r["id"] for r in rows}) == len(rows) == 12
    assert read_cut_short(out) == cut
    assert (tokens[0] + cut["input_tokens"], tokens[1] + cut["output_tokens"]) == served(server)
