"""Proxy passwords and credential headers a reply echoes never reach stored rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_openai import ChatOpenAI

from debategraph import Agent
from debategraph.eval.datasets import Item
from debategraph.eval.run.runner import Arm, evaluate
from debategraph.models.credentials import model_secrets
from debategraph.policies.secrets import (
    Redactor,
    environment_secrets,
    header_secrets,
    parse_headers,
)
from debategraph.testing import ScriptedChatModel

from .openai_server import serve

PROXY_PASSWORD = "Pr0xy-Passw0rd"
HEADER_VALUE = "hdr-Sentinel-5150"
BEARER = "tok-Sentinel-8080"
ITEMS = [Item("q1", "What is 3 + 4?", "7")]


def test_proxy_urls_give_their_passwords_with_or_without_a_scheme() -> None:
    env = {
        "HTTP_PROXY": "http://proxyuser:Pr0xy%2DPassw0rd@proxy.example:3128",
        "https_proxy": f"proxyuser:{PROXY_PASSWORD}@proxy.example:3128",
        "ALL_PROXY": "socks5://proxy.example:1080",  # no credentials
        "HOME": "/root",
    }
    assert environment_secrets(env) == [
        "Pr0xy%2DPassw0rd",
        PROXY_PASSWORD,
        PROXY_PASSWORD,
        PROXY_PASSWORD,
    ]
    redact = Redactor.from_environment(env)
    assert redact(f"the proxy password is {PROXY_PASSWORD}.") == "the proxy password is [redacted]."
    assert redact("proxyuser at proxy.example") == "proxyuser at proxy.example"


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization=Bearer%20{BEARER},X-Team=blue",  # OTEL_EXPORTER_OTLP_HEADERS style
        f"Authorization: Bearer {BEARER}\nX-Team: blue",  # one header a line
        f'{{"Authorization": "Bearer {BEARER}", "X-Team": "blue"}}',  # JSON
    ],
)
def test_credential_headers_in_a_setting_are_secrets_and_others_are_not(text: str) -> None:
    assert parse_headers(text) == {"Authorization": f"Bearer {BEARER}", "X-Team": "blue"}
    assert header_secrets(parse_headers(text)) == [f"Bearer {BEARER}", BEARER]
    env = {"OTEL_EXPORTER_OTLP_HEADERS": text}
    assert Redactor.from_environment(env)(f"echo {BEARER} blue") == "echo [redacted] blue"


def test_header_names_that_say_credential_are_taken() -> None:
    headers = {
        "X-Api-Key": "k-123456",
        "Ocp-Apim-Subscription-Key": "s-123456",
        "Cookie": "session=abcdef",
        "Helicone-Auth": "Bearer h-123456",
        "X-Team": "blue-team",
        "Content-Type": "application/json",
    }
    assert header_secrets(headers) == [
        "k-123456", "s-123456", "session=abcdef", "Bearer h-123456", "h-123456",
    ]  # fmt: skip


def test_a_model_object_gives_its_key_headers_and_url_password() -> None:
    model = ChatOpenAI(
        model="m",
        api_key="sk-object-key-1234",
        base_url="http://bob:url-pass-99@127.0.0.1:9/v1",
        default_headers={"X-Api-Key": HEADER_VALUE, "X-Team": "blue-team"},
    )
    bound = model.bind(extra_headers={"Authorization": f"Bearer {BEARER}"})
    found = set(model_secrets([{"models": [Agent("a1", bound)], "rounds": 1}, "openai:gpt"]))
    assert found == {
        "sk-object-key-1234",
        "bob",
        "url-pass-99",
        HEADER_VALUE,
        f"Bearer {BEARER}",
        BEARER,
    }


def test_a_reply_echoing_the_proxy_password_is_stored_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", f"http://proxyuser:{PROXY_PASSWORD}@proxy.example:3128")
    model = ScriptedChatModel(replies=[f"My proxy password is {PROXY_PASSWORD}. Answer: 7"])
    arm = Arm("cot", "cot", {"models": model})
    outcome = evaluate(ITEMS, [arm], tmp_path / "out", dataset="own")
    stored = (tmp_path / "out" / "results.jsonl").read_text()
    assert outcome.failed == 0 and "My proxy password is [redacted]." in stored
    assert PROXY_PASSWORD not in stored


def test_a_reply_echoing_a_models_custom_auth_header_is_stored_redacted(
    tmp_path: Path, loopback: None
) -> None:
    with serve(responder="echo") as server:
        model = ChatOpenAI(
            model="echo",
            api_key="not-needed",
            base_url=f"http://127.0.0.1:{server.port}/v1",
            default_headers={"X-Gateway-Key": HEADER_VALUE},
            max_retries=0,
        )
        arm = Arm("cot", "cot", {"models": model})
        evaluate(ITEMS, [arm], tmp_path / "out", dataset="own")
        received = " ".join(str(r.headers) for r in server.requests)
    stored = (tmp_path / "out" / "results.jsonl").read_text()
    assert HEADER_VALUE in received  # the server got it and echoed it back
    assert HEADER_VALUE not in stored and "[redacted]" in stored
