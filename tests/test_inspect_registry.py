"""Inspect finds the debate solver by name (``debategraph/debate``) through the entry point.

The package's entry points come from its installed metadata, which an editable install
writes once; so the test puts a distribution on ``sys.path`` whose ``entry_points.txt`` is
the ``inspect_ai`` group that ``pyproject.toml`` declares, and Inspect resolves the name
from there, as it does for an installed package. The debaters run on Inspect's mock model,
whose replies carry their usage (so nothing downloads a tokenizer).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")
pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated")

from inspect_ai import Task, task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai._util import entrypoints  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import match  # noqa: E402
from inspect_ai.solver import SolverSpec  # noqa: E402

from debategraph.errors import DebategraphError  # noqa: E402

from .openai_server import serve  # noqa: E402

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def declared_entry_points() -> dict[str, str]:
    project: dict[str, Any] = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    group: dict[str, str] = project["entry-points"]["inspect_ai"]
    return group


def entry_point_site(root: Path) -> Path:
    """A folder holding a distribution whose entry points are the pyproject's inspect_ai group."""
    dist = root / "site" / "debategraph_entry_points-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: debategraph-entry-points\nVersion: 0\n"
    )
    lines = [f"{name} = {target}" for name, target in declared_entry_points().items()]
    (dist / "entry_points.txt").write_text("[inspect_ai]\n" + "\n".join(lines) + "\n")
    return root / "site"


@pytest.fixture
def registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The pyproject's inspect_ai entry points, visible as an installed distribution's."""
    monkeypatch.syspath_prepend(str(entry_point_site(tmp_path)))
    entrypoints.clear_entry_points_state()
    yield
    entrypoints.clear_entry_points_state()


def reply(messages: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """The mock debater: always 15, with its usage counted in words."""
    text = "3 + 20 + 6 - 14 = 15, so the answer is 15."
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    read = sum(len(m.text.split()) for m in messages)
    written = len(text.split())
    out.usage = ModelUsage(input_tokens=read, output_tokens=written, total_tokens=read + written)
    return out


def command_line_solver(**options: Any) -> SolverSpec:
    """What ``inspect eval --solver debategraph/debate -S key=value ...`` hands to eval()."""
    return SolverSpec("debategraph/debate", options, options)


@task
def tiny_arithmetic() -> Task:
    """A local Inspect task with no solver of its own."""
    return Task(
        dataset=[
            Sample(id="a", input="What is the result of 3+4*5+6-7*2?", target="15"),
            Sample(id="b", input="What is 10+5?", target="15"),
        ],
        scorer=match(numeric=True),
    )


def test_the_pyproject_points_inspect_at_the_registry_module() -> None:
    assert declared_entry_points() == {"debategraph": "debategraph.integrations.inspect_registry"}


def test_a_local_task_runs_a_debate_through_the_solver_named_on_the_command_line(
    registered: None, tmp_path: Path
) -> None:
    sys.modules.pop("debategraph.integrations.inspect_registry", None)
    spec = command_line_solver(method="du", agents=3, rounds=1)
    model = get_model("mockllm/model", custom_outputs=reply, memoize=False)
    [log] = inspect_eval(
        tiny_arithmetic(), solver=spec, model=model, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    assert log.eval.solver == "debategraph/debate"
    assert log.eval.solver_args == {"method": "du", "agents": 3, "rounds": 1}
    by_id = {s.id: s for s in log.samples or []}
    assert {k: s.output.completion for k, s in by_id.items()} == {"a": "15", "b": "15"}
    assert {k: s.scores["match"].value for k, s in by_id.items()} == {"a": "C", "b": "C"}  # type: ignore[index]
    debate = by_id["a"].metadata["debate"]
    assert [a["model"] for a in debate["agents"]] == ["inspect:mockllm/model"] * 3
    # every call of every debate went through Inspect's model, which counted its usage
    debates = [s.metadata["debate"] for s in by_id.values()]
    calls = [e for s in by_id.values() for e in s.events if e.event == "model"]
    assert (
        len(calls) == sum(d["usage"]["calls"] for d in debates) == 2 * 3 * 2
    )  # 3 agents, 2 rounds
    usage = log.stats.model_usage["mockllm/model"]
    assert usage.output_tokens == sum(d["usage"]["output_tokens"] for d in debates) > 0
    assert usage.input_tokens == sum(d["usage"]["input_tokens"] for d in debates)


def test_an_unknown_method_is_refused_before_any_model_call(
    registered: None, tmp_path: Path
) -> None:
    spec = command_line_solver(method="no-such-method")
    model = get_model("mockllm/model", custom_outputs=reply, memoize=False)
    with pytest.raises(DebategraphError, match="unknown method 'no-such-method'; choose one of"):
        inspect_eval(
            tiny_arithmetic(), solver=spec, model=model, log_dir=str(tmp_path), display="none"
        )
    assert not list(tmp_path.glob("*.eval"))


TASK_FILE = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match


@task
def tiny():
    return Task(
        dataset=[Sample(id="a", input="What is the result of 3+4*5+6-7*2?", target="15")],
        scorer=match(numeric=True),
    )
"""


@pytest.mark.slow
def test_the_inspect_command_runs_a_debate_by_name_on_a_loopback_model(tmp_path: Path) -> None:
    """`inspect eval FILE@task --solver debategraph/debate -S ...`, as a user types it."""
    (tmp_path / "tiny.py").write_text(TASK_FILE)
    site = entry_point_site(tmp_path)
    # debategraph as installed (a wheel, or editable): Inspect names a solver of a module it
    # loads from outside any installed distribution without the package's prefix.
    paths = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    with serve(seed=0) as server:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(paths),
            "LOOP_BASE_URL": server.base_url,
            "LOOP_API_KEY": "sk-test",
        }
        done = subprocess.run(
            [sys.executable, "-m", "inspect_ai", "eval", "tiny.py@tiny",
             "--solver", "debategraph/debate", "-S", "method=du", "-S", "agents=3",
             "-S", "rounds=1", "--model", "openai-api/loop/sim-2",
             "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        stats = server.stats()
    assert done.returncode == 0, done.stdout + done.stderr
    assert stats["chat_requests"] == 3 * 2  # 3 agents, the first answers and one debate round
    assert "accuracy  1.000" in done.stdout
    assert "openai-api/loop/sim-2" in done.stdout and " tokens [I: " in done.stdout
