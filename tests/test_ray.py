"""Evaluations on a local Ray cluster: the local executor's rows, exactly once, whatever dies.

Marked ``ray`` and skipped without Ray; run them alone with
``python -m pytest -m ray`` (``pip install -e '.[dev]'`` installs Ray).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatResult
from pydantic import ConfigDict, Field

from debategraph.api import DebateConfigError
from debategraph.eval.datasets import load_dataset
from debategraph.eval.log.store import RESULTS_FILE
from debategraph.eval.run.executors import Job, RayExecutor, Work
from debategraph.eval.run.executors.ray import WORKER_ENV
from debategraph.eval.run.runner import Arm, arms_for, evaluate

from .helpers import without_timings
from .openai_server import serve

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.ray, pytest.mark.slow]

ITEMS = load_dataset("arithmetic", limit=20, seed=1)
SLOW = {"agents": 2, "rounds": 1, "models": "simulated:latency_s=0.05"}


def lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / RESULTS_FILE).read_text().splitlines()]


def without(rows: list[dict[str, Any]], *fields: str) -> list[dict[str, Any]]:
    return without_timings(rows, also=fields)


@pytest.fixture(scope="module")
def cluster():
    """One local cluster of two CPUs for this module (a RayExecutor uses it as it is)."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    ray.shutdown()


def test_workers_screen_items_as_this_process_does(cluster, tmp_path):
    arms = arms_for(["du"], {"agents": 3, "rounds": 1, "seed": 2}, only_contested=True)
    local = evaluate(ITEMS, arms, tmp_path / "local", dataset="arithmetic")
    remote = evaluate(ITEMS, arms, tmp_path / "ray", dataset="arithmetic",
                      executor=RayExecutor(workers=2))  # fmt: skip
    assert 0 < remote.settled == local.settled < len(ITEMS)
    assert without(lines(tmp_path / "ray")) == without(lines(tmp_path / "local"))


def test_two_workers_write_the_local_executors_rows(cluster, tmp_path):
    arms = arms_for(["du", "mav"], {"agents": 2, "rounds": 1}, match_budget=True)
    local = evaluate(ITEMS, arms, tmp_path / "local", dataset="arithmetic")
    executor = RayExecutor(workers=2)
    remote = evaluate(ITEMS, arms, tmp_path / "ray", dataset="arithmetic", executor=executor)
    assert (remote.written, remote.failed) == (80, 0)
    assert without(lines(tmp_path / "ray")) == without(lines(tmp_path / "local"))
    assert remote.count == local.count == 80
    assert len(executor.started) == 2 and len(executor.pids) == 2  # both ran units
    # The driver's own niceness (0 in CI), not Ray's default of 15 more.
    assert [w["niceness"] for w in executor.started] == [os.nice(0)] * 2
    # Ray sets up nothing else for them: no key of this process is shipped.
    assert [w["runtime_env"] for w in executor.started] == [{"env_vars": WORKER_ENV}] * 2
    assert 2 <= remote.peak_in_flight <= 16


def test_workers_run_each_arm_item_and_seed_once_as_this_process_does(cluster, tmp_path):
    arms = arms_for(["du"], {"agents": 2, "rounds": 1}, match_budget=True)
    items = ITEMS[:6]
    local = evaluate(items, arms, tmp_path / "local", dataset="arithmetic", seeds=[0, 1, 2])
    remote = evaluate(items, arms, tmp_path / "ray", dataset="arithmetic", seeds=[0, 1, 2],
                      executor=RayExecutor(workers=2))  # fmt: skip
    assert (remote.written, remote.failed, local.written) == (36, 0, 36)
    rows = lines(tmp_path / "ray")
    assert len({(r["method"], r["id"], r["seed"]) for r in rows}) == 36
    assert without(rows) == without(lines(tmp_path / "local"))
    again = evaluate(items, arms, tmp_path / "ray", dataset="arithmetic", seeds=[0, 1, 2],
                     executor=RayExecutor(workers=2))  # fmt: skip
    assert (again.resumed, again.written) == (36, 0)


class KillWorker:
    """Progress hook that SIGKILLs the first worker after ``k`` rows."""

    def __init__(self, executor: RayExecutor, k: int) -> None:
        self.executor, self.k, self.seen, self.killed = executor, k, 0, 0

    def start(self, totals, done) -> None:
        pass

    def advance(self, row) -> None:
        self.seen += 1
        if self.seen == self.k:
            self.killed = self.executor.started[0]["pid"]
            os.kill(self.killed, signal.SIGKILL)

    def stop(self) -> None:
        pass


def test_a_killed_worker_is_restarted_and_every_row_written_once(cluster, tmp_path):
    arms = [Arm("du", "du", SLOW)]
    evaluate(ITEMS, arms, tmp_path / "reference", dataset="arithmetic", concurrency=8)
    executor = RayExecutor(workers=2)
    hook = KillWorker(executor, 4)
    outcome = evaluate(ITEMS, arms, tmp_path / "ray", dataset="arithmetic", concurrency=8,
                       executor=executor, progress=hook)  # fmt: skip
    assert hook.killed and (outcome.written, outcome.failed) == (20, 0)
    rows = lines(tmp_path / "ray")
    assert len({(r["method"], r["id"]) for r in rows}) == len(rows) == 20
    assert without(rows) == without(lines(tmp_path / "reference"))
    # The killed worker held units when it died: a restarted process finished some.
    assert hook.killed in executor.pids and len(executor.pids) >= 3


def test_a_unit_lost_with_its_worker_fails_its_screen_alone():
    # The methods after a screen run only if it finds the item contested: a lost unit
    # leaves them to the next run instead of counting them failed.
    arms = arms_for(["du"], {"agents": 3, "rounds": 1}, only_contested=True)
    job = Job(tuple(arms), "arithmetic", 4)
    loop = asyncio.new_event_loop()
    try:
        lost = loop.create_future()
        lost.set_exception(ray.exceptions.RayActorError())
        failed = {
            labels: RayExecutor()._rows(ray, lost, Work(ITEMS[0], labels), job, [0], 0)
            for labels in (("vote@r0", "du"), ("du",))
        }
    finally:
        loop.close()
    assert {k: [r["method"] for r in rows] for k, rows in failed.items()} == {
        ("vote@r0", "du"): ["vote@r0"],
        ("du",): ["du"],
    }
    assert all(r["error"].startswith("WorkerDied") for rows in failed.values() for r in rows)
    seeded = RayExecutor()._rows(ray, lost, Work(ITEMS[0], ("du",), seed=3), job, [0], 0)
    assert [(r["method"], r["id"], r["seed"]) for r in seeded] == [("du", ITEMS[0].id, 3)]


class Locked(BaseChatModel):
    """A chat model holding a lock: it cannot be pickled."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    lock: Any = Field(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "locked"

    def _generate(self, messages, stop=None, run_manager=None, **kw) -> ChatResult:
        raise NotImplementedError


class Keyed(Locked):
    """A picklable chat model that carries its API key."""

    lock: Any = None
    key: str = ""


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"models": Locked()}, "cannot be sent to Ray workers"),
        ({"models": "keyed"}, "holds a secret"),
        (
            {"models": "m", "base_url": "http://ann:hunter2pass@127.0.0.1:9/v1"},
            "credentials in its base URL.*'openai:MODEL' with no base URL.*OPENAI_BASE_URL=",
        ),
    ],
)
def test_what_cannot_reach_a_worker_safely_is_refused_before_anything(
    tmp_path, monkeypatch, settings, message
):
    monkeypatch.setenv("EXAMPLE_API_KEY", "sk-example-key-123456")
    if settings["models"] == "keyed":
        settings = {"models": Keyed(key="sk-example-key-123456")}
    out = tmp_path / "out"
    with pytest.raises(DebateConfigError, match=message):
        evaluate(ITEMS, [Arm("cot", "cot", settings)], out, dataset="arithmetic",
                 executor=RayExecutor(workers=1))  # fmt: skip
    assert not out.exists()


def test_the_advice_for_basic_credentials_works(loopback, tmp_path, monkeypatch):
    # What the refusal above advises: the credentials in the workers' environment, the arm
    # free of them. Ray accepts the arm, and a worker's model (built from its spec and its
    # environment, as here) sends them as Basic credentials.
    with serve() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url.replace("//", "//ann:hunter2pass@"))
        monkeypatch.setenv("OPENAI_API_KEY", "any-value")
        arms = [Arm("cot", "cot", {"models": "openai:sim-0"})]
        RayExecutor().check(Job(tuple(arms), "arithmetic", 1))
        outcome = evaluate(ITEMS[:1], arms, tmp_path / "out", dataset="arithmetic")
        sent = {r.headers.get("authorization") for r in server.requests}
    assert outcome.failed == 0
    assert sent == {"Basic " + base64.b64encode(b"ann:hunter2pass").decode()}
    assert not any("hunter2pass" in f.read_text() for f in (tmp_path / "out").iterdir())


def test_a_cache_object_is_refused_a_cache_file_shared(cluster, tmp_path, monkeypatch):
    from langgraph.cache.memory import InMemoryCache

    arms = [Arm("du", "du", {"agents": 2, "rounds": 1})]
    with pytest.raises(DebateConfigError, match="SQLite file path"):
        evaluate(ITEMS, arms, tmp_path / "x", dataset="arithmetic", cache=InMemoryCache(),
                 executor=RayExecutor(workers=2))  # fmt: skip
    cache = tmp_path / "calls.sqlite"
    first = evaluate(ITEMS, arms, tmp_path / "a", dataset="arithmetic", cache=cache,
                     executor=RayExecutor(workers=2))  # fmt: skip
    again = evaluate(ITEMS, arms, tmp_path / "b", dataset="arithmetic", cache=cache,
                     executor=RayExecutor(workers=2))  # fmt: skip
    assert sum(row["requests"] for row in first.rows) == 80
    assert sum(row["requests"] for row in again.rows) == 0  # every call from the shared file
    assert without(again.rows) == [
        {
            **r,
            "requests": 0,
            "cached_calls": r["calls"],
            "usage_by_source": {
                "paid": {"calls": 0, "input_tokens": 0, "output_tokens": 0},
                "cached": r["usage_by_source"]["paid"],
            },
            "turns": [{**t, "cached": True} for t in r["turns"]],
        }
        for r in without(first.rows)
    ]  # the same rows, every call marked as replayed
    nodes = ray.nodes()
    elsewhere = [*nodes, {**nodes[0], "NodeManagerAddress": "198.51.100.7", "Alive": True}]
    monkeypatch.setattr(ray, "nodes", lambda: elsewhere)
    with pytest.raises(DebateConfigError, match=r"other machines \(198\.51\.100\.7\)"):
        evaluate(ITEMS, arms, tmp_path / "c", dataset="arithmetic", cache=cache,
                 executor=RayExecutor(workers=2))  # fmt: skip


def descendants(pid: int) -> set[int]:
    """Every process started by ``pid``, directly or not (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


RAY_NOISE = re.compile(
    r"Token authentication|^\[\d{4}-\d\d-\d\d [\d:,]+ [DIWEF] \d+ \d+\]|\(raylet\)|\(_Worker ",
    re.MULTILINE,
)
"""What Ray prints on its own: its token notice, raw C++ log lines, forwarded raylet lines."""


def quiet_env() -> dict[str, str]:
    """This environment without the token mode an earlier ``ray.init`` here may have set."""
    return {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"} | {"HF_HUB_OFFLINE": "1"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_running_cluster_is_joined_with_its_address(tmp_path):
    ray_command = Path(sys.executable).with_name("ray")
    temp = Path(tempfile.mkdtemp(prefix="dgray-", dir="/tmp"))  # Ray's socket paths are short
    port = free_port()
    head = [ray_command, "start", "--head", f"--port={port}", "--num-cpus=2", f"--temp-dir={temp}"]
    head += ["--include-dashboard=false", "--disable-usage-stats"]
    args = ["eval", "--method", "cot", "--dataset", "arithmetic", "--limit", "6", "--quiet"]
    code = [sys.executable, "-c", "from debategraph.cli import main; main()", *args]
    env = quiet_env()  # as in a fresh shell: `ray start --head` turns token auth on
    subprocess.run(head, env=env, check=True, capture_output=True, timeout=120)
    try:
        subprocess.run([*code, "--out", str(tmp_path / "local")], env=env, check=True,
                       capture_output=True)  # fmt: skip
        join = [*code, "--engine", "ray", "--address", f"127.0.0.1:{port}", "--out"]
        joined = subprocess.run([*join, str(tmp_path / "joined")], env=env,
                                capture_output=True, text=True, timeout=300)  # fmt: skip
        assert joined.returncode == 0, joined.stderr
        assert not RAY_NOISE.search(joined.stdout + joined.stderr), joined.stderr
        assert without(lines(tmp_path / "joined")) == without(lines(tmp_path / "local"))
        wrong = {**env, "RAY_AUTH_TOKEN": "0123456789abcdef" * 4}
        refused = subprocess.run([*join, str(tmp_path / "refused")], env=wrong,
                                 capture_output=True, text=True, timeout=300)  # fmt: skip
        assert refused.returncode == 2
        assert re.search(
            r"^error: cannot join the Ray cluster at 127\.0\.0\.1:\d+: it refused this "
            r"machine's Ray token.*RAY_AUTH_TOKEN",
            refused.stderr.splitlines()[-1],
        ), refused.stderr[-600:]
    finally:  # the cluster's processes (named by its temp dir) and theirs, by id
        heads = {p for p in descendants(1) if str(temp) in command_line(p)}
        for pid in heads | {d for p in heads for d in descendants(p)}:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)


def rows_in(results: Path) -> int:
    return results.read_bytes().count(b"\n") if results.exists() else 0


def wait_for_rows(results: Path, n: int, driver: subprocess.Popen[Any]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and driver.poll() is None and rows_in(results) < n:
        time.sleep(0.02)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_an_interrupted_or_killed_driver_leaves_nothing_and_resumes(tmp_path):
    args = ["eval", "--method", "du", "--dataset", "arithmetic", "--limit", "20", "--agents"]
    args += ["2", "--rounds", "1", "--model", "simulated:latency_s=0.05", "--concurrency", "4"]
    code = [sys.executable, "-c", "from debategraph.cli import main; main()", *args, "--quiet"]
    env = quiet_env()
    local = tmp_path / "local"
    subprocess.run([*code, "--out", str(local)], env=env, check=True, capture_output=True)
    out = tmp_path / "killed"
    command = [*code, "--engine", "ray", "--workers", "2", "--out", str(out)]
    results = out / RESULTS_FILE
    # Ctrl-C: the rows so far are kept, one line says so, and Ray adds nothing of its own.
    driver = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)  # fmt: skip
    wait_for_rows(results, 3, driver)
    driver.send_signal(signal.SIGINT)
    stdout, stderr = driver.communicate(timeout=120)
    assert driver.returncode == 130, stderr
    assert stderr.splitlines()[-1].startswith("interrupted: finished rows are saved")
    assert not RAY_NOISE.search(stdout + stderr), stdout + stderr
    interrupted_with = rows_in(results)
    # SIGKILL: no process of the run's cluster outlives the driver by more than 10 s.
    driver = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    wait_for_rows(results, interrupted_with + 3, driver)
    started = descendants(driver.pid)  # the local cluster's processes, its agents among them
    names = {pid: command_line(pid) for pid in started}
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    killed_with = rows_in(results)
    try:
        assert interrupted_with + 3 <= killed_with < 20
        assert sum("_Worker" in n for n in names.values()) == 2
        for agent in ("DashboardAgent", "RuntimeEnvAgent"):
            assert any(agent in name for name in names.values())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(pid) for pid in started):
            time.sleep(0.1)
        assert not [names[p][:60] for p in started if alive(p)]
    finally:
        for pid in started:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{killed_with} resumed" in resumed.stdout
    rows = lines(out)
    assert len({(r["method"], r["id"]) for r in rows}) == len(rows) == 20
    assert without(rows) == without(lines(local))


RAY_PROCESS_NAMES = ("raylet", "gcs_server", "_Worker", "DashboardAgent", "RuntimeEnvAgent")


def ray_processes() -> set[int]:
    return {
        pid
        for pid in descendants(1)
        if alive(pid) and any(n in command_line(pid) for n in RAY_PROCESS_NAMES)
    }


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_local_cluster_started_for_a_run_is_gone_after_it(tmp_path):
    before = ray_processes()  # this module's own cluster may be running: it stays
    args = ["eval", "--method", "cot", "--dataset", "arithmetic", "--limit", "4", "--quiet",
            "--engine", "ray", "--workers", "2", "--out", str(tmp_path / "r")]  # fmt: skip
    code = [sys.executable, "-c", "from debategraph.cli import main; main()", *args]
    done = subprocess.run(code, env=quiet_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not RAY_NOISE.search(done.stdout + done.stderr), done.stderr
    deadline = time.monotonic() + 20
    while ray_processes() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not ray_processes() - before, [command_line(p)[:80] for p in ray_processes() - before]


def test_a_dead_server_stops_a_ray_run_as_it_stops_a_local_one(cluster, tmp_path):
    from debategraph.eval.run.breaker import DOWN_STREAK, ServerDownError

    with socket.socket() as closed:  # bound, never listening: every connection is refused
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}/v1"
        arms = [Arm("cot", "cot", {"models": "sim-0", "base_url": url, "retry_backoff": 0.001})]
        with pytest.raises(ServerDownError, match=f"in a row could not connect to {url} ") as stop:
            evaluate(ITEMS, arms, tmp_path / "ray", dataset="arithmetic", concurrency=4,
                     executor=RayExecutor(workers=2))  # fmt: skip
    assert stop.value.streak == DOWN_STREAK
    results = tmp_path / "ray" / RESULTS_FILE
    assert not results.exists() or results.read_text() == ""
