"""LangSmith tracing: off stays off; on but unreachable is turned off once, with one line."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langsmith.utils import get_env_var, tracing_is_enabled

from debategraph import run
from debategraph.eval.run.executors.ray import _Worker
from debategraph.langsmith_trouble import OneLine
from debategraph.tracing_guard import check_tracing, quiet_tracing_logs


class Counter(BaseHTTPRequestHandler):
    """Counts requests and answers 404 to each (any answer means reachable)."""

    hits: list[str]

    def do_request(self) -> None:
        self.hits.append(self.path)
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()

    do_GET = do_POST = do_PATCH = do_request

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def counter(loopback, clean_langsmith, monkeypatch) -> Iterator[list[str]]:
    handler = type("Handler", (Counter,), {"hits": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()  # stops fast
    monkeypatch.setenv("LANGSMITH_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2_pt_offline")
    get_env_var.cache_clear()
    try:
        yield handler.hits
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_tracing_off_stays_off_and_asks_nothing(counter):
    warnings: list[str] = []
    assert check_tracing(warnings.append) is False
    run("What is 3+4*5?", method="du", agents=2, rounds=1)
    assert counter == [] and warnings == []
    assert not tracing_is_enabled()


def test_tracing_on_and_answered_stays_on(counter, monkeypatch):
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    get_env_var.cache_clear()
    warnings: list[str] = []
    assert check_tracing(warnings.append) is True
    assert counter == ["/sessions?limit=1"] and warnings == []  # a 404 is an answer
    assert os.environ["LANGSMITH_TRACING"] == "true"


def test_tracing_on_and_unreachable_is_turned_off_with_one_warning(
    loopback, clean_langsmith, monkeypatch
):
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    get_env_var.cache_clear()
    assert tracing_is_enabled()
    warnings: list[str] = []
    assert check_tracing(warnings.append) is False
    (line,) = warnings
    assert "does not answer (connection refused)" in line and "tracing is off" in line
    assert not tracing_is_enabled()
    assert os.environ["LANGSMITH_TRACING"] == "false"  # and for the processes it starts


UNSENDABLE = [
    (
        "LANGSMITH_API_KEY",
        "lsv2_pt_Emu\u2014Okapi",
        "LANGSMITH_API_KEY holds a character an HTTP header cannot carry: U+2014 EM DASH at "
        "character 12 of 17 (pasted with the value?); set LANGSMITH_API_KEY again, copied "
        "from LangSmith; tracing is off for this run",
    ),
    (
        "LANGCHAIN_WORKSPACE_ID",
        "ws-1\nws-2",
        "LANGCHAIN_WORKSPACE_ID holds a character an HTTP header cannot carry: U+000A a "
        "control character at character 5 of 9 (pasted with the value?); set "
        "LANGCHAIN_WORKSPACE_ID again, copied from LangSmith; tracing is off for this run",
    ),
]


@pytest.mark.parametrize(("variable", "value", "line"), UNSENDABLE)
def test_a_setting_no_header_carries_turns_tracing_off_with_one_line(
    counter, monkeypatch, variable, value, line
):
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv(variable, value)
    get_env_var.cache_clear()
    warnings: list[str] = []
    assert check_tracing(warnings.append) is False
    assert warnings == [line]
    assert counter == []  # nothing sent
    assert not tracing_is_enabled() and os.environ["LANGSMITH_TRACING"] == "false"


def quieted() -> bool:
    logger = logging.getLogger("langsmith")
    return any(isinstance(h, OneLine) for h in logger.handlers) and not logger.propagate


def test_a_process_that_traces_on_its_own_says_langsmiths_complaints_in_one_line(
    clean_langsmith, monkeypatch, capsys
):
    assert quiet_tracing_logs() is False and not quieted()  # tracing off: nothing imported
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2_pt_offline")
    get_env_var.cache_clear()
    assert quiet_tracing_logs() is True and quieted()
    logging.getLogger("langsmith.client").warning(
        "Failed to multipart ingest runs: HTTPError('401 Client Error: x for url: "
        "http://127.0.0.1:9/runs/multipart')\ntrace=1,id=2"
    )
    assert capsys.readouterr().err == (
        "warning: LangSmith refused the API key at http://127.0.0.1:9/runs/multipart (401): "
        "check LANGSMITH_API_KEY; runs are not traced\n"
    )


def test_a_ray_worker_quiets_langsmith_where_it_traces(clean_langsmith, monkeypatch):
    job: Any = None  # the worker builds its runner from the job on first use only
    _Worker(job)
    assert not quieted()
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    get_env_var.cache_clear()
    _Worker(job)
    assert quieted()


@pytest.mark.slow
def test_an_offline_traced_run_prints_one_warning_and_no_connection_errors(tmp_path):
    env = {
        **os.environ,
        "LANGSMITH_TRACING": "true",
        "LANGSMITH_ENDPOINT": f"http://127.0.0.1:{closed_port()}",
        "LANGSMITH_API_KEY": "lsv2_pt_offline",
    }
    command = [sys.executable, "-m", "debategraph", "eval", "--method", "du", "--dataset"]
    command += ["arithmetic", "--limit", "2", "--agents", "2", "--rounds", "1", "--quiet"]
    command += ["--out", str(tmp_path / "run")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert [line for line in lines if "LangSmith" in line] == lines
    assert len(lines) == 1 and "tracing is off for this run" in lines[0]
    assert "2 rows in" in done.stdout
