"""A LangSmith that refuses the key (401, 403) or fails (5xx): one line that says what to fix.

The stand-in (tests/langsmith_stand_in.py) answers with the status a test gives it, and
echoes the key it was sent in its answer; every check also looks for any piece of the key
(five characters are what LangSmith's client shows of a masked key) in what is printed
and written.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from langsmith import Client
from langsmith.schemas import LangSmithInfo
from langsmith.utils import LangSmithError, get_env_var, tracing_is_enabled
from urllib3.util.retry import Retry

from debategraph.langsmith_trouble import (
    OneLine,
    Trouble,
    quiet_langsmith_logs,
    trouble_in,
    trouble_line,
    trouble_of_upload,
)
from debategraph.tracing_guard import check_tracing
from tests.langsmith_stand_in import StandIn, serving

KEY = "lsv2_pt_QuietKeyZebraWombatXylophone_Quokka"


def pieces(text: str, size: int = 5) -> set[str]:
    """Every ``size``-character piece of the key that ``text`` holds."""
    return {KEY[i : i + size] for i in range(len(KEY) - size + 1) if KEY[i : i + size] in text}


def traced(monkeypatch, url: str, key: str | None = KEY) -> None:
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", url)
    if key is None:
        monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    else:
        monkeypatch.setenv("LANGSMITH_API_KEY", key)
    get_env_var.cache_clear()


def sdk_error(url: str, path: str) -> str:
    """The message of the error LangSmith's own client raises for ``POST path`` at ``url``."""
    client = Client(
        api_url=url,
        api_key=KEY,
        auto_batch_tracing=False,
        info=LangSmithInfo(),
        retry_config=Retry(total=0, status_forcelist=[]),
    )
    with pytest.raises(LangSmithError) as raised:
        client.request_with_retries("POST", path)
    return str(raised.value)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("status", [401, 403, 500, 503])
def test_the_sdks_own_error_is_read_for_its_status_and_address(loopback, status):
    with serving(StandIn(status)) as server:
        message = sdk_error(server.url, "/runs/multipart")
    assert KEY in message  # the stand-in echoes it: the SDK passes the answer on
    assert trouble_in(message) == Trouble(status, f"{server.url}/runs/multipart")


def test_a_lost_connection_is_read_without_the_masked_key(loopback):
    url = f"http://127.0.0.1:{closed_port()}"
    message = sdk_error(url, "/runs/multipart")
    assert "API Key: lsv2_" in message  # what LangSmith's client would print
    trouble = trouble_in(message, url)
    assert trouble == Trouble(None, f"{url}/runs/multipart")
    line = trouble_line(trouble, "runs are not traced")
    assert line == (
        f"LangSmith at {url}/runs/multipart stopped answering (the connection failed): runs "
        "are not traced; check LANGSMITH_ENDPOINT and the network"
    )


def test_a_message_of_another_kind_is_no_trouble():
    assert trouble_in("Run compression is not enabled. Please update LangSmith.") is None
    taken = "Conflict for /x. HTTPError('409 Client Error: Conflict for url: http://h/x')"
    assert trouble_in(taken) == Trouble(409, "http://h/x")
    assert trouble_of_upload(taken, "http://h", "nothing was uploaded") is None


def test_each_status_gets_its_fix():
    at = "https://ls.example/sessions"
    said = {
        (status, key_set): trouble_line(Trouble(status, at), "tracing is off", key_set=key_set)
        for status, key_set in [(401, True), (401, False), (403, True), (429, True), (502, True),
                                (404, True)]
    }  # fmt: skip
    assert said == {
        (401, True): f"LangSmith refused the API key at {at} (401): check LANGSMITH_API_KEY; "
        "tracing is off",
        (401, False): f"LangSmith at {at} wants an API key (401): set LANGSMITH_API_KEY; "
        "tracing is off",
        (403, True): f"LangSmith refused the API key at {at} (403): check LANGSMITH_API_KEY "
        "(and LANGSMITH_WORKSPACE_ID for a key of several workspaces); tracing is off",
        (429, True): f"LangSmith at {at} is rate-limiting this key (429): tracing is off; "
        "try later",
        (502, True): f"LangSmith at {at} failed with a server error (502): tracing is off; "
        "try again later, or check LANGSMITH_ENDPOINT",
        (404, True): f"LangSmith at {at} answered 404: tracing is off; check LANGSMITH_ENDPOINT",
    }


def test_an_address_loses_its_query_and_credentials():
    message = "HTTPError('401 Client Error: Unauthorized for url: https://u:pw@h:8/p/runs?key=s')"
    assert trouble_in(message) == Trouble(401, "https://h:8/p/runs")


@pytest.mark.parametrize("status", [401, 500])
def test_a_refused_or_failing_check_turns_tracing_off_in_one_line(
    loopback, clean_langsmith, monkeypatch, status
):
    with serving(StandIn(status)) as server:
        traced(monkeypatch, server.url)
        assert tracing_is_enabled()
        warnings: list[str] = []
        assert check_tracing(warnings.append) is False
    assert server.seen == [("GET", "/sessions?limit=1", KEY)]  # the key tracing would send
    (line,) = warnings
    if status < 500:
        assert line.startswith(f"LangSmith refused the API key at {server.url}/sessions ({status})")
    else:
        assert line.startswith(
            f"LangSmith at {server.url}/sessions failed with a server error (500)"
        )
    assert "tracing is off for this run" in line and not pieces(line)
    assert not tracing_is_enabled()
    assert os.environ["LANGSMITH_TRACING"] == "false"  # and for the processes it starts


def test_a_key_that_may_not_read_projects_keeps_tracing_with_one_line(
    loopback, clean_langsmith, monkeypatch
):
    """A 403 on reading projects: a key that may only trace would be refused there."""
    with serving(StandIn(403)) as server:
        traced(monkeypatch, server.url)
        warnings: list[str] = []
        assert check_tracing(warnings.append) is True
    assert warnings == [
        f"LangSmith refused to list tracing projects at {server.url}/sessions (403): the key "
        "may lack only the permission to read projects, which tracing does not need; or it is "
        "a key of several workspaces (set LANGSMITH_WORKSPACE_ID); tracing stays on, and a "
        "refusal of the traces is said once"
    ]
    assert tracing_is_enabled() and os.environ["LANGSMITH_TRACING"] == "true"
    logger = logging.getLogger("langsmith")
    assert any(isinstance(h, OneLine) for h in logger.handlers) and not logger.propagate


def test_a_check_without_a_key_asks_for_one(loopback, clean_langsmith, monkeypatch):
    with serving(StandIn(401)) as server:
        traced(monkeypatch, server.url, key=None)
        warnings: list[str] = []
        assert check_tracing(warnings.append) is False
    assert server.seen == [("GET", "/sessions?limit=1", None)]
    assert warnings == [
        f"LangSmith at {server.url}/sessions wants an API key (401): set LANGSMITH_API_KEY; "
        "tracing is off for this run"
    ]


def test_an_accepted_key_keeps_tracing_and_quiets_langsmiths_later_complaints(
    loopback, clean_langsmith, monkeypatch, caplog
):
    with serving(StandIn(401, {"/sessions": 200})) as server:
        traced(monkeypatch, server.url)
        warnings: list[str] = []
        assert check_tracing(warnings.append) is True
        assert warnings == [] and tracing_is_enabled()
        for _ in range(3):  # the SDK's own warning, once per attempt
            client = Client(api_url=server.url, api_key=KEY, auto_batch_tracing=False)
            assert client.info == LangSmithInfo()
    paths = [path for _, path, _ in server.seen]
    assert paths[0] == "/sessions?limit=1" and set(paths[1:]) == {"/info"} and len(paths) > 3
    assert warnings == [
        f"LangSmith refused the API key at {server.url}/info (401): check LANGSMITH_API_KEY; "
        "runs are not traced"
    ]
    # pytest's handler sits on the root logger, where Python's default output would be
    assert [r.name for r in caplog.records if r.name.startswith("langsmith")] == []


def test_one_line_keeps_secrets_out_of_another_message(clean_langsmith, monkeypatch):
    monkeypatch.setenv("DEBATEGRAPH_TEST_TOKEN", "tok-Pangolin-Marmot-77")
    said: list[str] = []
    quiet_langsmith_logs(said.append, "runs are not traced", "http://u:Pw-Sloth-9@h", key_set=True)
    log = logging.getLogger("langsmith.client")
    log.warning("Odd answer for tok-Pangolin-Marmot-77 at http://u:Pw-Sloth-9@h: retrying")
    assert said == ["LangSmith: Odd answer for [redacted] at http://[redacted]@h: retrying"]


def test_one_line_says_another_message_once_by_its_first_line(clean_langsmith, monkeypatch):
    said: list[str] = []
    handler = quiet_langsmith_logs(said.append, "runs are not traced", "http://h", key_set=True)
    assert quiet_langsmith_logs(print, "x", "http://x", key_set=False) is handler  # once
    log = logging.getLogger("langsmith.client")
    log.warning("Run compression is not enabled.\nrequest: %s", KEY)
    log.warning("Run compression is not enabled.\nrequest: %s", KEY)
    log.info("Sending a batch of 3 runs")  # below a warning: not said
    log.warning("Odd answer for key lsv2_*************************Qa: retrying")
    log.warning("Failed to batch ingest runs: LangSmithError(\"HTTPError('502 Server Error: "
                "Bad Gateway for url: http://h/runs/batch', 'x')\")")  # fmt: skip
    log.warning("Failed to multipart ingest runs: HTTPError('401 Client Error: for url: http://h')")
    log.warning("Run compression is not enabled, again.")
    assert said == [
        "LangSmith: Run compression is not enabled.",
        "LangSmith: Odd answer for key [redacted]: retrying",
        "LangSmith at http://h/runs/batch failed with a server error (502): runs are not traced; "
        "try again later, or check LANGSMITH_ENDPOINT",
    ]
    assert isinstance(handler, OneLine) and not logging.getLogger("langsmith").propagate


# The front ends, as processes, against the stand-in.


def debategraph(env: dict[str, str], *args: str, timeout: float = 120) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "debategraph", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done.returncode, done.stdout, done.stderr


def tracing_env(url: str) -> dict[str, str]:
    return {"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": url, "LANGSMITH_API_KEY": KEY}


def evaluate(out: Path, env: dict[str, str]) -> tuple[int, str, str]:
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "2", "--agents", "2"]
    return debategraph(env, *args, "--rounds", "1", "--quiet", "--out", str(out))


def written(out: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted(out.rglob("*")) if p.is_file())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("status", "start"),
    [(401, "LangSmith refused the API key at {url}/sessions (401): check LANGSMITH_API_KEY; "),
     (500, "LangSmith at {url}/sessions failed with a server error (500): ")],
)  # fmt: skip
def test_an_eval_whose_key_is_refused_runs_untraced_with_one_line(tmp_path, status, start):
    with serving(StandIn(status)) as server:
        code, stdout, stderr = evaluate(tmp_path / "run", tracing_env(server.url))
    assert code == 0, stderr
    (line,) = stderr.splitlines()
    assert line.startswith("warning: " + start.format(url=server.url))
    assert "tracing is off for this run" in line
    assert "2 rows in" in stdout
    assert [path for _, path, _ in server.seen] == ["/sessions?limit=1"]  # no trace batches
    assert not pieces(stdout + stderr + written(tmp_path / "run"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("status", "said"),
    [(401, "LangSmith refused the API key at {url}/runs/multipart (401): check "
           "LANGSMITH_API_KEY; runs are not traced"),
     (500, "LangSmith at {url}/runs/multipart failed with a server error (500): runs are not "
           "traced; try again later, or check LANGSMITH_ENDPOINT")],
)  # fmt: skip
def test_an_eval_whose_key_is_refused_later_says_so_once(tmp_path, status, said):
    """The check passes (a key that may read), then LangSmith refuses or fails every batch."""
    with serving(StandIn(status, {"/sessions": 200, "/info": 200})) as server:
        code, stdout, stderr = evaluate(tmp_path / "run", tracing_env(server.url))
    assert code == 0, stderr
    batches = [path for _, path, _ in server.seen if path == "/runs/multipart"]
    assert batches  # it did try to trace
    assert stderr.splitlines() == ["warning: " + said.format(url=server.url)]
    assert "2 rows in" in stdout
    assert not pieces(stdout + stderr + written(tmp_path / "run"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("status", "said"),
    [(401, "LangSmith refused the API key at {url}/sessions (401): check LANGSMITH_API_KEY; "
           "tracing is off for this run"),
     (500, "LangSmith at {url}/sessions failed with a server error (500): tracing is off for "
           "this run; try again later, or check LANGSMITH_ENDPOINT")],
)  # fmt: skip
def test_a_run_whose_key_is_refused_answers_with_one_line(status, said):
    with serving(StandIn(status)) as server:
        code, stdout, stderr = debategraph(tracing_env(server.url), "run", "What is 3+4*5?")
    assert code == 0, stderr
    lines = stderr.splitlines()
    (line,) = [line for line in lines if "LangSmith" in line]
    assert all(other.startswith("warning: the simulated") for other in lines if other != line)
    assert line == "warning: " + said.format(url=server.url)
    assert "answer: " in stdout
    assert not pieces(stdout + stderr)


@pytest.mark.slow
@pytest.mark.ray
def test_ray_workers_say_a_key_refused_later_once_each(tmp_path):
    """Workers trace on their own; Ray forwards their stderr to the driver's."""
    pytest.importorskip("ray")
    out = tmp_path / "run"
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "40", "--agents"]
    args += ["2", "--rounds", "1", "--quiet", "--out", str(out), "--engine", "ray"]
    with serving(StandIn(401, {"/sessions": 200, "/info": 200})) as server:
        code, stdout, stderr = debategraph(
            tracing_env(server.url), *args, "--workers", "1", timeout=300
        )
    assert code == 0, stderr
    assert "/runs/multipart" in {path for _, path, _ in server.seen}  # the worker traced
    said = (
        f"warning: LangSmith refused the API key at {server.url}/runs/multipart (401): check "
        "LANGSMITH_API_KEY; runs are not traced"
    )
    (line,) = [line for line in stderr.splitlines() if line.strip()]
    assert "_Worker pid=" in line and line.endswith(said)  # Ray names the worker first
    assert "40 rows in" in stdout
    assert not pieces(stdout + stderr + written(out))


@pytest.mark.slow
def test_a_run_whose_key_no_header_carries_answers_with_one_line():
    key = "lsv2_pt_Quiet\u2014KeyZebraWombat"  # an em dash, pasted with the key
    with serving(StandIn(200)) as server:
        env = {**tracing_env(server.url), "LANGSMITH_API_KEY": key}
        code, stdout, stderr = debategraph(env, "run", "What is 3+4*5?")
    assert code == 0, stderr
    (line,) = [line for line in stderr.splitlines() if "LANGSMITH" in line]
    assert line == (
        "warning: LANGSMITH_API_KEY holds a character an HTTP header cannot carry: U+2014 EM "
        "DASH at character 14 of 28 (pasted with the value?); set LANGSMITH_API_KEY again, "
        "copied from LangSmith; tracing is off for this run"
    )
    assert "answer: " in stdout and server.seen == []
    assert "Quiet" not in stderr and "Zebra" not in stderr


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "run"
    code, _, stderr = evaluate(out, {})
    assert code == 0, stderr
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("status", "line"),
    [(401, "error: LangSmith refused the API key at {url}/sessions (401): "
           "check LANGSMITH_API_KEY; nothing was uploaded"),
     (500, "error: LangSmith at {url}/sessions failed with a server error "
           "(500): nothing was uploaded; try again later, or check LANGSMITH_ENDPOINT")],
)  # fmt: skip
def test_an_export_whose_key_is_refused_exits_2_with_one_line(stored_run, status, line):
    env = {"LANGSMITH_ENDPOINT": "", "LANGSMITH_API_KEY": KEY}
    with serving(StandIn(status)) as server:
        env["LANGSMITH_ENDPOINT"] = server.url
        code, stdout, stderr = debategraph(env, "export", str(stored_run), "--to", "langsmith")
    assert code == 2
    assert stderr.splitlines() == [line.format(url=server.url)] and stdout == ""
    # The first request (is the experiment there already?) is refused: nothing is uploaded.
    assert {path.split("?")[0] for _, path, _ in server.seen} == {"/sessions"}
    assert not pieces(stdout + stderr)


@pytest.mark.slow
def test_an_export_whose_key_no_header_carries_exits_2_with_one_line(stored_run):
    env = {"LANGSMITH_ENDPOINT": "", "LANGSMITH_API_KEY": "lsv2_pt_Emu\u201cOkapi"}
    with serving(StandIn(200)) as server:
        env["LANGSMITH_ENDPOINT"] = server.url
        code, stdout, stderr = debategraph(env, "export", str(stored_run), "--to", "langsmith")
    assert code == 2 and stdout == "" and server.seen == []
    assert stderr.splitlines() == [
        "error: LANGSMITH_API_KEY holds a character an HTTP header cannot carry: U+201C LEFT "
        "DOUBLE QUOTATION MARK at character 12 of 17 (pasted with the value?); set "
        "LANGSMITH_API_KEY again, copied from LangSmith; nothing was uploaded"
    ]


def test_the_line_the_docs_quote_is_the_codes():
    docs = Path(__file__).resolve().parents[1] / "docs" / "evaluation.md"
    flat = " ".join(docs.read_text(encoding="utf-8").split())
    trouble = Trouble(401, "https://…/datasets/upload-experiment")
    assert trouble_line(trouble, "nothing was uploaded") in flat
