"""The provider's bill: cached input and reasoning tokens, calls replayed from the cache, cost."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.cache.memory import InMemoryCache
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.commands import parse_prices
from debategraph.eval.log.bill import bill_cost, bill_of
from debategraph.eval.report.writer import write_report
from debategraph.models.usage_details import usage_details
from debategraph.nodes.call import UsageTotal

from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"


@pytest.fixture
def key(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-loopback-key")


def debate(server, **kwargs):
    settings = {"method": "du", "agents": 2, "rounds": 1, "models": "sim-0"}
    return dg.run(ARITH, base_url=server.base_url, **settings | kwargs)


def fields(turn_or_usage, names):
    return tuple(turn_or_usage.get(name) for name in names)


TURN = ("input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens")
SENT = ("prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")


@pytest.mark.parametrize(
    ("shape", "cached", "reasoning"),
    [
        ("openai", True, True),  # OpenAI: both details objects
        ("llama.cpp", True, False),  # llama.cpp, vLLM --enable-prompt-tokens-details
        ("null", False, False),  # vLLM's default: details null
        ("none", False, False),  # older llama.cpp: no details
    ],
)
def test_each_turn_records_what_the_server_billed_apart(key, shape, cached, reasoning):
    with serve(seed=3, usage_details=shape, prompt_cache_block=4, reasoning_tokens=7) as server:
        result = debate(server)
        sent = [request.usage for request in server.requests]
    # Calls run concurrently: compare the turns and the replies sent as multisets.
    assert Counter(fields(t, TURN) for t in result.turns) == Counter(fields(u, SENT) for u in sent)
    assert all(("cached_input_tokens" in t) == cached for t in result.turns)
    assert all(("reasoning_tokens" in t) == reasoning for t in result.turns)
    usage = result.usage
    if cached:
        # The two agents' round-0 prompts are the same: the second is served from the cache.
        assert usage["cached_input_tokens"] == sum(u["cached_tokens"] for u in sent) > 0
    else:
        assert "cached_input_tokens" not in usage  # unknown, not 0
    if reasoning:
        assert usage["reasoning_tokens"] == 7 * len(sent)
    else:
        assert "reasoning_tokens" not in usage
    assert usage["cached_calls"] == 0
    assert all(not t.get("cached") for t in result.turns)


def test_a_streamed_reply_records_them_too(key):
    from langchain_openai import ChatOpenAI

    with serve(seed=3, reasoning_tokens=5, prompt_cache_block=8) as server:
        model = ChatOpenAI(
            base_url=server.base_url, model="sim-0", streaming=True, stream_usage=True
        )
        result = dg.run(ARITH, method="du", agents=2, rounds=0, models=model)
        sent = [request.usage for request in server.requests]
        assert all(request.body["stream"] for request in server.requests)
    assert Counter(fields(t, TURN) for t in result.turns) == Counter(fields(u, SENT) for u in sent)
    assert sum(t["cached_input_tokens"] for t in result.turns) > 0


def test_usage_details_reads_langchains_fields():
    usage = {
        "input_tokens": 100,
        "output_tokens": 30,
        "input_token_details": {"audio": 0, "cache_read": 64, "cache_creation": 5},
        "output_token_details": {"reasoning": 12},
    }
    assert usage_details(usage) == {"cached_input_tokens": 64, "reasoning_tokens": 12}
    tier = {  # a priority service tier names them with its prefix
        "input_token_details": {"priority": 36, "priority_cache_read": 64},
        "output_token_details": {"priority": 18, "priority_reasoning": 12},
    }
    assert usage_details(tier) == {"cached_input_tokens": 64, "reasoning_tokens": 12}
    assert usage_details({"input_tokens": 3, "output_tokens": 4}) == {}
    assert usage_details(None) == {}


def test_an_agents_calls_add_up_their_details():
    def generation(cached, reasoning):
        usage = {"input_tokens": 50, "output_tokens": 20, "total_tokens": 70}
        if cached is not None:
            usage["input_token_details"] = {"cache_read": cached}
        if reasoning is not None:
            usage["output_token_details"] = {"reasoning": reasoning}
        return ChatGeneration(message=AIMessage("x", usage_metadata=usage))

    total = UsageTotal()
    total.on_llm_end(LLMResult(generations=[[generation(32, None)], [generation(16, 4)]]))
    usage = total.usage()
    assert usage is not None and (usage["input_tokens"], usage["output_tokens"]) == (100, 40)
    assert usage_details(usage) == {"cached_input_tokens": 48, "reasoning_tokens": 4}
    plain = UsageTotal()
    plain.on_llm_end(LLMResult(generations=[[generation(None, None)]]))
    assert usage_details(plain.usage()) == {}


def test_a_replayed_debate_says_so():
    cache = InMemoryCache()
    paid = dg.run(ARITH, method="du", agents=2, rounds=1, cache=cache)
    replay = dg.run(ARITH, method="du", agents=2, rounds=1, cache=cache)
    assert paid.usage["cached_calls"] == 0 and "cached" not in json.dumps(paid.turn_records())
    assert replay.usage["cached_calls"] == replay.usage["calls"] == 4
    assert all(t["cached"] is True for t in replay.turn_records())
    assert [t["text"] for t in replay.turns] == [t["text"] for t in paid.turns]
    assert "4 from the cache" in replay._repr_html_() and "(cached)" in replay._repr_html_()
    assert "from the cache" not in paid._repr_html_()
    # One more round: the first two rounds come from the cache, the new round is paid.
    longer = dg.run(ARITH, method="du", agents=2, rounds=2, cache=cache)
    assert [bool(t.get("cached")) for t in longer.turns] == [True] * 4 + [False] * 2
    split = longer.to_dict()["usage_by_source"]
    assert (split["paid"]["calls"], split["cached"]["calls"]) == (2, 4)
    new = [t for t in longer.turns if t["round"] == 2]
    assert split["paid"]["input_tokens"] == sum(t["input_tokens"] for t in new)


def test_an_eval_replayed_from_the_cache_counts_paid_and_cached_calls_apart(key, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    cache = tmp_path / "calls.sqlite"
    items = arithmetic_items(3, seed=5)
    with serve(seed=3, reasoning_tokens=2) as server:
        arm = Arm(
            "du", "du", {"agents": 2, "rounds": 1, "models": "sim-0", "base_url": server.base_url}
        )
        first = evaluate(items, [arm], tmp_path / "paid", dataset="arithmetic", cache=cache)
        requests = server.stats()["chat_requests"]
        again = evaluate(items, [arm], tmp_path / "replay", dataset="arithmetic", cache=cache)
        assert server.stats()["chat_requests"] == requests == 3 * 4
    for row in first.rows:
        assert row["cached_calls"] == 0 and row["requests"] == row["calls"] == 4
        assert set(row["usage_by_source"]) == {"paid"}
        assert row["reasoning_tokens"] == 4 * 2
    for paid, row in zip(first.rows, again.rows, strict=True):
        assert row["cached_calls"] == row["calls"] == 4 and row["requests"] == 0
        assert all(t["cached"] for t in row["turns"])
        assert row["usage_by_source"]["paid"] == {
            "calls": 0, "input_tokens": 0, "output_tokens": 0, "latency_s": 0.0,
        }  # fmt: skip
        replayed = row["usage_by_source"]["cached"]
        assert (replayed["input_tokens"], replayed["output_tokens"]) == (
            paid["input_tokens"],
            paid["output_tokens"],
        )
        assert row["wasted_input_tokens"] == row["wasted_output_tokens"] == 0
    prices = {"input": 1e-6, "output": 2e-6}
    paid_cost = summarize(first.rows, prices)["du"]["cost"]
    expected = sum(r["input_tokens"] * 1e-6 + r["output_tokens"] * 2e-6 for r in first.rows)
    assert paid_cost == pytest.approx(expected, rel=1e-12) and paid_cost > 0
    replay = summarize(again.rows, prices)["du"]
    assert replay["cost"] == 0.0 and replay["cached_calls"] == 12
    assert replay["bill"]["paid_calls"] == 0
    assert replay["bill"]["cached_call_tokens"] == sum(
        r["input_tokens"] + r["output_tokens"] for r in first.rows
    )
    text = write_report(tmp_path / "replay", plots=False, prices=prices).read_text()
    bill = text.split("## The provider's bill", 1)[1]
    line = next(x for x in bill.splitlines() if x.startswith("| du |"))
    assert [c.strip() for c in line.split("|")[2:4]] == ["0", "12"]  # paid, cached calls
    assert line.split("|")[-2].strip() == "0.00000"
    shown = CliRunner().invoke(app, ["show", str(tmp_path / "replay"), items[0].id])
    assert shown.exit_code == 0, shown.output
    assert "calls: 4 (4 from the cache)" in shown.stdout and "(cached)" in shown.stdout


def test_prices_take_a_cached_input_price():
    assert parse_prices("2,8,0.5") == {
        "input": 2 / 1e6,
        "output": 8 / 1e6,
        "cached_input": 0.5 / 1e6,
    }
    assert parse_prices("2,8") == {"input": 2 / 1e6, "output": 8 / 1e6}
    for bad in ("1,2,3,4", "1,2,-1", "1,2,x"):
        out = CliRunner().invoke(app, ["report", ".", "--prices", bad])
        assert out.exit_code == 2
        assert "IN,OUT,CACHED" in " ".join(out.stderr.split())


def bill_rows() -> list[dict]:
    """Two hand-made rows: one with paid and replayed calls, one written before the split."""
    split = {
        "method": "du", "id": "q0", "answer": "7", "correct": True, "round_answers": [["7"]],
        "calls": 5, "cached_calls": 2,
        "input_tokens": 1500, "output_tokens": 300,
        "cached_input_tokens": 600, "reasoning_tokens": 50,
        "usage_by_source": {
            "paid": {"calls": 3, "input_tokens": 1000, "output_tokens": 200,
                     "cached_input_tokens": 600, "reasoning_tokens": 50, "latency_s": 3.0},
            "cached": {"calls": 2, "input_tokens": 500, "output_tokens": 100, "latency_s": 4.0},
        },
    }  # fmt: skip
    old = {"method": "du", "id": "q1", "answer": "6", "correct": False, "round_answers": [["6"]],
           "calls": 2, "input_tokens": 300, "output_tokens": 100}  # fmt: skip
    return [split, old]


def test_the_cost_prices_paid_calls_and_the_providers_cached_input_exactly():
    bill = bill_of(bill_rows())
    assert bill == {
        "paid_calls": 5,
        "cached_calls": 2,
        "input_tokens": 1300,
        "output_tokens": 300,
        "cached_input_tokens": 600,
        "reasoning_tokens": 50,
        "cached_call_tokens": 600,
        "unkept_input_tokens": 0,
        "unkept_output_tokens": 0,
        "latency_s_per_call": 1.0,  # 3.0 s over the 3 paid calls that record it
        "cached_latency_s": 4.0,
    }
    # $2 / $8 / $0.50 per 1M: (1300 - 600) * 2 + 600 * 0.5 + 300 * 8 = 4100 per 1M tokens.
    prices = parse_prices("2,8,0.5")
    assert bill_cost(bill, prices) == pytest.approx(4100e-6, rel=1e-12)
    # Without a cached price the cached input is billed at the input price: 1300*2 + 300*8.
    assert bill_cost(bill, parse_prices("2,8")) == pytest.approx(5000e-6, rel=1e-12)
    assert bill_cost(bill, None) is None
    summary = summarize(bill_rows(), prices)["du"]
    assert summary["cost"] == pytest.approx(4100e-6, rel=1e-12)
    assert summary["cost_per_item"] == pytest.approx(2050e-6, rel=1e-12)
    assert summary["total_tokens"] == 2200  # the method's tokens, replayed calls included


def test_paid_tokens_not_kept_are_on_the_bill_beside_the_kept_calls():
    split, old = bill_rows()
    retried = {**split, "wasted_input_tokens": 120, "wasted_output_tokens": 30, "requests": 4}
    failed = {"method": "du", "id": "q2", "error": "E: x", "requests": 2,
              "wasted_input_tokens": 400, "wasted_output_tokens": 50}  # fmt: skip
    bill = bill_of([retried, old, failed])
    assert (bill["unkept_input_tokens"], bill["unkept_output_tokens"]) == (520, 80)
    assert (bill["paid_calls"], bill["input_tokens"], bill["output_tokens"]) == (5, 1300, 300)
    # 4100 per 1M kept (above) + 520 * 2 + 80 * 8 = 4100 + 1040 + 640 = 5780 per 1M tokens.
    prices = parse_prices("2,8,0.5")
    assert bill_cost(bill, prices) == pytest.approx(5780e-6, rel=1e-12)
    summary = summarize([retried, old, failed], prices)["du"]
    assert summary["cost"] == pytest.approx(5780e-6, rel=1e-12) and summary["failed"] == 1
    assert summary["cost_per_item"] == pytest.approx(2890e-6, rel=1e-12)  # per scored item


def test_a_pricing_sample_is_paid_not_kept_and_its_replay_costs_nothing(key, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.arms import arms_for
    from debategraph.eval.run.runner import evaluate

    cache, items = tmp_path / "calls.sqlite", arithmetic_items(1, seed=5)
    prices = {"input": 1e-6, "output": 2e-6}
    with serve(seed=3) as server:
        settings = {"agents": 2, "rounds": 1, "models": "sim-0", "base_url": server.base_url}
        arms = arms_for(["du"], settings, match_budget="tokens")[:2]
        assert [a.label for a in arms] == ["du", "sc@du~tokens"]
        runs = [evaluate(items, arms, tmp_path / o, dataset="arithmetic", cache=cache)
                for o in ("paid", "replay")]  # fmt: skip
        tokens = [r.usage["prompt_tokens"] + 2 * r.usage["completion_tokens"]
                  for r in server.requests]  # fmt: skip
    paid, replay = ({r["method"]: r for r in run.rows} for run in runs)
    row = paid["sc@du~tokens"]
    assert row["wasted_input_tokens"] > 0  # the pricing sample
    first = summarize(list(paid.values()), prices)
    assert first["sc@du~tokens"]["bill"]["unkept_input_tokens"] == row["wasted_input_tokens"]
    # Every request the server answered, and nothing else, is in the cost.
    total = sum(s["cost"] for s in first.values())
    assert total == pytest.approx(sum(tokens) * 1e-6, rel=1e-12)
    again = summarize(list(replay.values()), prices)
    assert {m: s["cost"] for m, s in again.items()} == {"du": 0.0, "sc@du~tokens": 0.0}


def test_the_report_prints_the_bill_and_its_cost(tmp_path: Path):
    with (tmp_path / "results.jsonl").open("w") as file:
        for row in bill_rows():
            file.write(json.dumps(row) + "\n")
    out = CliRunner().invoke(app, ["report", str(tmp_path), "--no-plots", "--prices", "2,8,0.5"])
    assert out.exit_code == 0, out.output
    text = (tmp_path / "report.md").read_text()
    results = next(x for x in text.splitlines() if x.startswith("| du | 2 |"))
    assert results.split("|")[-2].strip() == "0.00205"  # $ per item
    bill = text.split("## The provider's bill", 1)[1]
    line = next(x for x in bill.splitlines() if x.startswith("| du |"))
    cells = [c.strip() for c in line.split("|")[1:-1]]
    assert cells == ["du", "5", "2", "1,300", "600", "300", "50", "0", "0", "600", "1.00",
                     "0.00410"]  # fmt: skip
    summary = json.loads((tmp_path / "summary.json").read_text())["groups"][0]["methods"]["du"]
    assert summary["bill"]["cached_input_tokens"] == 600 and summary["cached_calls"] == 2


def test_the_servers_usage_shapes_and_its_command_line():
    from .openai_server import command_line, usage_object
    from .openai_server.cli import _parser, _server_from

    assert usage_object(10, 4, 8, 2, "llama.cpp") == {
        "prompt_tokens": 10,
        "completion_tokens": 4,
        "total_tokens": 14,
        "prompt_tokens_details": {"cached_tokens": 8},
    }
    assert usage_object(10, 4, 8, 2, "null")["prompt_tokens_details"] is None
    assert set(usage_object(10, 4, 8, 2, "none")) == {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
    }
    full = usage_object(10, 4, 8, 2)
    assert full["prompt_tokens_details"]["cached_tokens"] == 8
    assert full["completion_tokens_details"]["reasoning_tokens"] == 2
    args = command_line(usage_details="null", prompt_cache_block=64, reasoning_tokens=3)
    server = _server_from(_parser().parse_args(args), {})
    assert (server.usage_details, server.prompt_cache_block, server.reasoning_tokens) == (
        "null",
        64,
        3,
    )
    with pytest.raises(ValueError, match="usage_details must be one of"):
        serve(usage_details="vllm").__enter__()


def test_replay_marking_copies_the_stored_writes():
    from collections import deque

    from debategraph.nodes.replay import mark_replayed

    turn = {"id": "r0:a1", "input_tokens": 5}
    stored = deque([("turns", [turn]), ("branch:to:observe", None)])
    marked = mark_replayed(stored)
    assert isinstance(marked, deque) and marked[1] == ("branch:to:observe", None)
    assert marked[0] == ("turns", [{"id": "r0:a1", "input_tokens": 5, "cached": True}])
    assert "cached" not in turn  # what the cache stores stays as written
    as_read = mark_replayed([["turns", [turn]]])  # a serializer may give lists back
    assert as_read == [["turns", [{**turn, "cached": True}]]]


def test_a_partly_replayed_debate_counts_the_waste_of_its_paid_calls(key, tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    cache, items = tmp_path / "calls.sqlite", arithmetic_items(1, seed=5)
    with serve(seed=3) as server:
        settings = {"agents": 2, "models": "sim-0", "base_url": server.base_url}
        settings["retry_backoff"] = 0.001  # the empty reply is asked again at once
        evaluate(items, [Arm("du", "du", {**settings, "rounds": 1})], tmp_path / "one",
                 dataset="arithmetic", cache=cache)  # fmt: skip
        server.reset()
        server.faults.push("empty")  # round 2's first request: a reply, empty, retried
        longer = Arm("du", "du", {**settings, "rounds": 2})
        (row,) = evaluate(items, [longer], tmp_path / "two", dataset="arithmetic", cache=cache).rows
        (empty,) = [r for r in server.requests if r.fault == "empty"]
    assert (row["cached_calls"], row["usage_by_source"]["paid"]["calls"]) == (4, 2)
    assert (row["requests"], row["failed_requests"]) == (3, 1)
    # The empty reply's tokens are wasted; the replayed calls' tokens are not "used" spend.
    assert row["wasted_input_tokens"] == empty.usage["prompt_tokens"]
