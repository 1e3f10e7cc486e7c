import functools
import os
import socket

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.pop("OPENAI_API_KEY", None)


def _one_tls_context_per_trust_setting() -> None:
    """Build the HTTP clients' default TLS context once, not once per client.

    Every OpenAI-compatible client a test builds loads the system's CA bundle into a fresh
    context (30-80 ms of CPU each, hundreds of clients a run). Tests speak plain HTTP to
    loopback and never verify a certificate, so one context per trust setting serves them.
    """
    try:
        import httpcore2
    except ImportError:  # an older openai on plain httpx: nothing to share
        return

    build = httpcore2.default_ssl_context

    @functools.cache
    def built(trust_env: bool, cert_file: str | None, cert_dir: str | None):
        return build(_trust_env=trust_env)

    def shared(*, _trust_env: bool = True):
        env = os.environ
        return built(_trust_env, env.get("SSL_CERT_FILE"), env.get("SSL_CERT_DIR"))

    httpcore2.default_ssl_context = shared


_one_tls_context_per_trust_setting()


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Unit tests never reach the network: any outbound connection fails loudly."""

    def refuse(*args, **kwargs):
        raise RuntimeError("network access in a unit test")

    monkeypatch.setattr(socket.socket, "connect", refuse)


_REAL_CONNECT = socket.socket.connect
_LOOPBACK = frozenset({"127.0.0.1", "::1"})


@pytest.fixture
def loopback(no_network, monkeypatch):
    """Opt-in: allow connections to 127.0.0.1 / ::1 (a local test server), refuse anything else."""

    def connect(self, address, *args, **kwargs):
        host = address[0] if isinstance(address, tuple) else None
        if self.family in (socket.AF_INET, socket.AF_INET6) and host in _LOOPBACK:
            return _REAL_CONNECT(self, address, *args, **kwargs)
        raise RuntimeError(f"network access in a unit test (only loopback allowed): {address!r}")

    monkeypatch.setattr(socket.socket, "connect", connect)


@pytest.fixture
def clean_langsmith(monkeypatch):
    """No LangSmith tracing, key or workspace variable; LangSmith's state put back after.

    LangSmith caches what it read of the environment, has a global tracing switch, and
    debategraph routes its ``langsmith`` logger: all are as they were once the test ends.
    """
    import logging

    import langsmith
    from langsmith.utils import get_env_var

    from debategraph.tracing_guard import TRACING_VARIABLES

    for name in (*TRACING_VARIABLES, "LANGCHAIN_API_KEY", "LANGSMITH_WORKSPACE_ID"):
        monkeypatch.delenv(name, raising=False)
    logger = logging.getLogger("langsmith")
    handlers, propagate = list(logger.handlers), logger.propagate
    get_env_var.cache_clear()
    yield
    logger.handlers[:] = handlers
    logger.propagate = propagate
    langsmith.configure(enabled=None)
    get_env_var.cache_clear()
