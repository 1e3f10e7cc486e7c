"""SIGKILL of a Ray eval's driver: the workers' spend notes it took keep every token billed."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

from debategraph.eval.log.files import RESULTS_FILE
from debategraph.eval.log.ledger import UNANSWERED, read_ledger

from . import test_ray_cut_short
from .test_ray import quiet_env
from .test_ray_cut_short import command
from .test_spend_guard import window
from .test_spend_notes import billed, served, settle

pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.slow]

server = test_ray_cut_short.server  # the same loopback server fixture


def test_a_killed_ray_driver_leaves_every_token_on_the_bill(server, tmp_path):
    env = {**quiet_env(), "OPENAI_API_KEY": "sk-test"}
    out = tmp_path / "run"
    proc = subprocess.Popen(command(server, out), stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 180
    while server.stats()["completed"] < 30 and time.monotonic() < deadline:
        time.sleep(0.005)
    server.configure({"latency": 3.0})  # replies on their way arrive; new ones wait
    time.sleep(0.6)  # past the driver's next take of the workers' notes
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    server.configure({"latency": 0.05})
    assert billed(out)[:2] == served(server)
    assert read_ledger(out)["noted"]  # the kill left spend that only the notes hold

    done = subprocess.run(command(server, out), capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]
    assert len(rows) == len({r["id"] for r in rows}) == 12
    assert billed(out)[:2] == served(server)


def test_notes_the_workers_made_while_their_driver_was_stopped_survive_its_kill(server, tmp_path):
    """The driver takes no note while stopped; the workers write their own, so none is lost."""
    env = {**quiet_env(), "OPENAI_API_KEY": "sk-test"}
    out = tmp_path / "run"
    proc = subprocess.Popen(command(server, out), stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 180
    while server.stats()["completed"] < 20 and time.monotonic() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGSTOP)  # the workers go on; their notes reach no driver
    answered = server.stats()["completed"]
    while server.stats()["completed"] < answered + 6 and time.monotonic() < deadline:
        time.sleep(0.005)
    server.configure({"latency": 3.0})  # replies on their way arrive; new ones wait
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    settle(server)
    server.configure({"latency": 0.05})
    assert billed(out)[:2] == served(server)
    found = read_ledger(out)
    assert found["noted"]
    # The requests left waiting when the workers stopped (their driver gone) had no reply:
    # the server billed none of them; the bill names them apart, with their input estimated.
    unanswered = sum(d["requests"] for d in found[UNANSWERED])
    assert unanswered == server.stats()["chat_requests"] - len(
        [r for r in server.requests if r.usage is not None]
    )
    assert unanswered > 0 and all(d["input_estimate"] > 0 for d in found[UNANSWERED])

    done = subprocess.run(command(server, out), capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]
    assert len(rows) == len({r["id"] for r in rows}) == 12
    assert billed(out)[:2] == served(server)


def test_a_spend_limit_stops_a_ray_run_and_a_higher_one_resumes(server, tmp_path):
    env = {**quiet_env(), "OPENAI_API_KEY": "sk-test"}
    out = tmp_path / "run"
    limited = [*command(server, out), "--max-tokens-total", "15000"]
    stopped = subprocess.run(limited, capture_output=True, text=True, env=env, timeout=300)
    assert stopped.returncode == 1, stopped.stderr
    assert "stopped: the spend limit --max-tokens-total 15000 is reached" in stopped.stderr
    settle(server)
    spent = billed(out)
    assert spent[:2] == served(server)
    # Within two windows of 4 calls: the workers' notes reach the driver a little late.
    assert 15000 <= spent[0] + spent[1] <= 15000 + window(server, 2 * 4)
    done = subprocess.run([*command(server, out), "--max-tokens-total", "1000000"],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    settle(server)
    rows = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]
    assert len(rows) == len({r["id"] for r in rows}) == 12
    assert billed(out)[:2] == served(server)
