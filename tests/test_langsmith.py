"""Any method as a LangSmith experiment, offline: the target, the evaluator, ``aevaluate``.

``aevaluate`` runs with ``upload_results=False`` against a loopback sink that accepts whatever
the LangSmith client posts. The test reads only public interfaces (the results ``aevaluate``
returns and LangChain's ``collect_runs``), never the client's wire format, which changes
between LangSmith releases.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from langchain_core.tracers.context import collect_runs
from langchain_core.tracers.schemas import Run
from langsmith import Client, aevaluate
from langsmith.schemas import Example

from debategraph import DebateConfigError
from debategraph.eval.datasets import Item
from debategraph.integrations.langsmith import correct, debate_target, examples

ITEMS = [
    Item(id="arith-1", question="What is the result of 3+4*5+6-7*2?", reference="15"),
    Item(id="pick-1", question="Which planet is largest?", reference="B", task="choice",
         choices=("Mars", "Jupiter", "Venus")),
]  # fmt: skip


def test_the_target_records_the_experiment_and_answers_each_example():
    target = debate_target("du", agents=2, rounds=1, seed=3)
    assert target.metadata["debategraph_method"] == "du"
    assert target.metadata["agents"] == ["a1", "a2"]
    assert target.metadata["seed"] == 3 and target.metadata["rounds"] == 1
    assert target.metadata["models"] == ["simulated:6b_finetuning", "simulated:6b_verification"]
    json.dumps(target.metadata)  # LangSmith stores it as JSON
    out = asyncio.run(target(examples(ITEMS)[0]["inputs"]))
    assert out["answer"] == "15" and out["abstained"] is False and out["task"] == "number"
    assert out["rounds"] == 1 and out["usage"]["calls"] == 4
    assert out["decision"]["rule"] == "majority"


def test_correct_grades_like_eval_and_an_abstention_is_wrong():
    inputs = {"question": "q", "task": "number"}
    assert correct(inputs, {"answer": "15"}, {"reference": "$15.00"})["score"] == 1
    assert correct(inputs, {"answer": "14"}, {"answer": 15})["score"] == 0
    abstained = correct(inputs, {"answer": None, "abstained": True}, {"reference": "15"})
    assert abstained == {"key": "correct", "score": 0, "comment": "no answer (abstention)"}
    choice = {"question": "q", "task": "choice", "choices": ["x", "y", "z"]}
    assert correct(choice, {"answer": "B"}, {"reference": "(b)"})["score"] == 1
    with pytest.raises(ValueError, match="no 'reference'"):
        correct(inputs, {"answer": "15"}, {"label": "15"})
    with pytest.raises(ValueError, match=r"within the given choices|choices"):
        correct(choice, {"answer": "B"}, {"reference": "E"})


def test_bad_settings_fail_when_the_target_is_made():
    with pytest.raises(DebateConfigError, match="did you mean 'rounds'"):
        debate_target("du", roundz=2)
    with pytest.raises(DebateConfigError, match=r"question.*each question"):
        debate_target("du", question="What is 2+2?")
    with pytest.raises(ValueError, match="need a 'question'"):
        asyncio.run(debate_target("cot")({"prompt": "What is 2+2?"}))


class Sink(BaseHTTPRequestHandler):
    """Accepts every request with ``{}`` (a stand-in LangSmith API)."""

    def do_request(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        if size:
            self.rfile.read(size)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PATCH = do_PUT = do_request

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.filterwarnings("ignore::langsmith._internal._beta_decorator.LangSmithBetaWarning")
@pytest.mark.filterwarnings("ignore:.*upload_results.*")
def test_aevaluate_runs_a_debate_experiment_offline(loopback):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)  # takes the client's trace uploads
    threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()  # stops fast
    client = Client(api_key="offline", api_url=f"http://127.0.0.1:{server.server_port}")
    dataset = uuid.uuid4()
    data = [Example(id=uuid.uuid4(), dataset_id=dataset, **e) for e in examples(ITEMS)]
    target = debate_target("du", agents=2, rounds=1, seed=3)

    async def experiment() -> tuple[list[Any], list[Run]]:
        with collect_runs() as collected:  # LangChain's own record of every model call
            results = await aevaluate(
                target, data=data, evaluators=[correct], metadata=target.metadata,
                experiment_prefix="du", upload_results=False, client=client,
            )  # fmt: skip
            rows = [row async for row in results]
        return rows, collected.traced_runs

    try:
        rows, traced = asyncio.run(experiment())
        client.flush()
    finally:
        server.shutdown()
    by_item = {row["example"].inputs["item_id"]: row for row in rows}
    assert sorted(by_item) == ["arith-1", "pick-1"]
    assert by_item["arith-1"]["run"].outputs["answer"] == "15"
    assert by_item["arith-1"]["evaluation_results"]["results"][0].score == 1
    # The simulated debaters know no planets: a letter or an abstention, graded either way.
    picked = by_item["pick-1"]["run"].outputs["answer"]
    assert picked in ("A", "B", "C", None)
    assert by_item["pick-1"]["evaluation_results"]["results"][0].score == int(picked == "B")
    for row in rows:  # the target's run carries the experiment's metadata
        metadata = row["run"].extra["metadata"]
        assert metadata["seed"] == 3 and metadata["debategraph_method"] == "du"
        assert row["run"].outputs["usage"]["calls"] == 4
    calls = [run for run in traced if run.run_type == "llm"]
    assert len(calls) == 8
    assert {"du · a1 · r0", "du · a2 · r1"} <= {run.name for run in calls}
    meta = next(run for run in calls if run.name == "du · a2 · r1").extra["metadata"]
    assert meta["call_id"] == "r1:a2" and meta["debategraph_method"] == "du"
