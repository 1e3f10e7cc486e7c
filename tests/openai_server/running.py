"""Starting the server: on a background thread, or as a process driven over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.openai_server.responders import Responder
from tests.openai_server.server import Server


@contextlib.contextmanager
def serve(**options: Any) -> Iterator[Server]:
    """Run a :class:`Server` on a background thread with its own event loop.

    Args:
        **options: The :class:`Server` options.

    Yields:
        The running server; ``base_url`` is ready for the clients.
    """
    server = Server(**options)
    started = threading.Event()
    state: dict[str, Any] = {}

    async def main() -> None:
        try:
            await server.start()
        except BaseException as exc:
            state["error"] = exc
            started.set()
            return
        state["loop"], state["stop"] = asyncio.get_running_loop(), asyncio.Event()
        started.set()
        await state["stop"].wait()
        await server.aclose()

    thread = threading.Thread(target=asyncio.run, args=(main(),), name="openai-server")
    thread.daemon = True
    thread.start()
    started.wait()
    if "error" in state:
        thread.join()
        raise state["error"]
    try:
        yield server
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(timeout=10)


class RemoteServer:
    """A server running in another process (see :func:`spawn`), driven over HTTP.

    Attributes:
        base_url: ``http://127.0.0.1:<port>/v1``.
        process: The server process.
    """

    def __init__(self, base_url: str, process: subprocess.Popen[str]):
        self.base_url = base_url
        self.process = process
        self._root = base_url.removesuffix("/v1")

    def _call(self, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self._root + path, data=data, method="POST" if data else "GET"
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def stats(self, *, log: bool = False) -> dict[str, Any]:
        """The counters (``log=True``: with the request log under ``"log"``)."""
        return self._call(f"/_stats?log={int(log)}")

    def reset(self) -> dict[str, Any]:
        """As :meth:`Server.reset`; returns the fresh counters."""
        return self._call("/_reset", {})

    def configure(self, **settings: Any) -> dict[str, Any]:
        """As :meth:`Server.configure`; returns the settings now in force."""
        return self._call("/_config", settings)


def command_line(**options: Any) -> list[str]:
    """The ``python -m tests.openai_server`` arguments for :class:`Server` options.

    Only options the command line can express: a responder given by name or as a list of
    replies, faults by name.
    """
    args = ["--port", str(options.pop("port", 0))]
    responder = options.pop("responder", "simulated")
    if callable(responder) or isinstance(responder, Responder):
        raise ValueError("a separate process takes a responder name or a list of replies")
    if isinstance(responder, str):
        args += ["--responder", responder]
    else:
        for reply in responder:
            args += ["--reply", reply]
    for fault in options.pop("faults", ()):
        args += ["--fault", fault or "ok"]
    for kind, p in (options.pop("fault_rates", None) or {}).items():
        args += ["--fault-rate", f"{kind}={p}"]
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value not in (None, False):
            args += [flag, str(value)]
    return args


@contextlib.contextmanager
def spawn(*, startup_timeout: float = 30.0, **options: Any) -> Iterator[RemoteServer]:
    """Run the server as a separate process, for benchmarks that must not share its CPU.

    Args:
        startup_timeout: Seconds to wait for the base URL.
        **options: :class:`Server` options the command line can express.

    Yields:
        The running server; the process is terminated on exit.
    """
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.openai_server", *command_line(**options)],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        timer = threading.Timer(startup_timeout, process.kill)
        timer.start()
        try:
            line = process.stdout.readline().strip()
        finally:
            timer.cancel()
        if not line.startswith("http://"):
            raise RuntimeError(f"the server did not start (exit code {process.poll()})")
        yield RemoteServer(line, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
