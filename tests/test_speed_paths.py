"""The engine's and the simulated model's fast paths give what the slow ones gave."""

import random
import threading

import pytest

import debategraph as dg
from debategraph.eval.log.spend import SpendMeter
from debategraph.models import oracle, simulated
from debategraph.nodes.call import UsageTotal
from debategraph.policies.attribution import (
    _BOUNDARY_RE,
    _POSSESSIVE_END_RE,
    WINDOW,
    _clause_before,
    _possessive_from,
)
from debategraph.policies.graphs import edge_list, weighted_digraph
from debategraph.policies.tokens import estimate_tokens
from debategraph.state.context import DebateContext
from debategraph.state.debate import DuplicateTurnError, add_turns

ARITH = "What is the result of 3+4*5+6-7*2?"


def test_line_cached_token_count_equals_the_estimate():
    rng = random.Random(3)
    alphabet = "ab Z 12345\n\n\t\r.,!é٣\u2003\u2028xyzABCDEFGHIJKLM-_`"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        assert simulated._tokens(text) == estimate_tokens(text), repr(text)


def test_simulated_debater_parses_each_peer_at_most_once_per_call(monkeypatch):
    parses = []
    real = simulated.extract_answer

    def counting(*args, **kwargs):
        parses.append(args[0])
        return real(*args, **kwargs)

    simulated._parsed.cache_clear()
    monkeypatch.setattr(simulated, "extract_answer", counting)
    peers_read = []
    read = simulated.SimulatedDebater._read

    def reading(self, messages):
        scene = read(self, messages)
        peers_read.append(len(scene.peers) + (scene.own_previous is not None))
        return scene

    monkeypatch.setattr(simulated.SimulatedDebater, "_read", reading)
    dg.run(ARITH, method="du", agents=6, rounds=2, seed=11)
    # Every agent of a round reads the same peer turns: each text is parsed once in all.
    assert len(parses) == len(set(parses))
    assert len(parses) <= sum(peers_read)


def test_gsm8k_index_is_read_once_by_concurrent_first_callers(monkeypatch):
    reads = []
    real = oracle._read_index

    def slow_read():
        reads.append(1)
        return real()

    monkeypatch.setattr(oracle, "_INDEX", None)
    monkeypatch.setattr(oracle, "_read_index", slow_read)
    assert not oracle.index_loaded()
    threads = [threading.Thread(target=oracle.gsm8k_index) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert reads == [1] and oracle.index_loaded()
    assert not oracle.needs_index(ARITH) and oracle.needs_index("Who wrote Hamlet?")


def test_possessive_search_from_the_tail_finds_what_the_whole_search_finds():
    rng = random.Random(5)
    pieces = ["their", "your", "his", "HER", "its", "'s", "’s", "a", "s", " ", "\t", "*", "_"]
    pieces += ["\n", "x", "é", "ſ", "'", "1", ".", "Their"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        whole = _POSSESSIVE_END_RE.search(text)
        tail = _POSSESSIVE_END_RE.search(text, _possessive_from(text))
        assert (whole and whole.span()) == (tail and tail.span()), repr(text)


def test_clause_search_from_the_last_boundary_finds_what_the_scan_of_all_finds():
    def every_boundary(text, pos):
        window = text[max(0, pos - WINDOW) : pos]
        cuts = list(_BOUNDARY_RE.finditer(window))
        if not cuts:
            return window, ""
        clause = window[cuts[-1].end() :]
        if cuts[-1].group() != ":":
            return clause, ""
        previous = cuts[-2].end() if len(cuts) > 1 else 0
        return clause, window[previous : cuts[-1].start()]

    rng = random.Random(6)
    alphabet = "ab .:!?;\n\t,x"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        pos = rng.randint(0, len(text))
        assert _clause_before(text, pos) == every_boundary(text, pos), (text, pos)


def test_edge_list_matches_the_digraph():
    import numpy as np

    weights = np.array([[0, 1.5, np.inf], [0.25, 0, 2], [3, 4, 0]])
    keep = np.array([[0, 1, 0], [1, 0, 1], [1, 0, 0]], dtype=bool)
    graph = weighted_digraph(weights, ["a", "b", "c"], keep)
    expected = [
        {"head": h, "tail": t, "weight": "inf" if d["weight"] == np.inf else d["weight"]}
        | {"kept": d["kept"]}
        for h, t, d in graph.edges(data=True)
    ]
    assert edge_list(weights, ["a", "b", "c"], keep) == expected
    with pytest.raises(ValueError, match="weights must be"):
        edge_list(np.zeros((2, 2)), ["a", "b", "c"])


def turn(id_, round_, text="x"):
    return {"id": id_, "agent": id_.split(":")[1], "round": round_, "kind": "answer", "text": text}


def test_add_turns_single_write_fast_path():
    old = [turn("r0:a1", 0), turn("r0:a2", 0), turn("r1:a1", 1)]
    assert add_turns(old, [turn("r1:a2", 1)]) == [*old, turn("r1:a2", 1)]
    assert add_turns(old, [turn("r1:a1", 1)]) is old  # already recorded, unchanged
    with pytest.raises(DuplicateTurnError, match="r1:a1"):
        add_turns(old, [turn("r1:a1", 1, text="other")])
    # Only the turns of the new turn's round are searched (ids carry their round).
    assert add_turns(old, [turn("r0:a1", 2)])[-1]["round"] == 2


def test_add_turns_hand_back_fast_path():
    old = [turn("r0:a1", 0), turn("r0:a2", 0), turn("r1:a1", 1)]
    # A round subgraph hands back the very turn objects it was given, then its new ones.
    assert add_turns(old, list(old)) is old
    added = [turn("r1:a2", 1), turn("r2:a1", 2)]
    assert add_turns(old, [*old, *added]) == [*old, *added]
    # Its new turns are still checked against the recorded ones.
    with pytest.raises(DuplicateTurnError, match="r1:a1"):
        add_turns(old, [*old, turn("r1:a1", 1, text="other")])
    with pytest.raises(DuplicateTurnError, match="r2:a1"):
        add_turns(old, [*old, turn("r2:a1", 2), turn("r2:a1", 2, text="other")])
    # Equal copies (a checkpoint's) take the general path and give the same result.
    copies = [dict(t) for t in old]
    assert add_turns(old, [*copies, *added]) == [*old, *added]
    assert add_turns(old, copies) is old


def test_options_follow_the_context_options_even_when_mutated_in_place():
    method = dg.get_method("cortex")
    ctx = DebateContext(method_options={"k": 2})
    assert method.options_for(ctx).k == 2
    assert method.options_for(ctx) is method.options_for(ctx)
    ctx.method_options["k"] = 4
    assert method.options_for(ctx).k == 4
    assert method.options_for(DebateContext()) is method.options_for(DebateContext())
    assert method.options_for(DebateContext()).k == 3


def test_usage_handlers_run_inline():
    # A synchronous handler not marked inline is sent to a thread pool for every event.
    assert SpendMeter.run_inline and UsageTotal.run_inline
    meter = SpendMeter()
    assert meter.ignore_chain and not meter.ignore_llm and not meter.ignore_chat_model
