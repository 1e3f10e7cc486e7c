"""Giving up is bounded and visible: a call's total time, throttled waits, what `run` waits for."""

import os
import subprocess
import sys
import time

import pytest
from langgraph.types import RetryPolicy

import debategraph as dg
from debategraph.errors import CallGaveUpError
from debategraph.models.resolve import DEFAULT_TIMEOUT_S
from debategraph.nodes import patience
from debategraph.nodes.retry import DEFAULT_ATTEMPTS, MODEL_RETRY
from debategraph.policies.retry import is_transient

from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"
STEADY = RetryPolicy(max_attempts=6, initial_interval=0.01, jitter=False, retry_on=is_transient)


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-key")
    with serve(seed=3) as running:
        yield running


def test_the_default_schedule_reports_a_hung_server_within_five_minutes():
    # Worst case of the defaults: attempts of DEFAULT_TIMEOUT_S with the policy's waits
    # between them, each retry made only if it can start before the call's time is up.
    budget, spent, attempt = patience.give_up_after(None), 0.0, 1
    while True:
        spent += min(DEFAULT_TIMEOUT_S, budget - spent)
        pause = patience.next_wait_s(MODEL_RETRY, attempt)
        if pause is None or spent + pause + patience.LAST_ATTEMPT_S >= budget:
            break
        spent, attempt = spent + pause, attempt + 1
    assert (budget, attempt, spent) == (240.0, 2, 240.0)
    assert spent <= 300 < DEFAULT_ATTEMPTS * DEFAULT_TIMEOUT_S
    assert patience.give_up_after(600) == 1200  # a long --timeout still gets a second try


def test_next_wait_follows_the_policy_and_its_jitter():
    assert [patience.next_wait_s(STEADY, n) for n in range(1, 7)] == [
        0.01, 0.02, 0.04, 0.08, 0.16, None]  # fmt: skip
    assert patience.next_wait_s(MODEL_RETRY, 5) == 16.0 + 1.0
    assert patience.next_wait_s(None, 1) is None


@pytest.mark.slow
def test_a_hung_server_is_given_up_on_when_the_calls_time_is_up(server, monkeypatch):
    monkeypatch.setattr(patience, "GIVE_UP_S", 3.0)
    server.configure({"fault_rates": {"hang": 1.0}})
    start = time.perf_counter()
    with pytest.raises(CallGaveUpError) as failure:
        dg.run(ARITH, method="cot", models="sim-0", base_url=server.base_url, timeout=1,
               retry_policy=STEADY)  # fmt: skip
    took = time.perf_counter() - start
    # 1 s, 0.01 s, 1 s: a third attempt could not have 1 s before the 3 s are up (six
    # attempts would take 6 s).
    assert server.stats()["chat_requests"] == 2 and took < 5.0
    message = str(failure.value)
    prefix = f"gave up on a1's model call to {server.base_url} after 2 attempt(s) and "
    assert message.startswith(prefix) and message[len(prefix) :].startswith(("2 s", "3 s"))
    assert "(a call may take 3 s in all)" in message and "deadline" in message
    assert not is_transient(failure.value)


@pytest.mark.slow
def test_a_throttled_calls_wait_is_capped_and_reported(server, monkeypatch, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    monkeypatch.setattr(patience, "GIVE_UP_S", 3.0)
    server.configure({"fault_rates": {"http429": 1.0}, "retry_after": 0.5})
    arms = [Arm("cot", "cot", {"models": "sim-0", "base_url": server.base_url,
                               "retry_backoff": 0.001})]  # fmt: skip
    start = time.perf_counter()
    outcome = evaluate(arithmetic_items(1), arms, tmp_path / "capped", dataset="arithmetic")
    assert time.perf_counter() - start < 3.5
    (row,) = outcome.rows
    assert row["error"].startswith(
        f"CallGaveUpError: gave up on a1's model call to {server.base_url}"
    )
    assert "s of it on the server's Retry-After" in row["error"]
    waits = row["throttled_s"]
    assert waits == 0.5 * (row["requests"] - 1) >= 0.5  # every retry waited, none past 3 s


@pytest.mark.slow
def test_a_throttled_but_finished_item_reports_its_wait(server, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    server.configure({"retry_after": 0.25})
    server.faults.push("http429", "http429")
    arms = [Arm("cot", "cot", {"models": "sim-0", "base_url": server.base_url,
                               "retry_backoff": 0.001})]  # fmt: skip
    (row,) = evaluate(arithmetic_items(1), arms, tmp_path, dataset="arithmetic").rows
    assert "error" not in row and row["throttled_s"] == 0.5 and row["requests"] == 3


@pytest.mark.slow
def test_run_says_what_it_waits_for(server):
    server.configure({"latency": 2.0})
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DEBATEGRAPH_WAIT_SECONDS": "0.5"}
    done = subprocess.run(
        [sys.executable, "-m", "debategraph", "run", ARITH, "--method", "cot", "--model",
         "sim-0", "--base-url", server.base_url],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = f"s for a1's reply from {server.base_url} (attempt 1 of {DEFAULT_ATTEMPTS})"
    assert expected in done.stderr and done.stderr.startswith("waiting ")


def test_what_a_waiting_call_says():
    reply = patience.Waiting("a2", "reply", "http://h:1/v1", 2, 6, since=100.0)
    assert (
        reply.describe(112.4) == "waiting 12 s for a2's reply from http://h:1/v1 (attempt 2 of 6)"
    )
    throttled = patience.Waiting("judge", "retry-after", None, 3, None, since=0.0)
    assert throttled.describe(30.0) == (
        "waiting 30 s for the Retry-After the server asked of judge (after attempt 3)"
    )


@pytest.mark.slow
def test_the_watcher_reports_a_long_wait_once_then_every_period():
    lines: list[str] = []
    entry = patience.Waiting("a1", "reply", None, 1, 6, since=time.monotonic() - 10)
    watching = patience.watch_waits(lines.append, after=5.0, every=3600.0)
    with watching, patience.BOARD.waiting(entry):
        deadline = time.monotonic() + 5
        while not lines and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.2)  # two more looks: nothing new before the period
    assert len(lines) == 1 and lines[0].startswith("waiting 1") and "a1's reply" in lines[0]
    assert patience.BOARD.watchers == 0 and not patience.BOARD.snapshot()


@pytest.mark.parametrize("answered_with", ["Retry-After", "backoff"])
def test_six_429s_in_a_row_do_not_fail_a_call(server, answered_with):
    """Throttling uses up none of the policy's attempts: the call asks again within its time."""
    server.configure({"retry_after": 0.01 if answered_with == "Retry-After" else 0})
    server.faults.push(*["http429"] * 6)
    result = dg.run(ARITH, method="cot", models="sim-0", base_url=server.base_url,
                    retry_backoff=0.001)  # fmt: skip
    (turn,) = result.turns
    assert result.answer == "15" and turn["attempts"] == 7
    assert server.stats()["chat_requests"] == 7
