"""A damaged, full or read-only cache file stops the run with one line, and no error rows."""

from __future__ import annotations

import errno
import json
import sqlite3
from pathlib import Path
from unittest import mock

import pytest
from langgraph.cache import sqlite as langgraph_sqlite
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.eval.datasets import Item
from debategraph.eval.run.runner import Arm, evaluate
from debategraph.nodes.cache_guard import CacheError, cache_fault
from debategraph.testing import ScriptedChatModel

runner = CliRunner()
EVAL = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "3", "--quiet"]
WAY_OUT = "point --cache (cache=) at another file, or run without a cache (--no-cache)"
ITEMS = [Item("q1", "What is 3 + 4?", "7"), Item("q2", "What is 5 + 6?", "11")]
PAGE = 4096


def filled_cache(path: Path) -> Path:
    """A copy of a cache of real replies, many pages long, not yet opened by this process."""
    source = path.with_name("source.sqlite")
    done = runner.invoke(app, [*EVAL, "--out", str(path.parent / "first"), "--cache", str(source)])
    assert done.exit_code == 0, done.output
    with sqlite3.connect(source) as conn:  # move the write-ahead log into the file
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path.write_bytes(source.read_bytes())
    assert len(path.read_bytes()) > 8 * PAGE
    return path


def damage_past_the_header(path: Path) -> None:
    """Overwrite every page after the third: the header and the schema stay intact."""
    data = bytearray(path.read_bytes())
    for k in range(3 * PAGE, len(data), 5):
        data[k] = 0x55
    path.write_bytes(bytes(data))


def one_error_line(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), output
    return lines[0]


def test_fault_messages_name_the_file_and_the_way_out() -> None:
    path = Path("/data/calls.sqlite")
    full = cache_fault(path, OSError(errno.ENOSPC, "No space left on device"))
    assert str(full) == (
        "cache /data/calls.sqlite cannot be written: its disk is full ([Errno 28] No space "
        f"left on device); free space there, or {WAY_OUT}"
    )
    sqlite_full = cache_fault(path, sqlite3.OperationalError("database or disk is full"))
    assert "its disk is full" in str(sqlite_full)
    read_only = cache_fault(path, sqlite3.OperationalError("attempt to write a readonly database"))
    assert str(read_only) == (
        "cache /data/calls.sqlite is read-only (attempt to write a readonly database): make "
        f"it writable, or {WAY_OUT}"
    )
    cannot_journal = sqlite3.OperationalError("unable to open database file")
    with mock.patch("os.access", return_value=False):  # a folder a non-root user cannot write
        assert f"is read-only (unable to open database file): make it writable, or {WAY_OUT}" in (
            str(cache_fault(path, cannot_journal))
        )
    read_only_fs = sqlite3.OperationalError("attempt to write a database")
    read_only_fs.sqlite_errorcode = 8 | (1 << 8)  # SQLITE_READONLY_RECOVERY
    assert "is read-only" in str(cache_fault(path, read_only_fs))
    damaged = cache_fault(path, sqlite3.DatabaseError("database disk image is malformed"))
    assert str(damaged) == (
        "cache /data/calls.sqlite is damaged (database disk image is malformed): delete it "
        f"(its stored replies are lost), or {WAY_OUT}"
    )
    for fault in (full, sqlite_full, read_only, damaged):
        assert isinstance(fault, dg.DebateConfigError) and "again" not in str(fault)


def test_a_cache_damaged_past_its_header_is_refused_before_any_call(tmp_path: Path) -> None:
    cache = filled_cache(tmp_path / "calls.sqlite")
    damage_past_the_header(cache)
    assert cache.read_bytes().startswith(b"SQLite format 3\x00")
    out = tmp_path / "out"
    result = runner.invoke(app, [*EVAL, "--out", str(out), "--cache", str(cache)])
    assert result.exit_code == 2
    line = one_error_line(result.stderr)
    assert line.startswith(f"error: cache {cache} is damaged (database disk image is malformed")
    assert line.endswith(f"delete it (its stored replies are lost), or {WAY_OUT}")
    assert not out.exists()  # no item ran, so none became an error row
    model = ScriptedChatModel(replies=["Answer: 7"])
    with pytest.raises(CacheError, match="is damaged"):
        evaluate(
            ITEMS,
            [Arm("cot", "cot", {"models": model})],
            tmp_path / "api",
            dataset="own",
            cache=cache,
        )
    with pytest.raises(CacheError, match="is damaged"):
        dg.run("What is 3 + 4?", method="cot", models=model, cache=cache)
    assert model.calls == []
    sweep = tmp_path / "s.toml"
    sweep.write_text(
        f'dataset = "arithmetic"\nlimit = 2\ncache = "{cache}"\nout = "{tmp_path / "sw"}"\n'
        '[arms.cot]\nmethod = "cot"\n'
    )
    named = runner.invoke(app, ["eval", "--config", str(sweep), "--quiet"])
    assert named.exit_code == 2 and "is damaged" in named.stderr
    skipped = runner.invoke(app, ["eval", "--config", str(sweep), "--quiet", "--no-cache"])
    assert skipped.exit_code == 0, skipped.output
    again = runner.invoke(app, [*EVAL, "--out", str(out), "--cache", str(cache), "--no-cache"])
    assert again.exit_code == 2 and "not both" in again.stderr
    without = runner.invoke(app, [*EVAL, "--out", str(out), "--no-cache"])
    assert without.exit_code == 0, without.output


def test_a_full_disk_stops_the_run_at_the_first_failing_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: object, pairs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(langgraph_sqlite.SqliteCache, "set", full)
    cache, out = tmp_path / "calls.sqlite", tmp_path / "out"
    result = runner.invoke(app, [*EVAL, "--out", str(out), "--cache", str(cache)])
    assert result.exit_code == 2
    line = one_error_line(result.stderr)
    assert line.startswith(f"error: cache {cache} cannot be written: its disk is full")
    assert WAY_OUT in line and "same command again" not in line
    results = out / "results.jsonl"
    stored = [json.loads(x) for x in results.read_text().splitlines()] if results.exists() else []
    assert not any("error" in row for row in stored)


def test_a_read_only_cache_is_refused_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = filled_cache(tmp_path / "calls.sqlite")
    cache.chmod(0o444)  # as root this alone denies nothing: open it read-only as well
    connect = sqlite3.connect

    def read_only(path: str, **kwargs: object) -> sqlite3.Connection:
        return connect(f"file:{path}?mode=ro", uri=True, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(langgraph_sqlite.sqlite3, "connect", read_only)
    model = ScriptedChatModel(replies=["Answer: 7"])
    with pytest.raises(CacheError) as info:
        evaluate(
            ITEMS,
            [Arm("cot", "cot", {"models": model})],
            tmp_path / "api",
            dataset="own",
            cache=cache,
        )
    assert str(info.value) == (
        f"cache {cache} is read-only (attempt to write a readonly database): make it "
        f"writable, or {WAY_OUT}"
    )
    assert model.calls == [] and not (tmp_path / "api").exists()


def test_a_write_refused_mid_run_is_one_line_and_no_error_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(self: object, pairs: object) -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(langgraph_sqlite.SqliteCache, "set", refused)
    model = ScriptedChatModel(replies=["Answer: 7"])
    arm = Arm("cot", "cot", {"models": model})
    with pytest.raises(CacheError, match="is read-only"):
        evaluate(ITEMS, [arm], tmp_path / "out", dataset="own", cache=tmp_path / "calls.sqlite")
    results = tmp_path / "out" / "results.jsonl"
    assert not results.exists() or "error" not in results.read_text()
