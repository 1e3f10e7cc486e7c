from debategraph.policies.accounting import mean_input_tokens_per_call, ncomm, usage_totals
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
    }
    # a1 reading its own r0 turn does not count; the summariser reads two peers.
    assert ncomm(turns) == 1 + 2
    assert mean_input_tokens_per_call(turns) == 18.0


def test_estimate_tokens():
    # "What", "is", "12", "+", "3", "?" -> 6 pieces; long words split every 8 letters.
    assert estimate_tokens("What is 12 + 3?") == 6
    assert estimate_tokens("internationalization") == 3
    assert estimate_tokens("1234567") == 3
