"""What ``debategraph eval`` has done by its first model call, and the pre-run check's model.

Behavioural, not timed (``bench/first_call.py`` times it): the command runs in a fresh
interpreter as the console script does, with a loopback server on a thread of the same
process, which looks at the interpreter when the first chat request arrives.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import debategraph
from debategraph.models import resolve
from debategraph.models.resolve import ModelConfigError, Models
from debategraph.models.roster import Agent
from debategraph.state.context import DebateContext

ROOT = Path(__file__).resolve().parent.parent  # the checkout (debategraph may be installed)
PROBE = """
import gc, json, sys
from tests.openai_server import serve

seen = {}

def reply(body):
    if not seen:
        seen.update(
            modules=sorted(sys.modules), collector=gc.isenabled(), frozen=gc.get_freeze_count()
        )
    return "3+4*5 = 23, 23+6 = 29, 7*2 = 14, 29-14 = 15. The answer is 15."

with serve(responder=reply) as server:
    sys.argv = ["debategraph", "eval", "--method", "du", "--dataset", "arithmetic", "--limit",
                "1", "--model", "probe-model", "--base-url", server.base_url, "--out", sys.argv[1]]
    from debategraph.entry import main
    try:
        main()
    except SystemExit as exc:
        seen["exit"] = exc.code
print(json.dumps(seen))
"""


@pytest.mark.slow
def test_an_evaluation_reaches_its_first_call_without_the_report_and_with_the_collector_on(
    tmp_path,
):
    # The checkout for tests.openai_server; debategraph as this session imports it.
    paths = [str(ROOT), str(Path(debategraph.__file__).resolve().parents[1])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    env["OPENAI_API_KEY"] = "sk-test"
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "run")],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["exit"] == 0, out.stderr
    modules = set(seen["modules"])
    assert "langchain_openai" in modules  # the call did go through the OpenAI client
    assert not modules & {"debategraph.eval.report.writer", "numpy", "matplotlib"}
    assert seen["collector"] is True  # the start-up switched it off; the command turned it on
    assert seen["frozen"] > 0  # with the libraries frozen out of it


def _models(ctx: DebateContext) -> Models:
    return Models([Agent("a1"), Agent("a2")], ctx)


@pytest.fixture
def fresh_caches(monkeypatch):
    monkeypatch.setattr(resolve, "_CHECKED", {})
    monkeypatch.setattr(resolve, "_NO_LOOP", {})
    made: list[object] = []
    real = resolve._new_provider

    def counting(*args):
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(resolve, "_new_provider", counting)
    return made


def test_the_checked_model_is_adopted_by_the_first_loop_only(fresh_caches):
    ctx = DebateContext(models=["served-model"], base_url="http://127.0.0.1:9/v1")
    models = _models(ctx)
    models.check(["a1", "a2"])
    assert len(fresh_caches) == 1  # one spec, one model, however many speakers

    async def resolved() -> object:
        return models.model("a1")

    first = asyncio.run(resolved())
    assert first is fresh_caches[0]  # no second client and TLS context for the run
    second = asyncio.run(resolved())
    assert second is not first and len(fresh_caches) == 2  # a later loop gets its own
    assert models.model("a1") is not first  # so does a caller outside any loop


def test_the_check_still_refuses_an_unknown_provider_before_any_call(fresh_caches):
    models = _models(DebateContext(models=["nosuchprovider:model-x"]))
    with pytest.raises(ModelConfigError, match="provider"):
        models.check(["a1"])
    assert fresh_caches == []
