"""A failed row's spend survives resume: rows + ledger = the server's own token count, exactly."""

from __future__ import annotations

import json

import pytest

from debategraph.eval.analysis.metrics import summarize
from debategraph.eval.datasets import arithmetic_items
from debategraph.eval.log.ledger import INTERRUPTED_FILE, read_ledger
from debategraph.eval.log.row import opt
from debategraph.eval.log.store import RESULTS_FILE, read_rows
from debategraph.eval.report.writer import write_report
from debategraph.eval.run.runner import Arm, evaluate

from .openai_server import serve

pytestmark = pytest.mark.slow


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with serve(seed=3) as running:
        yield running


def served(server):
    """Input and output tokens of every reply the server sent."""
    usages = [r.usage for r in server.requests if r.usage is not None]
    return sum(u["prompt_tokens"] for u in usages), sum(u["completion_tokens"] for u in usages)


def billed(out):
    """Input and output tokens the report's bill counts, paid kept and paid not kept."""
    report = write_report(out, plots=False, prices={"input": 1.0, "output": 1000.0})
    summary = json.loads((out / "summary.json").read_text())
    bills = [m for g in summary["groups"] for m in g["methods"].values()]
    tokens = (
        sum(m["bill"]["input_tokens"] + m["bill"]["unkept_input_tokens"] for m in bills),
        sum(m["bill"]["output_tokens"] + m["bill"]["unkept_output_tokens"] for m in bills),
    )
    cost = sum(m["cost"] for m in bills)
    assert cost == tokens[0] + 1000 * tokens[1]  # the cost counts every paid token once
    return tokens, report.read_text()


def test_failed_rows_spend_is_billed_across_resumes_and_never_twice(server, tmp_path):
    items = arithmetic_items(3, seed=2)
    arms = [Arm("du", "du", {"agents": 2, "rounds": 1, "models": "sim-0",
                             "base_url": server.base_url})]  # fmt: skip
    out = tmp_path / "run"

    def run():
        return evaluate(items, arms, out, dataset="arithmetic", concurrency=1)

    server.faults.push("ok", "http400")  # the first item's second request: the debate fails
    first = run()
    assert first.failed == 1
    (failed,) = [r for r in read_rows(out / RESULTS_FILE) if opt(r.error) is not None]
    assert (failed.wasted_input_tokens or 0) > 0 and failed.requests == 2
    assert not (out / INTERRUPTED_FILE).exists()  # the failed row is kept: the row counts it
    assert billed(out)[0] == served(server)

    server.faults.push("ok", "http400")  # resumed, it fails again after spending again
    second = run()
    assert second.failed == 1
    assert billed(out)[0] == served(server)
    (logged,) = read_ledger(out)["retried"]
    spent = (logged["input_tokens"], logged["output_tokens"])
    assert (logged["method"], logged["id"]) == ("du", failed.id)
    assert spent == (failed.wasted_input_tokens, failed.wasted_output_tokens)

    third = run()  # no fault: it finishes
    assert third.failed == 0 and third.count == 3
    tokens, report = billed(out)
    assert tokens == served(server)
    assert len(read_ledger(out)["retried"]) == 2
    assert "interrupted.jsonl keeps the spend of 2 failed row(s) run again" in report
    assert "interrupted.jsonl, line" not in report  # the ledger is not read as rows

    requests = len(server.requests)
    run()  # nothing left to do: no request, nothing logged again
    assert len(server.requests) == requests and billed(out)[0] == served(server)
    assert len((out / INTERRUPTED_FILE).read_text().splitlines()) == 2
    rows = list(read_rows(out / RESULTS_FILE))
    kept = summarize(rows)["du"]["bill"]
    assert kept["unkept_input_tokens"] == 0  # the rows alone no longer hold the failed spend
