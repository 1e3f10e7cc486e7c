"""The bill's edges: rows edited by hand, Ray workers' own note files, replies never read."""

from __future__ import annotations

import asyncio
import errno
import json
import os
from functools import partial
from pathlib import Path

import pytest

from debategraph.eval.analysis.ledger_bill import fold_ledger, ledger_words
from debategraph.eval.log.files import RESULTS_FILE, SPEND_NOTES_DIR
from debategraph.eval.log.ledger import (
    UNANSWERED,
    NoteFile,
    append_line,
    fingerprint,
    log_retried,
    read_ledger,
    spend_on_record,
    uncovered_notes,
)
from debategraph.eval.log.store import ResultsFile
from debategraph.eval.run.executors import ray as ray_executor
from debategraph.eval.run.executors.base import Job

from .test_spend_notes import note

ROW = {"method": "du", "id": "q1", "answer": "4", "correct": True, "calls": 2,
       "input_tokens": 100, "output_tokens": 20, "round_answers": [], "requests": 2,
       "wasted_input_tokens": 0, "wasted_output_tokens": 0}  # fmt: skip
BILL = {"input_tokens": 100, "output_tokens": 20, "requests": 2, "failed_requests": 0}


def write_row(out: Path, notes: NoteFile, attempt: str, count: int) -> None:
    results = ResultsFile(out / RESULTS_FILE)
    results.append(ROW, before=partial(notes.cover, {"attempt": attempt, "notes": count},
                                       key=("du", "q1", None)))  # fmt: skip
    results.close()


def edit_by_hand(out: Path) -> None:
    path = out / RESULTS_FILE
    path.write_text(path.read_text().replace('"answer":"4"', '"answer":"four"'))


def test_a_row_edited_by_hand_still_covers_its_notes(tmp_path: Path) -> None:
    notes = NoteFile(tmp_path)
    notes.write(note("a", 1, requests=1, input_tokens=60, output_tokens=12))
    notes.write(note("a", 2, requests=1, input_tokens=40, output_tokens=8))
    write_row(tmp_path, notes, "a", 2)
    notes.close()
    assert spend_on_record(tmp_path) == BILL
    edit_by_hand(tmp_path)
    assert read_ledger(tmp_path)["noted"] == []  # not counted twice
    assert spend_on_record(tmp_path) == BILL


def test_a_failed_row_edited_by_hand_then_retried_counts_its_notes_once(tmp_path: Path) -> None:
    failed = {**ROW, "answer": None, "correct": False, "error": "timeout", "input_tokens": 0,
              "output_tokens": 0, "wasted_input_tokens": 100,
              "wasted_output_tokens": 20}  # fmt: skip
    notes = NoteFile(tmp_path)
    notes.write(note("a", 1, requests=1, input_tokens=60, output_tokens=12))
    notes.write(note("a", 2, requests=1, input_tokens=40, output_tokens=8))
    results = ResultsFile(tmp_path / RESULTS_FILE)
    results.append(failed, before=partial(notes.cover, {"attempt": "a", "notes": 2},
                                          key=("du", "q1", None)))  # fmt: skip
    results.close()
    notes.close()
    path = tmp_path / RESULTS_FILE
    path.write_text(path.read_text().replace('"timeout"', '"timed out"'))
    edited = path.read_bytes()
    log_retried(tmp_path, [(fingerprint(edited), json.loads(edited))])  # the resume drops it
    path.write_text("")
    assert read_ledger(tmp_path)["noted"] == []  # the cover holds the notes: not twice
    assert spend_on_record(tmp_path) == BILL


def test_an_edited_row_takes_its_own_cover_not_that_of_an_attempt_killed_before_its_row(
    tmp_path: Path,
) -> None:
    notes = NoteFile(tmp_path)
    notes.write(note("killed", 1, requests=1, input_tokens=30, output_tokens=3))
    notes.cover(
        {"attempt": "killed", "notes": 1}, b'{"never": "written"}\n', key=("du", "q1", None)
    )
    notes.write(note("a", 1, requests=2, input_tokens=100, output_tokens=20))
    write_row(tmp_path, notes, "a", 1)
    notes.close()
    edit_by_hand(tmp_path)
    (killed,) = uncovered_notes(tmp_path, {})
    assert (killed["attempt"], killed["input_tokens"], killed["output_tokens"]) == ("killed", 30, 3)
    assert spend_on_record(tmp_path) == {**BILL, "input_tokens": 130, "output_tokens": 23,
                                         "requests": 3}  # fmt: skip


def test_notes_of_ray_workers_own_files_count_once_and_go_with_force(tmp_path: Path) -> None:
    from debategraph.eval.log.store import SettingsMismatchError, check_manifest

    run = tmp_path / SPEND_NOTES_DIR / "r1"
    run.mkdir(parents=True)
    one = NoteFile(tmp_path, path=run / "w1.jsonl")
    one.write(note("a", 1, requests=2, input_tokens=100, output_tokens=20))
    two = NoteFile(tmp_path, path=run / "w2.jsonl")
    two.write(note("b", 1, requests=1, input_tokens=7, output_tokens=1))
    one.close()
    two.close()
    driver = NoteFile(tmp_path)  # the driver covers the rows it writes
    write_row(tmp_path, driver, "a", 1)
    driver.close()
    (left,) = uncovered_notes(tmp_path, {})
    assert (left["attempt"], left["input_tokens"], left["requests"]) == ("b", 7, 1)
    assert spend_on_record(tmp_path)["input_tokens"] == 107
    (tmp_path / RESULTS_FILE).unlink()
    (tmp_path / "spend.jsonl").unlink()
    with pytest.raises(SettingsMismatchError, match=r"holds spend/ but no run\.json"):
        check_manifest(tmp_path, {"dataset": "x"})  # a Ray run killed before its first row
    check_manifest(tmp_path, {"dataset": "x"}, force=True)
    assert not (tmp_path / SPEND_NOTES_DIR).exists()


def test_requests_whose_reply_reached_no_record_are_said_apart_as_an_estimate(
    tmp_path: Path,
) -> None:
    notes = NoteFile(tmp_path)
    notes.write(note("a", 1, requests=1, input_estimate=30))
    notes.write(note("a", 2, input_tokens=33, output_tokens=4, closed=1, closed_estimate=30))
    notes.write(note("a", 3, requests=1, input_estimate=20))  # killed with its reply on the wire
    notes.write(note("b", 1, requests=1, input_estimate=10))
    notes.write(note("b", 2, failed_requests=1, closed=1, closed_estimate=10))
    notes.write(note("old", 1, requests=1))  # an older version's note: no estimate, no close
    notes.close()
    legacy = {"method": "du", "id": "q2", "input_tokens": 5, "output_tokens": 0,
              "requests": 3, "failed_requests": 0, "cut_off_requests": 2,
              "estimated_input_tokens": 15}  # fmt: skip
    assert [(d["attempt"], d["requests"], d["input_estimate"])
            for d in read_ledger(tmp_path)[UNANSWERED]] == [("a", 1, 20)]  # fmt: skip
    append_line(tmp_path, "cut_short", [legacy])  # a Ctrl-C of a run that kept no notes
    ledger = read_ledger(tmp_path)
    summary = {"method": "du", "n": 2, "wasted_tokens": 0, "failed_item_tokens": 0,
               "requests": 0, "failed_requests": 0,
               "bill": {"unkept_input_tokens": 0, "unkept_output_tokens": 0}}  # fmt: skip
    folded = fold_ledger([{"du": summary}], ledger)  # type: ignore[list-item]
    assert folded[UNANSWERED] == {"requests": 3, "input_estimate": 35}
    words = ledger_words(folded)
    assert "Not on the bill: 3 request(s) sent whose reply reached no record" in words
    assert "their input was about 35 tokens (an estimate, counted in no figure above)" in words
    # the exact figures: every note's tokens, the estimates in none of them
    assert folded["noted"]["input_tokens"] == 33 and folded["noted"]["requests"] == 4


def test_a_ray_worker_writes_its_own_notes_where_it_sees_the_drivers_folder(
    tmp_path: Path, monkeypatch
) -> None:
    from debategraph.eval.log import ledger

    run = tmp_path / SPEND_NOTES_DIR / "r1"
    run.mkdir(parents=True)
    job = Job((), "arithmetic", 1)
    worker = ray_executor._Worker(job, None, {"dir": str(run), "fsync": False, "counted": True})
    worker.note(note("a", 1, requests=1, input_estimate=9))
    assert asyncio.run(worker.take_notes()) == ([], [note("a", 1, requests=1, input_estimate=9)])
    (own,) = run.glob("*.jsonl")
    assert own.name.startswith(f"{os.getpid()}-")
    assert [d["attempt"] for d in read_ledger(tmp_path)[UNANSWERED]] == ["a"]

    elsewhere = ray_executor._Worker(job, None, {"dir": str(tmp_path / "not-shared")})
    elsewhere.note(note("b", 1, requests=1))  # the folder is not here: the driver writes it
    assert asyncio.run(elsewhere.take_notes()) == ([note("b", 1, requests=1)], [])

    def full_disk(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ledger.os, "write", full_disk)
    worker.note(note("a", 2, input_tokens=5))  # its file fails: the driver gets this one
    worker.note(note("a", 3, input_tokens=6))
    kept, written = asyncio.run(worker.take_notes())
    assert [n["n"] for n in kept] == [2, 3] and written == []


def test_a_note_whose_fsync_failed_after_its_line_was_written_is_not_handed_on(
    tmp_path: Path, monkeypatch
) -> None:
    from debategraph.eval.log import ledger

    run = tmp_path / SPEND_NOTES_DIR / "r1"
    run.mkdir(parents=True)
    worker = ray_executor._Worker(
        Job((), "arithmetic", 1), None, {"dir": str(run), "fsync": True, "counted": True}
    )

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(ledger.os, "fsync", failing_fsync)
    worker.note(note("a", 1, requests=1, input_estimate=9))
    assert isinstance(worker.note_file.failure, OSError)  # type: ignore[union-attr]
    kept, written = asyncio.run(worker.take_notes())
    assert kept == [] and written == [note("a", 1, requests=1, input_estimate=9)]
    driver = NoteFile(tmp_path)  # what the driver writes of them: none
    for line in kept:
        driver.write(line)
    driver.close()
    assert spend_on_record(tmp_path)["requests"] == 1  # the one note, once
    (unanswered,) = read_ledger(tmp_path)[UNANSWERED]
    assert (unanswered["requests"], unanswered["input_estimate"]) == (1, 9)


def test_the_next_ray_run_removes_the_empty_note_folders_of_killed_drivers(
    tmp_path: Path,
) -> None:
    from debategraph.eval.run.cut_short import SPEND_NOTES, WorkerNotes

    notes = tmp_path / SPEND_NOTES_DIR
    (notes / "killed").mkdir(parents=True)  # a driver killed before any worker noted
    (notes / "kept").mkdir()
    (notes / "kept" / "w1.jsonl").write_text('{"attempt":"a","n":1}\n')
    executor = ray_executor.RayExecutor()
    taking = SPEND_NOTES.set(lambda note: None)
    try:
        folder = executor._notes_folder(WorkerNotes(tmp_path))
    finally:
        SPEND_NOTES.reset(taking)
    assert folder is not None and folder.parent == notes
    assert sorted(p.name for p in notes.iterdir()) == sorted(["kept", folder.name])
