from debategraph.policies.accounting import (
    mean_input_tokens_per_call,
    ncomm,
    usage_by_source,
    usage_totals,
)
from debategraph.policies.tokens import estimate_tokens


def turn(id_, agent, read, tin, tout, kind="answer", est=False):
    return {
        "id": id_,
        "agent": agent,
        "reads": read,
        "input_tokens": tin,
        "output_tokens": tout,
        "kind": kind,
        "usage_estimated": est,
    }


def test_usage_and_ncomm():
    turns = [
        turn("r0:a1", "a1", [], 10, 5),
        turn("r0:a2", "a2", [], 12, 6),
        turn("r1:a1", "a1", ["r0:a2", "r0:a1"], 30, 7, est=True),
        turn("r1:s", "summarizer", ["r0:a1", "r0:a2"], 20, 4, kind="summary"),
    ]
    assert usage_totals(turns) == {
        "input_tokens": 72,
        "output_tokens": 22,
        "total_tokens": 94,
        "calls": 4,
        "estimated_calls": 1,
        "cached_calls": 0,
    }
    # a1 reading its own r0 turn does not count; the summariser reads two peers.
    assert ncomm(turns) == 1 + 2
    assert mean_input_tokens_per_call(turns) == 18.0


def test_estimate_tokens():
    # "What", "is", "12", "+", "3", "?" -> 6 pieces; long words split every 8 letters.
    assert estimate_tokens("What is 12 + 3?") == 6
    assert estimate_tokens("internationalization") == 3
    assert estimate_tokens("1234567") == 3


def test_provider_details_and_replayed_calls_are_split():
    # Two paid calls (the provider states cached input on one, reasoning on both) and one
    # call replayed from the call cache.
    turns = [
        {**turn("r0:a1", "a1", [], 100, 40), "cached_input_tokens": 64, "reasoning_tokens": 10,
         "latency_s": 1.5},
        {**turn("r0:a2", "a2", [], 90, 30), "reasoning_tokens": 5, "latency_s": 0.5},
        {**turn("r1:a1", "a1", ["r0:a2"], 200, 20), "cached_input_tokens": 128,
         "latency_s": 2.0, "cached": True},
    ]  # fmt: skip
    assert usage_totals(turns) == {
        "input_tokens": 390,
        "output_tokens": 90,
        "total_tokens": 480,
        "calls": 3,
        "estimated_calls": 0,
        "cached_calls": 1,
        "cached_input_tokens": 64 + 128,
        "reasoning_tokens": 15,
    }
    assert usage_by_source(turns) == {
        "paid": {
            "calls": 2, "input_tokens": 190, "output_tokens": 70, "cached_input_tokens": 64,
            "reasoning_tokens": 15, "latency_s": 2.0,
        },
        "cached": {
            "calls": 1, "input_tokens": 200, "output_tokens": 20, "cached_input_tokens": 128,
            "latency_s": 2.0,
        },
    }  # fmt: skip
    # Nothing stated, nothing replayed: no detail keys (unknown, not 0) and no cached part.
    plain = [turn("r0:a1", "a1", [], 10, 5)]
    assert "cached_input_tokens" not in usage_totals(plain)
    assert set(usage_by_source(plain)) == {"paid"}
