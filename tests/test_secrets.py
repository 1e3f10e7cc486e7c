"""No configured secret reaches a transcript, a result file, a report, an error or a traceback.

The commands run as subprocesses, as users run them, against a loopback server that echoes
every request (headers included) into its replies and quotes the key in its error messages.
"""

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from debategraph.policies.secrets import REDACTED, Redactor, redact_url

from .openai_server import serve
from .openai_server.responders import ChatRequest, EchoResponder

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
    echoed = '{"authorization": "Basic dXNlcjpwYXNzd29yZA==", "x": "Authorization: Bearer t0k"}'
    assert redact(echoed) == '{"authorization": "[redacted]", "x": "Authorization: [redacted]"}'
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


PROXY_PASSWORD = "Pr0xySENTINEL-77"
HEADER_TOKEN = "hdrSENTINEL.5150"
URL_PASSWORD = "urlpwSENTINEL-31"


class _EchoAndQuote(EchoResponder):
    """Echoes the request (with the URL's user and password as Basic auth) and quotes the
    key, the proxy password and the header token, like a server or gateway repeating them."""

    async def respond(self, request: ChatRequest) -> str:
        dump = await super().respond(request)
        quoted = f"key {KEY} url {USER}:{URL_PASSWORD} and {URL_PASSWORD}"
        return f"{dump} {quoted} proxy {PROXY_PASSWORD} header {HEADER_TOKEN} Answer: 4"


def _encodings(secret: str) -> list[str]:
    """A secret as a file might hold it: raw, JSON-escaped, URL-encoded, base64."""
    return [
        secret,
        json.dumps(secret)[1:-1],
        quote(secret, safe=""),
        base64.b64encode(secret.encode()).decode(),
    ]


@pytest.mark.slow
def test_no_secret_reaches_any_file_the_cache_included(loopback, tmp_path):
    """Key, URL password, proxy password and a credential header, echoed by the server
    through `eval` and `run` with a call cache: no file under the output or the cache holds
    any of them in any encoding."""
    with serve(responder=_EchoAndQuote()) as server:
        url = f"http://{USER}:{URL_PASSWORD}@127.0.0.1:{server.port}/v1"
        env = {
            **os.environ,
            "OPENAI_API_KEY": KEY,
            "HTTPS_PROXY": f"http://proxyuser:{PROXY_PASSWORD}@proxy.invalid:3128",
            "NO_PROXY": "127.0.0.1,localhost",
            "OTEL_EXPORTER_OTLP_HEADERS": f"Authorization=Bearer {HEADER_TOKEN}",
            "HF_HUB_OFFLINE": "1",
        }
        cache = tmp_path / "cache" / "calls.sqlite"
        results = tmp_path / "results"
        for _ in range(2):  # the second pass replays from the cache
            out = command("eval", "--method", "cot", "--dataset", "arithmetic", "--limit", "2",
                          "--model", "echo", "--base-url", url, "--cache", str(cache),
                          "--out", str(results), "--quiet", env=env, cwd=tmp_path)  # fmt: skip
            assert out.returncode == 0, out.stderr
            out = command("run", "--model", "echo", "--base-url", url, "--cache", str(cache),
                          "--json", "What is 2+2?", env=env, cwd=tmp_path)  # fmt: skip
            assert out.returncode == 0, out.stderr
        received = " ".join(str(r.headers) for r in server.requests)
    assert "Basic " in received  # the URL's user and password really went out and back
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert cache in files and (results / "results.jsonl") in files
    assert b"[redacted]" in cache.read_bytes()
    secrets = (KEY, USER, URL_PASSWORD, PROXY_PASSWORD, HEADER_TOKEN)
    found = {
        (str(p.relative_to(tmp_path)), secret)
        for p in files
        for secret in secrets
        for form in _encodings(secret)
        if form.lower().encode() in p.read_bytes().lower()
    }
    assert found == set()
