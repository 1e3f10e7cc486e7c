"""The log of what cut-short debates spent: noted per debate, summed exactly, torn lines skipped."""

from debategraph.eval.log.files import INTERRUPTED_FILE
from debategraph.eval.log.spend import SpendMeter
from debategraph.eval.run.cut_short import CUT_SHORT, log_cut_short, note_cut_short, read_cut_short


def meter(inputs: int, outputs: int, requests: int, failed: int = 0) -> SpendMeter:
    m = SpendMeter()
    m.input_tokens, m.output_tokens, m.requests, m.failed = inputs, outputs, requests, failed
    return m


def test_noted_debates_are_logged_and_summed(tmp_path):
    sink: list = []
    token = CUT_SHORT.set(sink)
    try:
        note_cut_short("du", "q1", meter(120, 40, 3, 1))
        note_cut_short("du", "q2", meter(0, 0, 0))  # never reached the model: nothing to note
        note_cut_short("cot", "q1", meter(55, 20, 1), seed=2)
    finally:
        CUT_SHORT.reset(token)
    note_cut_short("du", "q3", meter(9, 9, 1))  # outside a run: nobody collects
    assert sink == [
        {"method": "du", "id": "q1", "input_tokens": 120, "output_tokens": 40, "requests": 3,
         "failed_requests": 1},
        {"method": "cot", "id": "q1", "seed": 2, "input_tokens": 55, "output_tokens": 20,
         "requests": 1, "failed_requests": 0},
    ]  # fmt: skip
    line = log_cut_short(tmp_path, sink)
    assert (line["debates"], line["input_tokens"], line["output_tokens"]) == (2, 175, 60)
    log_cut_short(tmp_path, [{**sink[0], "input_tokens": 5}])
    with open(tmp_path / INTERRUPTED_FILE, "a") as log:
        log.write('{"cut_short": [{"method": "du", "id": "q9", "input_t')  # a torn last line
    assert read_cut_short(tmp_path) == {
        "debates": 3, "input_tokens": 180, "output_tokens": 100, "requests": 7,
        "failed_requests": 2,
    }  # fmt: skip


def test_a_directory_without_a_log_reads_as_zero(tmp_path):
    assert read_cut_short(tmp_path) == {
        "debates": 0, "input_tokens": 0, "output_tokens": 0, "requests": 0,
        "failed_requests": 0,
    }  # fmt: skip
