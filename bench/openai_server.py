"""Throughput and concurrency of the loopback OpenAI server (tests/openai_server/).

    PYTHONPATH=src python bench/openai_server.py [--seconds 3] [--connections 16]

1. Requests/s of one server process pinned to one core, scripted one-word replies, no
   latency, driven by a raw keep-alive HTTP/1.1 load generator pinned to another core.
2. The same through the real ``openai.AsyncOpenAI`` client (client-bound: it shows what a
   benchmark using the client can expect, not the server's limit).
3. 64 concurrent requests at 100 ms latency, through ``openai.AsyncOpenAI`` and through a bare
   HTTP client (64 fresh connections): wall time and the server's peak in-flight counter,
   server in-process (thread) and as a separate process.
"""

import argparse
import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import openai
from tests.openai_server import serve, spawn

BODY = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()


def pin(pid: int, cpu: int) -> None:
    if hasattr(os, "sched_setaffinity") and cpu < (os.cpu_count() or 1):
        os.sched_setaffinity(pid, {cpu})


async def raw_load(port: int, seconds: float, connections: int) -> int:
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%b" % (len(BODY), BODY)
    )
    deadline = time.perf_counter() + seconds
    done = 0

    async def worker() -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.perf_counter() < deadline:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
            await reader.readexactly(length)
            done += 1
        writer.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return done


async def client_load(base_url: str, seconds: float, connections: int) -> int:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)
    deadline = time.perf_counter() + seconds
    done = 0

    async def worker() -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}]
            )
            done += 1

    await asyncio.gather(*(worker() for _ in range(connections)))
    await client.close()
    return done


async def raw_burst(port: int, n: int) -> float:
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%b" % (len(BODY), BODY)
    )

    async def one() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(int(re.search(rb"Content-Length: (\d+)", head).group(1)))
        writer.close()
        await writer.wait_closed()

    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return time.perf_counter() - started


async def burst(base_url: str, n: int) -> float:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)

    async def one():
        return await client.chat.completions.create(
            model="sim-0", messages=[{"role": "user", "content": "Question: What is 2+2?"}]
        )

    await one()  # warm up
    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    elapsed = time.perf_counter() - started
    await client.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    pin(0, 1)
    with spawn(responder=["ok"]) as remote:
        pin(remote.process.pid, 0)
        port = int(remote.base_url.rsplit(":", 1)[1].split("/")[0])
        asyncio.run(raw_load(port, 0.5, args.connections))  # warm up
        remote.reset()
        n = asyncio.run(raw_load(port, args.seconds, args.connections))
        print(
            f"raw keep-alive load, {args.connections} connections, server on 1 core: "
            f"{n / args.seconds:.0f} req/s (server counted {remote.stats()['completed']})"
        )
        n = asyncio.run(client_load(remote.base_url, args.seconds, args.connections))
        print(f"openai.AsyncOpenAI load, {args.connections} tasks: {n / args.seconds:.0f} req/s")

    for mode in ("thread", "process"):
        context = serve(latency=0.1) if mode == "thread" else spawn(latency=0.1)
        with context as server:
            if mode == "process":
                pin(server.process.pid, 0)
            port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
            server.reset()
            elapsed = asyncio.run(burst(server.base_url, 64))
            stats = server.stats()
            server.reset()
            bare = asyncio.run(raw_burst(port, 64))
            bare_peak = server.stats()["peak_in_flight"]
        print(
            f"64 concurrent x 100 ms, simulated debater, server in a {mode}: "
            f"openai.AsyncOpenAI {elapsed * 1000:.0f} ms wall (peak in flight "
            f"{stats['peak_in_flight']}); bare client {bare * 1000:.0f} ms (peak {bare_peak})"
        )


if __name__ == "__main__":
    main()
