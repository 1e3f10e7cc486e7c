import os
import socket

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.pop("OPENAI_API_KEY", None)


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
