"""The spend guard: --max-usd / --max-tokens-total stop a run within one window, and resume."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
from typer.testing import CliRunner

from debategraph.cli import app
from debategraph.eval.datasets import arithmetic_items
from debategraph.eval.log.files import RESULTS_FILE
from debategraph.eval.log.ledger import read_ledger, spend_on_record
from debategraph.eval.log.spend import COVERS_KEY, SpendGuard
from debategraph.eval.run.cut_short import SPEND_NOTES
from debategraph.eval.run.runner import Arm, SpendLimit, SpendLimitReached, evaluate

from .openai_server import serve
from .test_spend_notes import billed, served, settle

runner = CliRunner()


def test_the_guard_adds_notes_and_trips_once_at_the_limit() -> None:
    limit = SpendLimit(max_usd=1.0, prices={"input": 0.01, "output": 0.02})
    guard = SpendGuard(limit, input_tokens=40, output_tokens=10)  # $0.60 on record
    assert not guard.reached()
    assert guard.add({"input_tokens": 10, "output_tokens": 5}) is False  # $0.80
    assert guard.add({"requests": 1}) is False
    assert guard.add({"input_tokens": 10, "output_tokens": 5}) is True  # $1.00: reached
    words = guard.words("out")
    assert guard.add({"input_tokens": 1}) is False  # once
    assert words.startswith("stopped: the spend limit --max-usd 1 is reached: out has spent "
                            "60 input and 20 output tokens ($1.0000)")  # fmt: skip
    assert "raise --max-usd and run the same command again" in words
    tokens = SpendGuard(SpendLimit(max_tokens=100), 60, 39)
    assert not tokens.reached() and tokens.add({"output_tokens": 1})
    assert "--max-tokens-total 100 is reached" in tokens.words("out")


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--max-usd", "0", "--prices", "1,1"], "--max-usd must be above 0 and at most 1000000000"),
        (["--max-usd", "-2", "--prices", "1,1"], "--max-usd must be above 0 and at most"),
        (["--max-usd", "nan", "--prices", "1,1"], "--max-usd must be above 0 and at most"),
        (["--max-usd", "1"], "--max-usd needs the prices of tokens: give --prices IN,OUT"),
        (["--max-tokens-total", "0"], "--max-tokens-total must be 1 to 1000000000000000, got 0"),
    ],
)
def test_a_limit_that_cannot_be_kept_is_refused_with_no_request(
    flags, says, loopback, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with serve(seed=3) as server:
        out = tmp_path / "out"
        command = ["eval", "--method", "cot", "--dataset", "arithmetic", "--limit", "2",
                   "--model", "sim-0", "--base-url", server.base_url, "--out", str(out),
                   "--quiet", *flags]  # fmt: skip
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        assert says in result.stderr and len(result.stderr.strip().splitlines()) == 1
        assert server.stats()["chat_requests"] == 0
        assert not out.exists()


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with serve(seed=3, latency=0.02) as running:
        yield running


def arms(server) -> list[Arm]:
    settings = {"agents": 3, "rounds": 2, "models": "sim-0", "base_url": server.base_url}
    return [Arm("du", "du", settings)]


def window(server, concurrency: int) -> int:
    """The most tokens ``concurrency`` calls in flight can add: the largest replies, summed."""
    sizes = sorted(
        (r.usage["prompt_tokens"] + r.usage["completion_tokens"] for r in server.requests
         if r.usage is not None),
        reverse=True,
    )  # fmt: skip
    return sum(sizes[:concurrency])


@pytest.mark.slow
def test_a_token_limit_stops_the_run_within_one_window_and_a_higher_one_resumes(server, tmp_path):
    items = arithmetic_items(10, seed=4)
    out = tmp_path / "run"
    limit = 20000
    with pytest.raises(SpendLimitReached, match="--max-tokens-total 20000 is reached"):
        evaluate(items, arms(server), out, dataset="arithmetic", concurrency=4,
                 spend_limit=SpendLimit(max_tokens=limit))  # fmt: skip
    settle(server)
    spent = billed(out)
    assert spent[:2] == served(server)  # rows + ledger = the server's count
    assert limit <= spent[0] + spent[1] <= limit + window(server, 4)
    rows = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]
    assert 0 < len(rows) < 10

    requests = server.stats()["chat_requests"]
    with pytest.raises(SpendLimitReached):  # the same limit: stopped at once, no request
        evaluate(items, arms(server), out, dataset="arithmetic", concurrency=4,
                 spend_limit=SpendLimit(max_tokens=limit))  # fmt: skip
    assert server.stats()["chat_requests"] == requests

    done = evaluate(items, arms(server), out, dataset="arithmetic", concurrency=4,
                    spend_limit=SpendLimit(max_tokens=10**9))  # fmt: skip
    assert done.count == 10 and done.failed == 0
    settle(server)
    assert billed(out)[:2] == served(server)
    total = spend_on_record(out)
    assert (total["input_tokens"], total["output_tokens"]) == served(server)


@pytest.mark.slow
def test_max_usd_stops_the_command_with_one_line_and_resumes(server, tmp_path):
    out = tmp_path / "run"
    base = ["eval", "--method", "du", "--rounds", "2", "--dataset", "arithmetic", "--limit",
            "8", "--model", "sim-0", "--base-url", server.base_url, "--concurrency", "3",
            "--out", str(out), "--quiet", "--prices", "1000,2000"]  # fmt: skip
    # $1000 and $2000 per 1M tokens: a dollar buys 1000 input tokens, or 500 output ones.
    stopped = runner.invoke(app, [*base, "--max-usd", "2"])
    assert stopped.exit_code == 1, stopped.output
    line = stopped.stderr.strip()
    assert line.startswith("error: stopped: the spend limit --max-usd 2 is reached:")
    assert len(line.splitlines()) == 1
    settle(server)
    spent = billed(out)
    assert spent[:2] == served(server)
    cost = spent[0] * 0.001 + spent[1] * 0.002
    assert 2 <= cost <= 2 + window(server, 3) * 0.002
    assert read_ledger(out)["cut_short"]  # the debates in progress were cut short, logged
    done = runner.invoke(app, [*base, "--max-usd", "1000"])
    assert done.exit_code == 0, done.output
    settle(server)
    rows = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]
    assert len(rows) == 8 and billed(out)[:2] == served(server)


class NotingExecutor:
    """Runs each unit as one 100-token request, noted and covered by its row.

    ``swallow`` eats a cancellation; ``pause`` False lets no cancellation in.
    """

    def __init__(self, swallow: bool = False, pause: bool = True) -> None:
        self.swallow = swallow
        self.pause = pause
        self.ran = 0

    def check(self, job) -> None:
        pass

    async def run(self, job, work, deliver) -> int:
        note = SPEND_NOTES.get()
        for unit in work:
            self.ran += 1
            for label in unit.labels:
                note({"method": label, "id": unit.item.id, "attempt": f"{label}{unit.item.id}",
                      "n": 1, "input_tokens": 100, "requests": 1})  # fmt: skip
                if self.swallow:  # a cleanup that suppresses everything, as Ray's took
                    with contextlib.suppress(BaseException):
                        await asyncio.sleep(0.01)
                elif self.pause:
                    await asyncio.sleep(0)
                covers = {"attempt": f"{label}{unit.item.id}", "notes": 1}
                deliver({"method": label, "id": unit.item.id, "answer": "1", "correct": True,
                         "input_tokens": 100, "output_tokens": 0, "calls": 1,
                         "round_answers": [], "requests": 1, COVERS_KEY: covers})  # fmt: skip
        return 1


def cot() -> list[Arm]:
    return [Arm("cot", "cot", {"models": "simulated"})]


def test_a_stop_that_the_executor_swallows_still_stops_the_run(tmp_path):
    items = arithmetic_items(6, seed=1)
    executor = NotingExecutor(swallow=True)
    with pytest.raises(SpendLimitReached, match="--max-tokens-total 250 is reached"):
        evaluate(items, cot(), tmp_path, dataset="arithmetic", executor=executor,
                 spend_limit=SpendLimit(max_tokens=250))  # fmt: skip
    assert executor.ran == 3  # the third request reached the limit: no unit after it
    done = evaluate(items, cot(), tmp_path, dataset="arithmetic", executor=NotingExecutor(),
                    spend_limit=SpendLimit(max_tokens=10_000))  # fmt: skip
    assert done.count == 6 and done.written == 6 - 3 + (executor.ran - 3)


def test_a_finished_run_at_its_limit_does_nothing_and_is_not_refused(tmp_path):
    items = arithmetic_items(3, seed=1)
    evaluate(items, cot(), tmp_path, dataset="arithmetic", executor=NotingExecutor())
    assert spend_on_record(tmp_path)["input_tokens"] == 300
    again = NotingExecutor()
    done = evaluate(items, cot(), tmp_path, dataset="arithmetic", executor=again,
                    spend_limit=SpendLimit(max_tokens=100))  # fmt: skip
    assert done.count == 3 and done.written == 0 and again.ran == 0


def test_a_limit_reached_by_the_last_reply_stops_nothing(tmp_path):
    items = arithmetic_items(3, seed=1)
    limit = SpendLimit(max_tokens=300)
    done = evaluate(items, cot(), tmp_path, dataset="arithmetic",
                    executor=NotingExecutor(pause=False), spend_limit=limit)  # fmt: skip
    assert done.count == 3 and done.written == 3


def test_once_a_run_halts_its_calls_no_call_takes_a_slot() -> None:
    import threading

    from debategraph.nodes.call import CALLS_HALTED, CallLimiter

    async def scenario() -> None:
        limiter, halted, sent = CallLimiter(2), threading.Event(), []

        async def call() -> None:
            async with limiter:
                sent.append(1)
                await asyncio.sleep(0)

        token = CALLS_HALTED.set(halted)
        try:
            await call()
            halted.set()
            waiting = asyncio.ensure_future(call())
            await asyncio.sleep(0.05)
            assert not waiting.done() and sent == [1] and limiter.in_flight == 0
            waiting.cancel()  # what the stopping run does
            with pytest.raises(asyncio.CancelledError):
                await waiting
        finally:
            CALLS_HALTED.reset(token)
        await asyncio.gather(call(), call())  # both slots were given back
        assert sent == [1, 1, 1] and limiter.peak == 2

    asyncio.run(scenario())
