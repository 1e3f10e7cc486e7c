"""The model-call cache: every round of every method is served again, and nothing secret is kept."""

from __future__ import annotations

import sqlite3

import pytest

import debategraph as dg
from debategraph.methods.registry import method_plugins
from debategraph.nodes.cache import call_cache_key
from debategraph.testing import ScriptedChatModel

from .helpers import fast_few
from .openai_server import serve

ARITH = "What is the result of 3+4*5+6-7*2?"
KEY = "sk-test-cache-key-0123456789"
BUILTINS = sorted(p.name for p in method_plugins()[0] if p.builtin)


@pytest.fixture
def server(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with serve(seed=2) as running:
        yield running


def run(server, method, cache, **settings):
    return dg.run(
        ARITH, method=method, models="sim-0", base_url=server.base_url, cache=cache, **settings
    )


@pytest.mark.parametrize("method", fast_few(BUILTINS, ["cot", "sc", "du", "mad-judge", "cortex"]))
def test_a_repeated_run_makes_no_request_in_any_round(server, tmp_path, method):
    cache = tmp_path / "calls.sqlite"
    first = run(server, method, cache)
    paid = server.stats()["chat_requests"]
    assert paid == first.usage["calls"] > 0
    again = run(server, method, cache)
    assert server.stats()["chat_requests"] == paid, "every call of every round was cached"
    same = ("id", "kind", "text", "answer", "reads")
    assert [{k: t[k] for k in same} for t in again.turns] == [
        {k: t[k] for k in same} for t in first.turns
    ]
    assert again.decision == first.decision


def test_a_changed_setting_misses(server, tmp_path):
    cache = tmp_path / "calls.sqlite"
    run(server, "du", cache, rounds=1)
    paid = server.stats()["chat_requests"]
    run(server, "du", cache, rounds=1, temperature=0.5)
    assert server.stats()["chat_requests"] == 2 * paid
    run(server, "du", cache, rounds=1, seed=9)
    assert server.stats()["chat_requests"] == 3 * paid


def test_the_cache_stores_no_secret_a_model_echoes(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    cache = tmp_path / "calls.sqlite"
    secret_reply = f"My key is {KEY}. The answer is \\boxed{{15}}"
    model = ScriptedChatModel(replies=[secret_reply])
    first = dg.run(ARITH, method="du", agents=2, rounds=1, models=model, cache=cache)
    assert KEY in first.turns[0]["text"]  # what the model said, in memory
    raw = b"".join(
        bytes(v) for (v,) in sqlite3.connect(cache).execute("select val from cache").fetchall()
    )
    wal = cache.with_name(cache.name + "-wal")
    raw += wal.read_bytes() if wal.exists() else b""
    assert KEY.encode() not in raw and b"[redacted]" in raw
    # The replay reads the redacted reply and finds round 1 under the same keys.
    calls = len(model.calls)
    again = dg.run(ARITH, method="du", agents=2, rounds=1, models=model, cache=cache)
    assert len(model.calls) == calls
    assert again.answer == first.answer


def test_keys_ignore_timing_and_tokens_but_not_text():
    from debategraph.testing import make_turn

    def task(**turn):
        read = make_turn("r0:a2", answer="15", **turn)
        call = {"id": "r1:a1", "kind": "answer", "speaker": "a1", "round": 1,
                "reads": ["r0:a2"], "template": "debate", "vars": {}, "history": False}  # fmt: skip
        return {"call": call, "question": "q", "task": "number", "choices": None,
                "reads": [read], "history": [], "model_kwargs": {}, "seed": 0,
                "identity": {"model": "m"}}  # fmt: skip

    base = call_cache_key(task())
    assert call_cache_key(task(latency_s=9.0, input_tokens=7, attempts=2)) == base
    assert call_cache_key(task(text="\\boxed{16}")) != base


@pytest.mark.parametrize("kind", ["directory", "not sqlite"])
def test_an_unusable_cache_path_is_refused_before_any_call(tmp_path, kind):
    path = tmp_path / "calls.sqlite"
    if kind == "directory":
        path.mkdir()
    else:
        path.write_text("not a database")
    model = ScriptedChatModel(replies=["\\boxed{1}"])
    with pytest.raises(dg.DebateConfigError, match=r"directory|not a SQLite database"):
        dg.run(ARITH, method="cot", models=model, cache=path)
    assert model.calls == []
