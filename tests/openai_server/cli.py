"""The command line, ``python -m tests.openai_server``: the server as a process."""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Sequence

from tests.openai_server.replies import USAGE_DETAILS
from tests.openai_server.responders import THINKING_SHAPES
from tests.openai_server.server import Server


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tests.openai_server",
        description="OpenAI-compatible chat-completions server on 127.0.0.1 with faults. "
        "Prints its base URL on the first line, then serves until killed.",
    )
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    responders = ["simulated", "echo", *(f"thinking-{s}" for s in THINKING_SHAPES)]
    parser.add_argument("--responder", default="simulated", choices=responders)
    parser.add_argument("--reply", action="append", help="scripted reply (repeat for more)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per chat request")
    parser.add_argument("--chunk-delay", type=float, default=0.0)
    parser.add_argument("--fault", action="append", default=[], help="scripted fault, in order")
    parser.add_argument(
        "--fault-rate", action="append", default=[], metavar="KIND=P", help="random fault rate"
    )
    parser.add_argument("--fault-seed", type=int)
    parser.add_argument("--retry-after", type=float, default=1.0)
    parser.add_argument("--echo-secrets", action="store_true")
    parser.add_argument("--huge-bytes", type=int, default=1_000_000)
    parser.add_argument("--api-key")
    parser.add_argument("--log-limit", type=int, default=10_000)
    parser.add_argument("--usage-details", default="openai", choices=USAGE_DETAILS)
    parser.add_argument("--prompt-cache-block", type=int, default=0)
    parser.add_argument("--reasoning-tokens", type=int, default=0)
    return parser


async def _serve_forever(server: Server) -> None:
    await server.start()
    print(server.base_url, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await server.aclose()


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point: ``python -m tests.openai_server --help``."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        rates = {kind: float(p) for kind, _, p in (r.partition("=") for r in args.fault_rate)}
        server = _server_from(args, rates)
    except ValueError as exc:
        parser.error(str(exc))
    asyncio.run(_serve_forever(server))


def _server_from(args: argparse.Namespace, rates: dict[str, float]) -> Server:
    return Server(
        port=args.port,
        responder=args.reply or args.responder,
        seed=args.seed,
        latency=args.latency,
        chunk_delay=args.chunk_delay,
        faults=args.fault,
        fault_rates=rates,
        fault_seed=args.fault_seed,
        retry_after=args.retry_after,
        echo_secrets=args.echo_secrets,
        huge_bytes=args.huge_bytes,
        api_key=args.api_key,
        log_limit=args.log_limit,
        usage_details=args.usage_details,
        prompt_cache_block=args.prompt_cache_block,
        reasoning_tokens=args.reasoning_tokens,
    )
