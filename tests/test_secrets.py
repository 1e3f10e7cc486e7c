"""No configured secret reaches a transcript, a result file, a report, an error or a traceback.

The commands run as subprocesses, as users run them, against a loopback server that echoes
every request (headers included) into its replies and quotes the key in its error messages.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from debategraph.policies.secrets import REDACTED, Redactor, redact_url

from .openai_server import serve

KEY = "sk-SENTINELkey0000aaaa1111"
TOKEN = "zz_Sentinel.Token-9876"  # not key-shaped: only exact matching can catch it
USER, PASSWORD = "userSENTINEL", "pw@SENTINEL42"
SENTINELS = (KEY, TOKEN, USER, PASSWORD, "pw%40SENTINEL42")


def command(*args, env, cwd):
    return subprocess.run(
        [sys.executable, "-m", "debategraph.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def leaks(text: str) -> list[str]:
    """Sentinels in ``text``, in any letter case (a lower-cased key is still a leak)."""
    return [s for s in SENTINELS if s.lower() in text.lower()]


@pytest.fixture
def echo_server(loopback):
    with serve(responder="echo", echo_secrets=True) as server:
        yield server


@pytest.mark.slow
def test_no_secret_reaches_any_artifact_or_stream(echo_server, tmp_path):
    port = echo_server.port
    plain = f"http://127.0.0.1:{port}/v1"
    url = f"http://{USER}:pw%40SENTINEL42@127.0.0.1:{port}/v1"  # httpx sends Basic auth
    env = {
        **os.environ,
        "OPENAI_API_KEY": KEY,
        "DEBATEGRAPH_TEST_TOKEN": TOKEN,
        "HF_HUB_OFFLINE": "1",
        "DEBATEGRAPH_DEBUG": "1",
    }
    base = ["--model", "sim-0", "--base-url", url]
    streams = []

    # Debates whose replies echo the request, with the key, into the transcript.
    for target in (plain, url):
        for shape in (["--json", "--text"], ["--show-text"]):
            out = command("run", *shape, "--task", "text", "--model", "sim-0", "--base-url",
                          target, "Say hi.", env=env, cwd=tmp_path)  # fmt: skip
            assert out.returncode == 0, out.stderr
            assert REDACTED in out.stdout  # the echoed credentials were there, and went
            streams += [out.stdout, out.stderr]

    # A debate the server refuses (401, message quoting the key): one error line, a
    # traceback only because DEBATEGRAPH_DEBUG is set, both redacted.
    echo_server.faults.push("http401")
    out = command("run", *base, "What is 2+2?", env=env, cwd=tmp_path)
    assert out.returncode == 1
    assert "error: " in out.stderr and "credentials" in out.stderr
    assert "Traceback" in out.stderr
    streams += [out.stdout, out.stderr]

    # An evaluation in which some items fail with the key in the error, then its report.
    results = tmp_path / "results"
    echo_server.faults.push("http400", "ok", "http401")
    out = command("eval", "--method", "cot", "--dataset", "arithmetic", "--limit", "4", *base,
                  "--out", str(results), "--quiet", env=env, cwd=tmp_path)  # fmt: skip
    assert out.returncode == 1, out.stderr  # failed items exit 1
    streams += [out.stdout, out.stderr]
    rows = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert sum("error" in row for row in rows) == 2
    out = command("report", str(results), "--no-plots", env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    streams += [out.stdout, out.stderr]

    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"results.jsonl", "run.json", "report.md", "summary.json"}
    found = {p.name: leaks(p.read_text(errors="replace")) for p in files}
    assert all(not hit for hit in found.values()), found
    assert [leaks(s) for s in streams] == [[]] * len(streams)
    manifest = json.loads((results / "run.json").read_text())
    assert manifest["settings"]["arms"][0]["settings"]["base_url"].startswith("http://127.0.0.1")
    # The server really received (and echoed) the secrets: the test would catch a leak.
    received = " ".join(str(r.headers) for r in echo_server.requests)
    assert KEY in received


def test_redactor_exact_values_shapes_and_urls():
    redact = Redactor([TOKEN, "short", "not-needed"])
    text = f"key {TOKEN} Bearer abc.def token=xyz sk-abcdef123456 short not-needed"
    assert redact(text) == (
        "key [redacted] [redacted] token=[redacted] [redacted] short not-needed"
    )
    assert redact(json.dumps({"a": f'say "{TOKEN}"'})) == json.dumps({"a": 'say "[redacted]"'})
    assert redact_url("http://u:p@h:8/v1?q=1") == "http://h:8/v1?q=1"
    env = {"MY_SERVICE_TOKEN": TOKEN, "PATH": "/usr/bin:/bin/something"}
    assert Redactor.from_environment(env)("/usr/bin " + TOKEN) == "/usr/bin [redacted]"
    assert (
        Redactor.from_environment({}, urls=[f"http://{USER}:{PASSWORD}@h/"])(f"{USER} {PASSWORD}")
        == "[redacted] [redacted]"
    )


@pytest.mark.slow
def test_a_second_eval_on_the_same_output_is_refused_at_once(tmp_path):
    from debategraph.eval.log.store import OutputBusyError, OutputLock

    with OutputLock(tmp_path), pytest.raises(OutputBusyError, match="another debategraph eval"):
        OutputLock(tmp_path).__enter__()
    # A writer that died without releasing leaves a lock file, but not a held lock.
    code = "from pathlib import Path; import os, sys; from debategraph.eval.log.store import "
    code += f"OutputLock; OutputLock(Path({str(tmp_path)!r})).__enter__(); os._exit(9)"
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 9
    assert (Path(tmp_path) / ".lock").exists()
    with OutputLock(tmp_path):
        pass
