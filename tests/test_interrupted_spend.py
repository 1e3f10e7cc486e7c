"""Ctrl-C during an eval: cut-short debates' spend is logged; rows + log = the server's count."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from debategraph.eval.log.files import INTERRUPTED_FILE
from debategraph.eval.log.ledger import read_ledger, spend_on_record
from debategraph.eval.run.cut_short import read_cut_short

from .openai_server import serve

pytestmark = pytest.mark.slow


@pytest.fixture
def server(loopback):
    with serve(seed=3, latency=0.05) as running:
        yield running


def command(server, out):
    return [sys.executable, "-m", "debategraph", "eval", "--method", "du", "--dataset",
            "arithmetic", "--limit", "12", "--model", "sim-0", "--base-url", server.base_url,
            "--concurrency", "4", "--out", str(out), "--quiet"]  # fmt: skip


def served(server):
    """Tokens of every reply the server sent."""
    usages = [r.usage for r in server.requests if r.usage is not None]
    return (sum(u["prompt_tokens"] for u in usages), sum(u["completion_tokens"] for u in usages))


def in_rows(out):
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    tokens = (
        sum(r.get("input_tokens", 0) + r["wasted_input_tokens"] for r in rows),
        sum(r.get("output_tokens", 0) + r["wasted_output_tokens"] for r in rows),
    )
    return rows, tokens


def bill(out):
    """Input and output tokens on record: rows, ledger and the notes no row holds."""
    total = spend_on_record(out)
    return total["input_tokens"], total["output_tokens"]


def settle(server):
    deadline = time.monotonic() + 10
    while server.stats()["in_flight"] and time.monotonic() < deadline:
        time.sleep(0.02)


def test_tokens_of_rows_and_cut_short_debates_equal_the_servers(server, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "sk-test"}
    out = tmp_path / "run"
    proc = subprocess.Popen(command(server, out), stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while server.stats()["completed"] < 40 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode in (130, -signal.SIGINT), err
    settle(server)
    rows, _ = in_rows(out)
    cut = read_cut_short(out)
    assert 0 < len(rows) < 12 and cut["debates"] > 0  # the interrupt landed mid-run
    assert bill(out) == served(server)  # a reply after its cut-short snapshot: in the notes
    assert f"{cut['debates']} debate(s) cut short had spent {cut['input_tokens']} input" in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("interrupted")
    debates = read_ledger(out)["cut_short"]
    cut_off = sum(d.get("cut_off_requests", 0) for d in debates)
    estimate = sum(d.get("estimated_input_tokens", 0) for d in debates)
    if cut_off:  # requests in flight at the interrupt: their prompts, as an estimate
        assert f", {cut_off} of them cut off in flight (their prompts were about {estimate}" in err

    done = subprocess.run(command(server, out), capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows, _ = in_rows(out)
    assert sorted(r["id"] for r in rows) == sorted({r["id"] for r in rows}) and len(rows) == 12
    assert read_cut_short(out) == cut  # the finished run noted nothing more
    assert bill(out) == served(server)
    assert len((out / INTERRUPTED_FILE).read_text().splitlines()) == 1
