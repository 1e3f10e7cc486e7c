"""A dead or wrong server is noticed at once: few attempts per call, a breaker per evaluation."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langgraph.types import RetryPolicy

import debategraph as dg
from debategraph.errors import NoConnectionError
from debategraph.eval.datasets import arithmetic_items
from debategraph.eval.log.store import RESULTS_FILE
from debategraph.eval.run.breaker import (
    DOWN_STREAK,
    UNREACHABLE_FIELD,
    Breaker,
    ServerDownError,
    mark_dependent,
)
from debategraph.eval.run.runner import Arm, evaluate
from debategraph.nodes import patience
from debategraph.nodes.retry import MODEL_RETRY
from debategraph.policies.retry import REFUSED_ATTEMPTS, is_transient, never_connected
from debategraph.testing import ScriptedChatModel

from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"
STEADY = RetryPolicy(max_attempts=6, initial_interval=0.01, jitter=False, retry_on=is_transient)
ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def refused() -> httpx.ConnectError:
    """What httpx raises for a refused connection: its ConnectError over the OS error."""
    try:
        raise ConnectionRefusedError(111, "Connection refused")
    except ConnectionRefusedError as cause:
        error = httpx.ConnectError("[Errno 111] Connection refused")
        error.__cause__ = cause
        return error


def unresolved() -> httpx.ConnectError:
    error = httpx.ConnectError("[Errno -2] Name or service not known")
    error.__cause__ = socket.gaierror(-2, "Name or service not known")
    return error


@contextlib.contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port with nothing listening: bound (so nobody takes it), never listened on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def failing(*errors: BaseException, then: str = "\\boxed{7}") -> ScriptedChatModel:
    """A model whose k-th call raises ``errors[k]``, and answers ``then`` after them."""

    def raiser(error: BaseException):
        def reply(prompt: str) -> str:
            raise error

        return reply

    return ScriptedChatModel(replies=[*(raiser(e) for e in errors), then])


# -- which failures never reached the server -------------------------------------------------


def test_refused_and_unresolved_connections_never_reached_the_server():
    assert never_connected(refused()) == "[Errno 111] Connection refused"
    assert never_connected(unresolved()) == "[Errno -2] Name or service not known"
    assert never_connected(ConnectionRefusedError(111, "Connection refused")) is not None
    # Reached it, or may still: a timeout, a dropped connection, an HTTP status.
    assert never_connected(httpx.ConnectTimeout("timed out")) is None
    assert never_connected(httpx.RemoteProtocolError("Server disconnected")) is None
    assert never_connected(ConnectionResetError(104, "Connection reset by peer")) is None
    response = httpx.Response(503, request=httpx.Request("POST", "http://h/v1"))
    assert never_connected(httpx.HTTPStatusError("503", request=response.request,
                                                 response=response)) is None  # fmt: skip
    assert is_transient(refused()) and not is_transient(NoConnectionError("x"))


def test_the_default_schedule_reports_a_refusing_server_within_five_seconds():
    # Worst case: the first two waits of the default policy, each with its full jitter.
    waits = [patience.next_wait_s(MODEL_RETRY, n) for n in range(1, REFUSED_ATTEMPTS)]
    assert (REFUSED_ATTEMPTS, waits, sum(waits)) == (3, [2.0, 3.0], 5.0)


# -- one call --------------------------------------------------------------------------------


def test_a_refused_call_stops_after_three_attempts_of_six():
    model = failing(*[refused()] * 6)
    with pytest.raises(NoConnectionError) as failure:
        dg.run(ARITH, method="cot", models=model, retry_policy=STEADY)
    assert len(model.calls) == REFUSED_ATTEMPTS
    assert str(failure.value).startswith(
        "a1's model call could not connect to the model server "
        "([Errno 111] Connection refused; 3 attempt(s) in 0 s)"
    )
    assert failure.value.reason == "[Errno 111] Connection refused"
    assert not is_transient(failure.value)


def test_the_synchronous_path_stops_the_same_way():
    model = failing(*[refused()] * 6)
    graph = dg.build_debate_graph("cot", agents=[dg.Agent("a1", model)], retry_policy=STEADY)
    with pytest.raises(NoConnectionError, match=r"Connection refused; 3 attempt\(s\)"):
        graph.compile().invoke({"question": ARITH})
    assert len(model.calls) == REFUSED_ATTEMPTS


def test_an_unknown_host_stops_the_same_way():
    model = failing(*[unresolved()] * 6)
    with pytest.raises(NoConnectionError, match="Name or service not known"):
        dg.run(ARITH, method="cot", models=model, retry_policy=STEADY)
    assert len(model.calls) == REFUSED_ATTEMPTS


def test_a_server_back_within_the_quick_attempts_loses_nothing():
    model = failing(refused(), refused())
    result = dg.run(ARITH, method="cot", models=model, retry_policy=STEADY)
    assert result.answer == "7" and result.turns[0]["attempts"] == 3


def test_other_transient_failures_keep_every_attempt():
    model = failing(*[httpx.RemoteProtocolError("Server disconnected")] * 6)
    with pytest.raises(Exception) as failure:
        dg.run(ARITH, method="cot", models=model, retry_policy=STEADY)
    assert len(model.calls) == 6 and not isinstance(failure.value, NoConnectionError)


def test_a_dropped_connection_then_refusals_count_every_attempt():
    # A server that died mid-reply: the retries that follow are refused; three in all.
    model = failing(httpx.RemoteProtocolError("Server disconnected"), refused(), refused(),
                    refused())  # fmt: skip
    with pytest.raises(NoConnectionError):
        dg.run(ARITH, method="cot", models=model, retry_policy=STEADY)
    assert len(model.calls) == 3


def test_the_error_names_the_server_without_its_credentials(loopback):
    with closed_port() as port, pytest.raises(NoConnectionError) as failure:
        dg.run(ARITH, method="cot", models="sim-0", base_url=f"http://u:pw@127.0.0.1:{port}/v1",
               retry_policy=STEADY)  # fmt: skip
    message = str(failure.value)
    assert f"could not connect to http://127.0.0.1:{port}/v1 (" in message and "pw" not in message
    assert failure.value.url == f"http://127.0.0.1:{port}/v1"
    assert "3 attempt(s)" in message


@pytest.mark.slow
def test_run_on_a_port_with_nothing_listening_says_so_in_seconds():
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}/v1"
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "debategraph", "run", ARITH, "--method", "cot", "--model",
             "sim-0", "--base-url", url],
            capture_output=True, text=True, env=ENV, timeout=120,
        )  # fmt: skip
        took = time.perf_counter() - start
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: NoConnectionError: a1's model call could not connect to {url}")
    assert "Connect call failed" in line or "Connection refused" in line
    spent = int(line.split("3 attempt(s) in ")[1].split(" s)")[0])
    assert spent <= 5  # the schedule's bound; before, six attempts waited 31 s or more
    assert took < 30


# -- the breaker -----------------------------------------------------------------------------


def row(k: int, *, down: bool = False, error: str | None = None, requests: int = 1) -> dict:
    made = {"method": "cot", "id": f"i{k}", "requests": requests, "failed_requests": 0}
    if down:
        made.update(error="NoConnectionError: ...", failed_requests=requests)
        made[UNREACHABLE_FIELD] = {"url": "http://h:1/v1", "reason": "[Errno 111] refused"}
    elif error:
        made["error"] = error
    return made


def test_the_breaker_holds_a_streak_and_stops_at_its_length():
    written: list[dict] = []
    spent: list[dict] = []
    breaker = Breaker(written.append, streak=3, cut_short=spent)
    breaker(row(0))
    breaker(row(1, down=True))
    breaker(row(2, down=True))
    assert [r["id"] for r in written] == ["i0"]
    with pytest.raises(ServerDownError) as stop:
        breaker(row(3, down=True))
    assert str(stop.value) == (
        "stopped: 3 debates in a row could not connect to http://h:1/v1 ([Errno 111] refused); "
        "start the server or fix the URL (--base-url), then run the same command again to "
        "resume (finished rows are kept)"
    )
    assert (stop.value.urls, stop.value.streak) == (["http://h:1/v1"], 3)
    assert [r["id"] for r in written] == ["i0"]  # no failed row for the streak
    assert [d["id"] for d in spent] == ["i1", "i2", "i3"]
    assert spent[0] == {"method": "cot", "id": "i1", "input_tokens": 0, "output_tokens": 0,
                        "requests": 1, "failed_requests": 1}  # fmt: skip
    breaker(row(4))  # finished as the run stopped: not written
    assert [r["id"] for r in written] == ["i0"]


def test_a_row_from_a_server_that_answered_breaks_the_streak():
    written: list[dict] = []
    breaker = Breaker(written.append, streak=2)
    breaker(row(0, down=True))
    breaker(row(1, error="InternalServerError: HTTP 500", requests=6))  # the server answered
    breaker(row(2, down=True))
    breaker(row(3))
    breaker(row(4, down=True))
    breaker.flush()  # the run ended
    assert [r["id"] for r in written] == ["i0", "i1", "i2", "i3", "i4"]
    assert not any(UNREACHABLE_FIELD in r for r in written)


def test_a_failure_without_requests_neither_counts_nor_breaks_the_streak():
    written: list[dict] = []
    breaker = Breaker(written.append, streak=2)
    breaker(row(0, down=True))
    breaker(row(1, error="BudgetUnavailable: du has no result for this item", requests=0))
    with pytest.raises(ServerDownError):
        breaker(row(2, down=True))
    assert [r["id"] for r in written] == ["i1"]


def test_a_row_held_with_its_base_goes_where_its_base_goes_and_counts_once():
    written: list[dict] = []
    breaker = Breaker(written.append, streak=2)
    base = row(0, down=True)
    matched = row(0, error="BudgetUnavailable: du has no result for this item", requests=0)
    mark = base[UNREACHABLE_FIELD]
    breaker(base)
    breaker(mark_dependent(matched, mark))
    assert written == [] and len(breaker.held) == 2  # held, but one debate of the streak
    breaker(row(1))  # the server answered: both are written as the failed rows they are
    assert [r["id"] for r in written] == ["i0", "i0", "i1"]
    assert not any(UNREACHABLE_FIELD in r for r in written)


def test_a_budget_matched_arm_of_a_dead_server_leaves_no_failed_row(loopback, tmp_path):
    items = arithmetic_items(2 * DOWN_STREAK)
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}/v1"
        settings = {"models": "sim-0", "base_url": url, "retry_backoff": 0.001, "agents": 2}
        settings["max_attempts"] = 1  # one try per call: the server is down either way
        du = Arm("du", "du", {**settings, "rounds": 1})
        sc = Arm("sc@du", "sc", {**settings, "rounds": 0}, budget_of="du")
        with pytest.raises(ServerDownError) as stop:
            evaluate(items, [du, sc], tmp_path, dataset="arithmetic", concurrency=1)
    assert stop.value.streak == DOWN_STREAK  # du's debates alone
    results = tmp_path / RESULTS_FILE
    assert not results.exists() or results.read_text() == ""  # no sc@du row either


def arm(url: str, attempts: int = 6) -> Arm:
    settings = {"models": "sim-0", "base_url": url, "retry_backoff": 0.001}
    return Arm("cot", "cot", {**settings, "max_attempts": attempts})


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", [1, 8])
def test_an_eval_against_a_dead_server_stops_without_failed_rows(loopback, tmp_path, concurrency):
    items = arithmetic_items(4 * DOWN_STREAK)
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}/v1"
        with pytest.raises(ServerDownError, match=f"in a row could not connect to {url} ") as stop:
            evaluate(items, [arm(url)], tmp_path, dataset="arithmetic", concurrency=concurrency)
    assert stop.value.streak == DOWN_STREAK and stop.value.urls == [url]
    results = tmp_path / RESULTS_FILE
    assert not results.exists() or results.read_text() == ""
    cut = [json.loads(line) for line in (tmp_path / "interrupted.jsonl").read_text().splitlines()]
    assert cut[0]["failed_requests"] >= DOWN_STREAK * REFUSED_ATTEMPTS


@pytest.mark.slow
def test_an_eval_against_a_failing_server_keeps_todays_failed_rows(loopback, tmp_path):
    with serve(seed=1, fault_rates={"http500": 1.0}) as server:
        outcome = evaluate(arithmetic_items(2 * DOWN_STREAK), [arm(server.base_url, 2)],
                           tmp_path, dataset="arithmetic", concurrency=2)  # fmt: skip
    assert (outcome.written, outcome.failed) == (2 * DOWN_STREAK, 2 * DOWN_STREAK)
    assert server.stats()["faults"] == {"http500": 4 * DOWN_STREAK}
    assert all("(HTTP 500) after retries" in r["error"] for r in outcome.rows)
    assert not any(UNREACHABLE_FIELD in r for r in outcome.rows)


def eval_command(url: str, out: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "debategraph", "eval", "--method", "cot", "--model", "sim-0",
            "--dataset", "arithmetic", "--base-url", url, "--out", str(out), "--quiet",
            *more]  # fmt: skip


@pytest.mark.slow
def test_eval_on_a_port_with_nothing_listening_stops_with_one_line(tmp_path):
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}/v1"
        done = subprocess.run(eval_command(url, tmp_path / "out", "--limit", "40"),
                              capture_output=True, text=True, env=ENV, timeout=120)  # fmt: skip
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: stopped: {DOWN_STREAK} debates in a row could not connect "
                           f"to {url} (")  # fmt: skip
    results = tmp_path / "out" / RESULTS_FILE
    assert not results.exists() or results.read_text() == ""


@pytest.mark.slow
def test_eval_stops_when_its_server_goes_away_mid_run_and_resumes_after(loopback, tmp_path):
    out = tmp_path / "out"
    with contextlib.ExitStack() as running:
        server = running.enter_context(serve(seed=2, latency=0.05))
        url, port = server.base_url, server.port
        command = eval_command(url, out, "--limit", "60", "--concurrency", "2",
                               "--retry-backoff", "0.05")  # fmt: skip
        process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                                   text=True, env=ENV)  # fmt: skip
        stopped = threading.Event()

        def stop_serving() -> None:
            deadline = time.monotonic() + 60
            while server.stats()["completed"] < 8 and time.monotonic() < deadline:
                time.sleep(0.02)
            running.close()  # stop listening, drop the connections in flight
            stopped.set()

        threading.Thread(target=stop_serving, daemon=True).start()
        _, stderr = process.communicate(timeout=120)
        assert stopped.wait(10)
    assert process.returncode == 1, stderr
    (line,) = stderr.strip().splitlines()  # no Python warning above it (coroutine never awaited)
    assert line.startswith(
        f"error: stopped: {DOWN_STREAK} debates in a row could not connect to {url}"
    )
    rows = [json.loads(line) for line in (out / RESULTS_FILE).read_text().splitlines()]
    assert 8 <= len(rows) < 60 and not any("error" in r for r in rows)
    with serve(seed=2, port=port):  # back on the same URL: the same command resumes
        done = subprocess.run(command, capture_output=True, text=True, env=ENV, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (out / RESULTS_FILE).read_text().splitlines()]
    assert len({r["id"] for r in rows}) == len(rows) == 60
    assert not any("error" in r for r in rows)


def test_a_wrong_model_name_stops_the_run_naming_the_model_and_writes_no_failed_row(
    loopback, tmp_path
):
    """HTTP 404 fails every item alike: the breaker stops the run with one line that says the
    model name is wrong and which, instead of a failed row per item."""
    from langchain_openai import ChatOpenAI

    with serve() as server:
        server.faults.push(*["http404"] * 40)
        model = ChatOpenAI(
            model="no-such-model", base_url=server.base_url, api_key="sk-t", max_retries=0
        )
        arm = Arm("cot", "cot", {"models": model})
        items = arithmetic_items(DOWN_STREAK + 3, seed=0)
        with pytest.raises(ServerDownError) as stopped:
            evaluate(items, [arm], tmp_path / "out", dataset="arithmetic", concurrency=1)
    message = str(stopped.value)
    assert message.startswith("stopped: the model name is wrong: ")
    assert f"does not serve 'no-such-model' (HTTP 404 on {DOWN_STREAK} debates in a row" in message
    assert "fix --model" in message and "run the same command again" not in message
    assert stopped.value.urls == [server.base_url]
    results = tmp_path / "out" / RESULTS_FILE
    assert not results.exists() or results.read_text() == ""
