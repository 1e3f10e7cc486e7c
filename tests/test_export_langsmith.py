"""``debategraph export DIR --to langsmith`` against a loopback stand-in for LangSmith.

The stand-in records every request; the checks are on what the docs promise is sent (one
upload-experiment request per arm and seed, the experiment's metadata, a row per item with
its inputs, reference, outcome and ``correct`` score), not on incidental wire details.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from debategraph.cli import app

runner = CliRunner()
EVAL = ["eval", "--dataset", "arithmetic", "--limit", "3", "--agents", "2", "--rounds", "1"]
EVAL += ["--quiet"]
KEY = "lsv2_pt_0123456789abcdef0123456789abcdef_0123456789"


class FakeLangSmith(BaseHTTPRequestHandler):
    """Records each request; answers an upload as LangSmith does, or with ``refuse_after``."""

    seen: list[dict[str, Any]]
    taken: list[dict[str, Any]]
    refuse_after: int | None = None
    hang: threading.Event | None = None
    html = False

    def do_request(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(size)) if size else None
        self.seen.append(
            {"method": self.command, "path": self.path, "key": self.headers.get("x-api-key"),
             "body": body}
        )  # fmt: skip
        if self.hang is not None:  # takes the request, never answers
            self.hang.wait(30)
            return
        if self.html:  # a web page where the API should be (a proxy, a login page)
            page = b"<!doctype html><html><body>Sign in</body></html>"
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        if self.path.startswith("/sessions"):  # experiments by name: those uploaded
            taken = [r["body"]["experiment_name"] for r in self.taken]
            name = parse_qs(urlsplit(self.path).query).get("name", [""])[0]
            self.answer(200, [{"id": str(uuid.uuid4()), "name": n} for n in taken if n == name])
            return
        uploads = sum(r["path"].endswith("/upload-experiment") for r in self.seen)
        if self.refuse_after is not None and uploads > self.refuse_after:
            self.answer(409, {"detail": "Experiment with this name already exists"})
            return
        self.taken.append(self.seen[-1])
        experiment = {"id": str(uuid.uuid4()), "name": (body or {}).get("experiment_name")}
        dataset = {"id": str(uuid.uuid4()), "name": (body or {}).get("dataset_name")}
        self.answer(200, {"experiment": experiment, "dataset": dataset})

    def answer(self, status: int, document: dict[str, Any] | list[Any]) -> None:
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_request

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def langsmith(loopback, monkeypatch) -> Iterator[type[FakeLangSmith]]:
    handler = type(
        "Handler", (FakeLangSmith,), {"seen": [], "taken": [], "refuse_after": None, "hang": None}
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()  # stops fast
    monkeypatch.setenv("LANGSMITH_API_KEY", KEY)
    monkeypatch.setenv("LANGSMITH_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    try:
        yield handler
    finally:
        if handler.hang is not None:
            handler.hang.set()
        server.shutdown()
        server.server_close()


def rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def evaluate(out: Path, *args: str) -> list[dict]:
    made = runner.invoke(app, [*EVAL, *args, "--out", str(out)])
    assert made.exit_code == 0, made.output
    return rows(out)


def test_each_arm_is_one_experiment_of_the_runs_items_with_the_correct_score(tmp_path, langsmith):
    stored = evaluate(tmp_path / "run", "--method", "du", "--method", "cot")
    done = runner.invoke(app, ["export", str(tmp_path / "run"), "--to", "langsmith"])
    assert done.exit_code == 0, done.output
    assert done.stdout.count("uploaded experiment run-") == 2
    # Per arm: is it there already, then its upload; no trace batches, no /info probe.
    names = [r["body"]["experiment_name"] for r in langsmith.taken]
    assert [(r["method"], r["path"]) for r in langsmith.seen] == [
        ("GET", f"/sessions?name={names[0]}&limit=1"),
        ("POST", "/datasets/upload-experiment"),
        ("GET", f"/sessions?name={names[1]}&limit=1"),
        ("POST", "/datasets/upload-experiment"),
    ]
    assert {r["key"] for r in langsmith.seen} == {KEY}
    bodies = {r["body"]["experiment_metadata"]["arm"]: r["body"] for r in langsmith.taken}
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())["settings"]
    assert bodies["du"]["dataset_name"] == f"debategraph-arithmetic-{manifest['items_sha256']}"
    assert bodies["cot"]["dataset_name"] == bodies["du"]["dataset_name"]
    row_ids: dict[str, set[str]] = {}
    for label, body in bodies.items():
        mine = [r for r in stored if r["method"] == label]
        meta = body["experiment_metadata"]
        assert meta["debategraph_method"] == label and meta["seed"] == 0
        assert meta["models"] == mine[0]["agent_models"]
        assert (
            meta["settings"] == next(a for a in manifest["arms"] if a["label"] == label)["settings"]
        )
        assert body["experiment_name"].startswith(f"run-{label}-")
        start = datetime.fromisoformat(body["experiment_start_time"])
        end = datetime.fromisoformat(body["experiment_end_time"])
        assert len(body["results"]) == len(mine) == 3
        for result, row in zip(body["results"], mine, strict=True):
            assert result["inputs"] == {
                "question": row["question"], "task": "number", "item_id": row["id"],
            }  # fmt: skip
            assert result["expected_outputs"] == {"reference": row["reference"]}
            assert result["actual_outputs"]["answer"] == row["answer"]
            assert result["actual_outputs"]["usage"] == {
                "input_tokens": row["input_tokens"], "output_tokens": row["output_tokens"],
                "calls": row["calls"],
            }  # fmt: skip
            (score,) = result["evaluation_scores"]
            assert score["key"] == "correct" and score["score"] == int(row["correct"])
            began = datetime.fromisoformat(result["start_time"])
            ended = datetime.fromisoformat(result["end_time"])
            assert start <= began <= ended <= end
            assert abs((ended - began).total_seconds() - row["wall_s"]) < 1e-6
            assert "turns" not in json.dumps(result)  # no turn texts leave
            row_ids.setdefault(row["id"], set()).add(result["row_id"])
    assert all(len(ids) == 1 for ids in row_ids.values())  # an item is one example


def test_a_run_of_several_seeds_is_one_experiment_per_seed(tmp_path, langsmith):
    evaluate(tmp_path / "run", "--method", "du", "--seeds", "0,1")
    done = runner.invoke(
        app,
        ["export", str(tmp_path / "run"), "--to", "langsmith", "--experiment-prefix", "mine",
         "--dataset-name", "my-items"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    bodies = [r["body"] for r in langsmith.taken]
    assert [b["experiment_metadata"]["seed"] for b in bodies] == [0, 1]
    assert [b["experiment_name"][:-9] for b in bodies] == ["mine-du-seed0", "mine-du-seed1"]
    assert {b["dataset_name"] for b in bodies} == {"my-items"}
    assert [r["run_metadata"]["seed"] for b in bodies for r in b["results"]] == [0] * 3 + [1] * 3


def test_a_refused_upload_is_one_line_that_says_what_was_uploaded(tmp_path, langsmith):
    evaluate(tmp_path / "run", "--method", "du", "--method", "cot")
    langsmith.refuse_after = 1
    done = runner.invoke(app, ["export", str(tmp_path / "run"), "--to", "langsmith"])
    assert done.exit_code == 2
    line = " ".join(done.output.split())
    assert "did not take the experiment" in line
    assert "the 1 experiment(s) before it are uploaded" in line
    assert done.stdout.count("uploaded experiment run-du-") == 1  # said as it happened
    assert KEY not in done.output


def test_without_a_key_nothing_is_sent(tmp_path, langsmith, monkeypatch):
    evaluate(tmp_path / "run", "--method", "cot")
    monkeypatch.delenv("LANGSMITH_API_KEY")
    monkeypatch.delenv("LANGCHAIN_API_KEY", raising=False)
    done = runner.invoke(app, ["export", str(tmp_path / "run"), "--to", "langsmith"])
    assert done.exit_code == 2 and "set LANGSMITH_API_KEY" in done.output
    assert langsmith.seen == []


def test_a_secret_in_a_stored_row_does_not_leave(tmp_path, langsmith, monkeypatch):
    stored = evaluate(tmp_path / "run", "--method", "cot")
    secret = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyzABCD"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    stored[0]["question"] += f" (key {secret})"  # as if written without the key configured
    (tmp_path / "run" / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in stored))
    done = runner.invoke(app, ["export", str(tmp_path / "run"), "--to", "langsmith"])
    assert done.exit_code == 0, done.output
    sent = json.dumps([r["body"] for r in langsmith.taken])
    assert secret not in sent and "(key [redacted])" in sent


def test_a_secret_in_an_arms_recorded_settings_does_not_leave(tmp_path, langsmith, monkeypatch):
    evaluate(tmp_path / "run", "--method", "cot")
    secret = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyzABCD"
    manifest = tmp_path / "run" / "run.json"
    recorded = json.loads(manifest.read_text())
    recorded["settings"]["arms"][0]["settings"]["base_url"] = f"http://h/v1?key={secret}"
    manifest.write_text(json.dumps(recorded))  # as if written before the key was configured
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    done = runner.invoke(app, ["export", str(tmp_path / "run"), "--to", "langsmith"])
    assert done.exit_code == 0, done.output
    sent = json.dumps([r["body"] for r in langsmith.taken])
    assert secret not in sent and "key=[redacted]" in sent


def test_a_failed_item_is_a_row_with_its_error_and_no_score(tmp_path, langsmith):
    stored = evaluate(tmp_path / "run", "--method", "du", "--method", "cot")
    broken = next(r for r in stored if r["method"] == "cot")
    failed = {k: broken[k] for k in ("method", "id", "dataset", "reference")}
    stored[stored.index(broken)] = {**failed, "error": "TimeoutError: the model did not answer"}
    (tmp_path / "run" / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in stored))
    done = runner.invoke(app, ["export", str(tmp_path / "run"), "--to", "langsmith"])
    assert done.exit_code == 0, done.output
    du, cot = (r["body"]["results"] for r in langsmith.taken)
    (row,) = [r for r in cot if "error" in r]
    assert row["error"] == "TimeoutError: the model did not answer"
    assert "evaluation_scores" not in row and "actual_outputs" not in row
    twin = next(r for r in du if r["inputs"]["item_id"] == broken["id"])
    assert row["inputs"] == twin["inputs"] and row["row_id"] == twin["row_id"]


def test_an_endpoint_that_never_answers_is_said_while_waited_for_then_given_up(
    tmp_path, langsmith, monkeypatch
):
    from debategraph.eval.export import langsmith as exporter

    evaluate(tmp_path / "run", "--method", "cot")
    langsmith.hang = threading.Event()
    monkeypatch.setattr(exporter, "GIVE_UP_S", 2.0)  # 240 s in use, as a model call's
    monkeypatch.setenv("DEBATEGRAPH_WAIT_SECONDS", "0.5")
    done = runner.invoke(app, ["export", str(tmp_path / "run"), "--to", "langsmith"])
    assert done.exit_code == 2
    lines = done.output.splitlines()
    url = os.environ["LANGSMITH_ENDPOINT"]
    assert any(
        line.startswith("waiting ") and f"for LangSmith's reply from {url} (attempt 1 of 3)" in line
        for line in lines
    ), lines
    error = " ".join(done.output.split("error: ", 1)[1].split())
    assert error == (
        f"LangSmith at {url} did not answer the experiments by name in 2 s (1 attempt(s)): is "
        "LANGSMITH_ENDPOINT right, and is LangSmith up?; nothing was uploaded"
    )
    assert len(langsmith.seen) == 1


def test_a_web_page_where_the_api_should_be_is_blamed_on_langsmith(tmp_path, langsmith):
    evaluate(tmp_path / "run", "--method", "cot")
    langsmith.html = True
    done = runner.invoke(app, ["export", str(tmp_path / "run"), "--to", "langsmith"])
    assert done.exit_code == 2
    error = " ".join(done.output.split("error: ", 1)[1].split())
    url = os.environ["LANGSMITH_ENDPOINT"]
    assert error.startswith(
        f"LangSmith at {url} answered the experiments by name with HTTP 200 but not JSON "
        "(text/html): is LANGSMITH_ENDPOINT LangSmith's API address"
    )
    assert "model server" not in done.output and "chat-completion" not in done.output
