"""Spend notes written ahead: every token the server billed is on a row or in the ledger.

Whatever stops a run (SIGKILL, a full cache disk, a debate that fails while its other calls
are answered, Ctrl-C), the rows plus the ledger (``interrupted.jsonl`` and the notes of
``spend.jsonl`` that no row holds) equal the loopback server's own token counts, and
nothing is counted twice.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest
from langgraph.cache import sqlite as langgraph_sqlite

from debategraph.eval.datasets import arithmetic_items
from debategraph.eval.log.files import RESULTS_FILE, SPEND_NOTES_FILE
from debategraph.eval.log.ledger import (
    BILLED_KINDS,
    NoteFile,
    log_renamed,
    read_ledger,
    spend_on_record,
    totals,
    uncovered_notes,
)
from debategraph.eval.log.store import ResultsFile, encode_row
from debategraph.eval.run.runner import Arm, evaluate
from debategraph.nodes.cache_guard import CacheError

from .openai_server import serve
from .test_interrupted_spend import served, settle


def billed(out: Path) -> tuple[int, int, int]:
    """Input tokens, output tokens and requests of the rows plus the ledger's every kind."""
    rows = []
    if (out / RESULTS_FILE).exists():
        rows = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines() if x]
    found = read_ledger(out)
    ledger = totals(e for kind in BILLED_KINDS for e in found[kind])
    return (
        sum(r.get("input_tokens", 0) * ("error" not in r) + r["wasted_input_tokens"] for r in rows)
        + ledger["input_tokens"],
        sum(
            r.get("output_tokens", 0) * ("error" not in r) + r["wasted_output_tokens"] for r in rows
        )
        + ledger["output_tokens"],
        sum(r["requests"] for r in rows) + ledger["requests"],
    )


def note(attempt: str, n: int, **spend: int) -> dict[str, object]:
    return {"method": "du", "id": "q1", "attempt": attempt, "n": n, **spend}


def test_notes_count_only_where_no_row_or_entry_holds_them(tmp_path: Path) -> None:
    row = {"method": "du", "id": "q1", "requests": 2}
    line = encode_row(row)
    (tmp_path / RESULTS_FILE).write_bytes(line)
    notes = NoteFile(tmp_path)
    for written in (
        note("a", 1, requests=1), note("a", 2, input_tokens=10, output_tokens=3),
        note("a", 3, input_tokens=7, output_tokens=2),  # came after the row: counted
        note("b", 1, requests=1), note("b", 2, input_tokens=5, output_tokens=1),
        note("c", 1, requests=1), note("c", 2, failed_requests=1),
        {**note("d", 1, requests=1), "seed": 4}, {**note("d", 2, input_tokens=9), "seed": 4},
    ):  # fmt: skip
        notes.write(written)
    notes.cover({"attempt": "a", "notes": 2}, line)
    notes.cover({"attempt": "d", "notes": 2}, b'{"never": "written"}\n')  # killed in between
    notes.close()
    with open(tmp_path / SPEND_NOTES_FILE, "ab") as file:
        file.write(b'{"attempt": "e", "n": 1, "requ')  # torn by a kill: skipped
    cut = [{"method": "du", "id": "q1", "attempt": "b", "notes": 2}]
    found = uncovered_notes(tmp_path, {"cut_short": cut, "retried": []})
    assert found == [
        {"method": "du", "id": "q1", "input_tokens": 7, "output_tokens": 2, "requests": 0,
         "failed_requests": 0, "attempt": "a"},
        {"method": "du", "id": "q1", "input_tokens": 0, "output_tokens": 0, "requests": 1,
         "failed_requests": 1, "attempt": "c"},
        {"method": "du", "id": "q1", "seed": 4, "input_tokens": 9, "output_tokens": 0,
         "requests": 1, "failed_requests": 0, "attempt": "d"},
    ]  # fmt: skip
    again = NoteFile(tmp_path)  # after the torn line, a new line starts on its own
    again.write(note("f", 1, requests=1))
    again.close()
    assert [e["attempt"] for e in uncovered_notes(tmp_path, {})][-1] == "f"


def test_a_retried_entry_keeps_covering_its_rows_notes(tmp_path: Path) -> None:
    line = encode_row({"method": "du", "id": "q1", "error": "x", "requests": 1})
    notes = NoteFile(tmp_path)
    notes.write(note("a", 1, requests=1))
    notes.cover({"attempt": "a", "notes": 1}, line)
    notes.close()
    from debategraph.eval.log.ledger import fingerprint

    assert uncovered_notes(tmp_path, {}) != []  # the row is in no file: not covered
    retried = [{"row_sha256": fingerprint(line)}]
    assert uncovered_notes(tmp_path, {"retried": retried}) == []


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with serve(seed=3, latency=0.05) as running:
        yield running


def du(server, agents: int = 3) -> list[Arm]:
    settings = {"agents": agents, "rounds": 1, "models": "sim-0", "base_url": server.base_url}
    return [Arm("du", "du", settings)]


@pytest.mark.slow
def test_a_full_cache_disk_leaves_every_token_on_the_bill(server, tmp_path, monkeypatch):
    writes = {"n": 0}
    real = langgraph_sqlite.SqliteCache.set

    def fills(self: object, pairs: object) -> None:
        writes["n"] += 1
        if writes["n"] > 4:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, pairs)  # type: ignore[arg-type]

    monkeypatch.setattr(langgraph_sqlite.SqliteCache, "set", fills)
    out = tmp_path / "run"
    items = arithmetic_items(6, seed=1)
    with pytest.raises(CacheError):
        evaluate(items, du(server), out, dataset="arithmetic", concurrency=6,
                 cache=str(tmp_path / "calls.sqlite"))  # fmt: skip
    settle(server)
    assert server.stats()["chat_requests"] > 4
    assert billed(out)[:2] == served(server)


@pytest.mark.slow
def test_replies_to_a_failing_debates_other_calls_are_billed(server, tmp_path):
    out = tmp_path / "run"
    items = arithmetic_items(4, seed=1)
    for _ in range(4):  # the third call of each debate's round 0 is refused (not retried)
        server.faults.push("ok", "ok", "http400")
    outcome = evaluate(items, du(server), out, dataset="arithmetic", concurrency=3)
    assert outcome.failed > 0
    settle(server)
    assert billed(out)[:2] == served(server)
    again = evaluate(items, du(server), out, dataset="arithmetic", concurrency=3)
    assert again.failed == 0
    assert billed(out)[:2] == served(server)


def command(server, out: Path) -> list[str]:
    return [sys.executable, "-m", "debategraph", "eval", "--method", "du", "--dataset",
            "arithmetic", "--limit", "16", "--model", "sim-0", "--base-url", server.base_url,
            "--concurrency", "6", "--out", str(out), "--quiet"]  # fmt: skip


@pytest.mark.slow
def test_a_sigkill_storm_loses_no_token_from_the_bill(server, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "sk-test"}
    out = tmp_path / "run"
    for at in (10, 30, 50):
        proc = subprocess.Popen(command(server, out), stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + 60
        while server.stats()["completed"] < at and time.monotonic() < deadline:
            time.sleep(0.005)
        # New requests now wait (and a killed client's are never answered, never billed);
        # the replies already on their way arrive before the kill. A reply sent in the very
        # instant of a kill reaches no record of the client: its request is on the bill,
        # its tokens cannot be.
        server.configure({"latency": 3.0})
        time.sleep(0.4)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        server.configure({"latency": 0.05})
        assert billed(out)[:2] == served(server)
    assert len(read_ledger(out)["noted"]) > 0  # the kills left spend that only notes hold
    done = subprocess.run(command(server, out), capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    settle(server)
    rows = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]
    assert len(rows) == len({r["id"] for r in rows}) == 16
    assert billed(out)[:2] == served(server)
    assert "spend.jsonl keep the spend of" in done.stdout


def test_a_meter_notes_each_request_and_reply_and_knows_what_is_in_flight() -> None:
    from uuid import uuid4

    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.outputs import ChatGeneration, LLMResult

    from debategraph.eval.log.spend import COVERS_KEY, SpendMeter
    from debategraph.policies.tokens import estimate_tokens

    noted: list[dict[str, object]] = []
    meter = SpendMeter(noted.append)
    first, second, third = uuid4(), uuid4(), uuid4()
    prompt = "What is 12 plus 30?"
    for run in (first, second, third):
        meter.on_chat_model_start({}, [[HumanMessage(prompt)]], run_id=run)
    reply = AIMessage("42", usage_metadata={"input_tokens": 9, "output_tokens": 4,
                                            "total_tokens": 13})  # fmt: skip
    meter.on_llm_end(LLMResult(generations=[[ChatGeneration(message=reply)]]), run_id=first)
    meter.on_llm_error(RuntimeError("boom"), run_id=second)
    guess = estimate_tokens(prompt)
    assert [{k: v for k, v in n.items() if k != "attempt"} for n in noted] == [
        {"n": 1, "requests": 1, "input_estimate": guess},
        {"n": 2, "requests": 1, "input_estimate": guess},
        {"n": 3, "requests": 1, "input_estimate": guess},
        {"n": 4, "input_tokens": 9, "output_tokens": 4, "closed": 1, "closed_estimate": guess},
        {"n": 5, "failed_requests": 1, "closed": 1, "closed_estimate": guess},
    ]
    assert {n["attempt"] for n in noted} == {meter.attempt}
    assert meter.cut_off() == {
        "cut_off_requests": 1,
        "estimated_input_tokens": estimate_tokens(prompt),
    }
    fields = meter.record(used_input=9, used_output=4)
    assert fields[COVERS_KEY] == {"attempt": meter.attempt, "notes": 5}
    assert (fields["requests"], fields["failed_requests"], fields["wasted_input_tokens"]) == (
        3, 1, 0,
    )  # fmt: skip
    assert COVERS_KEY not in SpendMeter().record()  # no notes kept: no cover


def test_the_notes_are_no_rows_and_go_with_force(tmp_path: Path) -> None:
    from debategraph.eval.log.files import INTERRUPTED_FILE
    from debategraph.eval.log.row_index import row_files
    from debategraph.eval.log.store import SettingsMismatchError, check_manifest

    (tmp_path / RESULTS_FILE).write_text("")
    (tmp_path / INTERRUPTED_FILE).write_text("")
    (tmp_path / SPEND_NOTES_FILE).write_text('{"attempt": "a", "n": 1, "requests": 1}\n')
    assert row_files(tmp_path) == [tmp_path / RESULTS_FILE]
    with pytest.raises(SettingsMismatchError, match=r"holds spend\.jsonl but no run\.json"):
        check_manifest(tmp_path, {"dataset": "x"})  # a run killed before its first row
    check_manifest(tmp_path, {"dataset": "x"}, force=True)
    assert not (tmp_path / SPEND_NOTES_FILE).exists()


@pytest.mark.parametrize("rewrite", ["finalize", "load"])
def test_a_row_redacted_again_on_rewrite_keeps_covering_its_notes(
    tmp_path: Path, rewrite: str
) -> None:
    row = {"method": "du", "id": "q1", "answer": "key sk-late", "correct": False, "calls": 2,
           "input_tokens": 100, "output_tokens": 20, "round_answers": [], "requests": 2,
           "wasted_input_tokens": 0, "wasted_output_tokens": 0}  # fmt: skip
    notes = NoteFile(tmp_path)
    notes.write(note("a", 1, requests=1, input_tokens=60, output_tokens=12))
    notes.write(note("a", 2, requests=1, input_tokens=40, output_tokens=8))
    results = ResultsFile(tmp_path / RESULTS_FILE)
    results.append(row, before=partial(notes.cover, {"attempt": "a", "notes": 2}))
    results.close()
    notes.close()
    bill = {"input_tokens": 100, "output_tokens": 20, "requests": 2, "failed_requests": 0}
    assert spend_on_record(tmp_path) == bill
    again = ResultsFile(
        tmp_path / RESULTS_FILE,
        redact=lambda text: text.replace("sk-late", "[REDACTED]"),
        renamed=partial(log_renamed, tmp_path),
    )
    if rewrite == "finalize":
        again.finalize(lambda key: key)
    else:
        with open(tmp_path / RESULTS_FILE, "ab") as file:
            file.write(b"torn")  # something to drop, so load() rewrites the file
        again.load()
    assert b"sk-late" not in (tmp_path / RESULTS_FILE).read_bytes()
    assert spend_on_record(tmp_path) == bill
    twice = ResultsFile(
        tmp_path / RESULTS_FILE,
        redact=lambda text: text.replace("[REDACTED]", "[R]"),
        renamed=partial(log_renamed, tmp_path),
    )
    twice.finalize(lambda key: key)  # renamed a second time: the chain still covers
    assert spend_on_record(tmp_path) == bill


def test_a_short_write_of_a_note_is_completed_not_glued(tmp_path: Path, monkeypatch) -> None:
    from debategraph.eval.log import ledger

    real = os.write
    monkeypatch.setattr(ledger.os, "write", lambda fd, data: real(fd, bytes(data[:7])))
    notes = NoteFile(tmp_path)
    notes.write(note("a", 1, requests=1, input_tokens=5))
    notes.write(note("a", 2, input_tokens=7))
    notes.close()
    assert notes.failure is None
    assert uncovered_notes(tmp_path, {}) == [
        {"method": "du", "id": "q1", "input_tokens": 12, "output_tokens": 0, "requests": 1,
         "failed_requests": 0, "attempt": "a"}
    ]  # fmt: skip


def test_a_row_whose_cover_line_fails_is_refused_and_cut_short(tmp_path: Path, monkeypatch):
    from debategraph.eval.log import ledger
    from debategraph.eval.log.spend import COVERS_KEY
    from debategraph.eval.run.runner import _Writer

    real = os.write

    def full_disk(fd: int, data) -> int:
        if b'"row_sha256":' in bytes(data):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(ledger.os, "write", full_disk)
    notes = NoteFile(tmp_path)
    notes.write(note("a", 1, requests=1, input_tokens=50, output_tokens=5))
    results = ResultsFile(tmp_path / RESULTS_FILE)
    cut: list[dict[str, object]] = []
    writer = _Writer(results, None, [], cut_short=cut, notes=notes)
    row = {"method": "du", "id": "q1", "answer": "4", "correct": True, "calls": 1,
           "input_tokens": 50, "output_tokens": 5, "round_answers": [], "requests": 1,
           COVERS_KEY: {"attempt": "a", "notes": 1}}  # fmt: skip
    with pytest.raises(OSError, match="No space left"):
        writer(row)
    results.close()
    notes.close()
    assert not (tmp_path / RESULTS_FILE).exists() or (tmp_path / RESULTS_FILE).read_bytes() == b""
    assert [(e["attempt"], e["notes"], e["input_tokens"]) for e in cut] == [("a", 1, 50)]
    assert uncovered_notes(tmp_path, {"cut_short": cut}) == []  # counted once, by the entry
