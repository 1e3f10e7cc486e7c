"""Debates against a real OpenAI-compatible HTTP server on loopback: loops, streaming, faults."""

import asyncio
import time

import pytest
from langgraph.types import RetryPolicy

import debategraph as dg
from debategraph import DebateContext, build_debate_graph
from debategraph.policies.retry import is_transient

from .helpers import without_timings
from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"
FAST_RETRY = RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False, retry_on=is_transient)


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-key")
    with serve(seed=3) as running:
        yield running


def run(server, **kwargs):
    settings = {"method": "du", "agents": 2, "rounds": 1, "models": "sim-0"}
    return dg.run(ARITH, base_url=server.base_url, retry_policy=FAST_RETRY, **settings | kwargs)


def test_run_twice_and_arun_in_two_loops_against_a_real_server(server):
    first, second = run(server), run(server)
    assert first.answer == second.answer == "15"

    async def once():
        return await dg.arun(
            ARITH, method="mav", agents=2, models="sim-0", base_url=server.base_url
        )

    assert asyncio.run(once()).answer == asyncio.run(once()).answer
    assert server.stats()["chat_requests"] == 4 + 4 + 2 + 2
    assert all(not t["usage_estimated"] for t in first.turns)


def test_streamed_runs_keep_the_servers_token_counts(server):
    graph = build_debate_graph("mav", agents=2).compile()
    ctx = DebateContext(models=["sim-0"], base_url=server.base_url)

    async def stream():
        chunks, final = 0, None
        async for namespace, mode, data in graph.astream(
            {"question": ARITH},
            context=ctx,
            stream_mode=["messages", "values"],
            subgraphs=True,
        ):
            chunks += mode == "messages"
            final = data if mode == "values" and not namespace else final
        return chunks, final

    chunks, final = asyncio.run(stream())
    assert chunks > 2  # the calls really streamed
    assert server.stats()["streamed"] == 2
    for turn in final["turns"]:
        assert not turn["usage_estimated"] and turn["input_tokens"] > 0


@pytest.mark.parametrize("fault", ["http500", "malformed", "no_choices", "empty", "reset"])
def test_transient_faults_are_retried_once_each_and_recorded(server, fault):
    server.faults.push(fault)
    result = run(server, agents=1, rounds=0, method="cot")
    assert result.answer == "15"
    assert result.turns[0]["attempts"] == 2
    assert server.stats()["chat_requests"] == 2


def test_retry_after_is_honoured(server):
    server.configure({"retry_after": 0.3})
    server.faults.push("http429")
    start = time.perf_counter()
    result = run(server, agents=1, rounds=0, method="cot")
    assert time.perf_counter() - start >= 0.3
    assert result.turns[0]["attempts"] == 2


def test_a_hung_request_times_out_and_is_retried(server):
    server.faults.push("hang")
    result = run(server, agents=1, rounds=0, method="cot", timeout=0.5)
    assert result.answer == "15" and result.turns[0]["attempts"] == 2


@pytest.mark.parametrize(
    ("fault", "status"), [("http401", 401), ("http404", 404), ("http400", 400)]
)
def test_client_errors_are_never_retried(server, fault, status):
    server.faults.push(fault, fault, fault)
    with pytest.raises(Exception) as info:
        run(server, agents=1, rounds=0, method="cot")
    assert getattr(info.value, "status_code", None) == status
    assert server.stats()["chat_requests"] == 1


def test_the_openai_client_adds_no_retries_of_its_own(server):
    server.faults.push("http500", "http500", "http500", "http500")
    with pytest.raises(Exception, match="500"):
        run(server, agents=1, rounds=0, method="cot")
    assert server.stats()["chat_requests"] == 3  # the policy's three attempts, no more


def test_a_call_cache_makes_a_rerun_free_without_merging_agents(server, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    cache = tmp_path / "calls.sqlite"
    arms = [Arm("sc", "sc", {"agents": 3, "models": "sim-0", "base_url": server.base_url})]
    items = arithmetic_items(4, seed=5)
    first = evaluate(items, arms, tmp_path / "one", dataset="arithmetic", cache=cache)
    calls = server.stats()["chat_requests"]
    assert calls == 4 * 3  # three samples of one model with one prompt: three requests each
    again = evaluate(items, arms, tmp_path / "two", dataset="arithmetic", cache=cache)
    assert server.stats()["chat_requests"] == calls  # the rerun made no model call
    assert without_timings(again.rows) == [
        {
            **r,
            "requests": 0,
            "cached_calls": r["calls"],
            "usage_by_source": {
                "paid": {"calls": 0, "input_tokens": 0, "output_tokens": 0},
                "cached": r["usage_by_source"]["paid"],
            },
            "turns": [{**t, "cached": True} for t in r["turns"]],
        }
        for r in without_timings(first.rows)
    ]  # same rows, but every call replayed: no request reached the provider


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["empty", "http500", "malformed", "no_choices", "non_utf8"])
def test_a_retried_request_is_counted_in_the_rows_spend(server, tmp_path, fault):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    server.faults.push(fault)
    arms = [Arm("cot", "cot", {"models": "sim-0", "base_url": server.base_url})]
    outcome = evaluate(arithmetic_items(1), arms, tmp_path, dataset="arithmetic")
    (row,) = outcome.rows
    assert (row["calls"], row["requests"], row["failed_requests"]) == (1, 2, 1)
    if fault in ("empty", "no_choices", "non_utf8"):  # a reply arrived: its tokens are wasted
        assert row["wasted_input_tokens"] > 0
        assert (row["wasted_output_tokens"] > 0) == (fault != "empty")


@pytest.mark.slow
def test_an_eval_through_faults_loses_and_duplicates_nothing(server, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.report.writer import write_report
    from debategraph.eval.run.runner import Arm, evaluate

    items = arithmetic_items(8, seed=4)
    arms = [Arm("du", "du", {"agents": 2, "rounds": 1, "models": "sim-0",
                             "base_url": server.base_url, "timeout": 1})]  # fmt: skip
    clean = evaluate(items, arms, tmp_path / "clean", dataset="arithmetic")
    server.reset()
    server.faults.push("http500", "malformed", "no_choices", "empty", "reset", "http429")
    server.configure({"retry_after": 0.05})
    faulty = evaluate(items, arms, tmp_path / "faulty", dataset="arithmetic", concurrency=4)
    keys = [(r["method"], r["id"]) for r in faulty.rows]
    assert len(keys) == len(set(keys)) == 8 and faulty.failed == 0
    spend = ("requests", "failed_requests", "wasted_input_tokens", "wasted_output_tokens",
             "throttled_s")  # fmt: skip
    assert without_timings(faulty.rows, spend) == without_timings(clean.rows, spend)
    assert sum(r.get("throttled_s", 0) for r in faulty.rows) == 0.05  # the one 429's wait
    assert sum(r["requests"] for r in faulty.rows) == 8 * 4 + 6
    assert sum(r["failed_requests"] for r in faulty.rows) == 6
    report = write_report(tmp_path / "faulty", plots=False).read_text()
    assert "## Spending on the provider" in report and "| du | 38 | 32 | 6 |" in report


@pytest.mark.slow
def test_timeout_bounds_the_whole_call_even_when_the_body_trickles(server):
    server.configure({"trickle_delay": 1.0})
    server.faults.push("trickle")  # about 600 bytes at one byte a second
    start = time.perf_counter()
    r = dg.run(ARITH, method="cot", models="sim-0", base_url=server.base_url, timeout=1.5,
               retry_backoff=0.01)  # fmt: skip
    took = time.perf_counter() - start
    assert r.answer == "15" and r.turns[0]["attempts"] == 2
    assert took < 1.5 + 2.5, f"the trickled attempt ran {took:.1f} s past its deadline"


@pytest.mark.slow
def test_the_default_retries_survive_a_fifth_of_requests_failing(server, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    server.configure({"fault_rates": {"http500": 0.2}})
    arms = [Arm("du", "du", {"models": "sim-0", "base_url": server.base_url,
                             "retry_backoff": 0.001})]  # fmt: skip
    outcome = evaluate(arithmetic_items(20, seed=3), arms, tmp_path, dataset="arithmetic",
                       concurrency=1)  # fmt: skip
    assert outcome.failed == 0 and len(outcome.rows) == 20
    assert sum(r["failed_requests"] for r in outcome.rows) > 20  # the faults did happen


def test_retry_settings_are_checked_before_any_call(server):
    for bad, message in (({"max_attempts": 0}, "1 to 20"), ({"retry_backoff": -1}, "0 or more")):
        with pytest.raises(dg.DebateConfigError, match=message):
            dg.run(ARITH, method="cot", models="sim-0", base_url=server.base_url, **bad)
    assert server.stats()["chat_requests"] == 0


def test_an_openai_compatible_server_gets_max_tokens_in_the_form_it_honours(server):
    r = dg.run(ARITH, method="cot", models="sim-0", base_url=server.base_url, max_tokens=20)
    body = server.requests[-1].body
    assert body["max_tokens"] == 20 and "max_completion_tokens" not in body
    assert r.turns[0]["output_tokens"] <= 20


def test_max_tokens_reaches_the_server_from_the_command_line_and_a_graph_context(server, tmp_path):
    from typer.testing import CliRunner

    from debategraph.cli import app
    from debategraph.graphs.studio import graph

    cli = CliRunner()
    flags = ["--method", "cot", "--model", "sim-0", "--base-url", server.base_url]
    ran = cli.invoke(app, ["run", ARITH, *flags, "--max-tokens", "20"])
    limits = ["--max-tokens", "30", "--out", str(tmp_path), "--quiet"]
    evaluated = cli.invoke(
        app, ["eval", "--dataset", "arithmetic", "--limit", "1", *flags, *limits]
    )
    assert ran.exit_code == evaluated.exit_code == 0, ran.output + evaluated.output
    context = {"models": ["sim-0"], "base_url": server.base_url, "max_tokens": 40}
    graph("cot").invoke({"question": ARITH}, context=context)
    sent = [r.body.get("max_tokens") for r in server.requests]
    assert sent[0] == 20 and sent[-1] == 40 and 30 in sent
    assert not any("max_completion_tokens" in r.body for r in server.requests)


def test_openais_own_api_gets_its_current_field(monkeypatch):
    from langchain_core.messages import HumanMessage

    from debategraph.models.resolve import _new_provider

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-sent")
    model = _new_provider("openai:gpt-4o-mini", None, None)  # uncached: the key is this test's
    payload = model.bind(max_tokens=20)._get_request_payload([HumanMessage("hi")], max_tokens=20)
    assert payload["max_completion_tokens"] == 20 and "max_tokens" not in payload


def test_every_method_asks_for_logprobs_the_one_way_llama_cpp_needs(server):
    from debategraph.methods.registry import get_method, method_names

    asking = []
    for method in method_names():  # the built-ins and any registered later
        server.requests.clear()
        rounds = {"rounds": 1} if get_method(method).debates else {}
        dg.run(ARITH, method=method, models="sim-0", base_url=server.base_url, **rounds)
        asked = [r.body for r in server.requests if r.body.get("logprobs")]
        assert all("top_logprobs" in body for body in asked), method
        asking += [method] * bool(asked)
    assert {"svr", "madm2-o", "sid-et"} <= set(asking)
    dg.run(ARITH, method="cot", models="sim-0", base_url=server.base_url, logprobs=True)
    assert server.requests[-1].body["top_logprobs"] == 0
