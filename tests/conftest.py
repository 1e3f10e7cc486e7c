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
