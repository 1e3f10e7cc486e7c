"""A loopback stand-in for LangSmith that refuses or fails: a status per path, every request kept.

It speaks what the ``langsmith`` client and debategraph ask of LangSmith: ``GET /sessions``
(the tracing check), ``GET /info``, ``POST /runs/multipart`` and ``POST /runs/batch`` (trace
batches) and ``POST /datasets/upload-experiment`` (``export --to langsmith``). Each answer
carries a JSON ``detail`` that echoes the key it was sent, as a careless server might, so a
test sees whether any of the server's answer reaches the user.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class StandIn:
    """The server's rules and what it was asked.

    Attributes:
        status: The status of every answer whose path no entry of ``by_path`` starts.
        by_path: Statuses by path prefix (``"/sessions": 200``).
        seen: ``(method, path, x-api-key)`` of each request, in order.
        bodies: ``(path, content-encoding, body)`` of each request with a body, in order.
        url: The server's address, once it runs.
    """

    status: int
    by_path: dict[str, int] = field(default_factory=dict)
    seen: list[tuple[str, str, str | None]] = field(default_factory=list)
    bodies: list[tuple[str, str | None, bytes]] = field(default_factory=list)
    url: str = ""

    def status_of(self, path: str) -> int:
        """The status the server answers ``path`` with."""
        for prefix, status in self.by_path.items():
            if path.startswith(prefix):
                return status
        return self.status


_FLAGS = {"zstd_compression_enabled": True}
"""What LangSmith says it takes; without this, LangSmith's client warns of an old server."""


class _Handler(BaseHTTPRequestHandler):
    stand_in: StandIn

    def do_request(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(size)
        if body:
            self.stand_in.bodies.append((self.path, self.headers.get("content-encoding"), body))
        key = self.headers.get("x-api-key")
        self.stand_in.seen.append((self.command, self.path, key))
        status = self.stand_in.status_of(self.path)
        if status < 300:
            document: Any = {}
            if self.path.startswith("/sessions"):
                document = []
            elif self.path.startswith("/info"):  # as LangSmith describes itself
                document = {"version": "0.0.0", "instance_flags": _FLAGS}
        else:
            document = {"detail": f"no entry for key {key}"}
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_request

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def serving(stand_in: StandIn) -> Iterator[StandIn]:
    """Run ``stand_in`` on a loopback port for the block; its ``url`` says where."""
    handler = type("Handler", (_Handler,), {"stand_in": stand_in})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()  # stops fast
    stand_in.url = f"http://127.0.0.1:{server.server_port}"
    try:
        yield stand_in
    finally:
        server.shutdown()
        server.server_close()
