"""Traces say who spoke: model-call and evaluation-item runs carry names, tags and metadata.

Captured offline with a LangChain callback handler, the way LangSmith's tracer sees them.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, UsageMetadataCallbackHandler
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.context import register_configure_hook

import debategraph as dg
from debategraph import Agent, DebateContext
from debategraph.api import compiled_graph
from debategraph.eval.datasets import Item
from debategraph.eval.run.runner import Arm, evaluate
from debategraph.nodes.cache import call_cache_key
from debategraph.tracing import call_run_config, item_run_config

from .helpers import Recording

ARITH = "What is the result of 3+4*5+6-7*2?"
OURS = ("debategraph_method", "agent", "round", "call_id", "call_kind")


class Recorder(BaseCallbackHandler):
    """Keeps the name, tags and metadata of every chat-model run and every root chain run."""

    def __init__(self) -> None:
        self.models: list[dict[str, Any]] = []
        self.roots: list[dict[str, Any]] = []

    def on_chat_model_start(self, serialized, messages, *, run_id, parent_run_id=None,
                            tags=None, metadata=None, name=None, **kwargs) -> None:  # fmt: skip
        self.models.append({"name": name, "tags": tags or [], "metadata": metadata or {}})

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, tags=None,
                       metadata=None, name=None, **kwargs) -> None:  # fmt: skip
        if parent_run_id is None:
            self.roots.append({"name": name, "tags": tags or [], "metadata": metadata or {}})


def ours(metadata: dict[str, Any]) -> dict[str, Any]:
    return {k: metadata[k] for k in OURS}


def test_every_model_call_of_a_run_names_its_method_agent_round_and_call():
    recorder, usage = Recorder(), UsageMetadataCallbackHandler()
    result = dg.run(ARITH, method="du", agents=2, rounds=1, config={"callbacks": [recorder, usage]})
    names = sorted(run["name"] for run in recorder.models)
    assert names == ["du · a1 · r0", "du · a1 · r1", "du · a2 · r0", "du · a2 · r1"]
    run = next(r for r in recorder.models if r["name"] == "du · a2 · r1")
    assert {"debategraph", "method:du", "agent:a2", "round:1", "kind:answer"} <= set(run["tags"])
    assert ours(run["metadata"]) == {
        "debategraph_method": "du", "agent": "a2", "round": 1, "call_id": "r1:a2",
        "call_kind": "answer",
    }  # fmt: skip
    # Merged into the graph's config, not replacing it: LangGraph's own metadata stays, and
    # every usage meter still sees every call.
    assert run["metadata"]["langgraph_node"] == "a2"
    assert [r["name"] for r in recorder.roots] == ["du"]
    counted = sum(u["input_tokens"] for u in usage.usage_metadata.values())
    assert counted == sum(t["input_tokens"] for t in result.turns) > 0
    assert not any(t["usage_estimated"] for t in result.turns)


def test_a_role_with_several_calls_a_round_names_each_by_its_id():
    recorder = Recorder()
    dg.run(ARITH, method="du-sum", agents=2, rounds=1, config={"callbacks": [recorder]})
    summary = [r for r in recorder.models if r["metadata"]["call_kind"] == "summary"]
    # One private summary per reader: named by call id, so each has its own name.
    assert sorted(r["name"] for r in summary) == [
        "du-sum · summarizer · r1:summary:a1", "du-sum · summarizer · r1:summary:a2",
    ]  # fmt: skip
    assert {"agent:summarizer", "kind:summary", "method:du-sum"} <= set(summary[0]["tags"])
    assert {r["metadata"]["call_id"] for r in summary} == {"r1:summary:a1", "r1:summary:a2"}
    assert all(r["metadata"]["round"] == 1 for r in summary)


def test_the_synchronous_path_and_agent_runnables_are_traced_too():
    recorder = Recorder()
    model = Recording(seen=[])
    agent = RunnableLambda(lambda messages: model.invoke(messages), name="wrapped")
    graph = compiled_graph("du", [Agent("a1", agent), Agent("a2", model)])
    graph.invoke({"question": ARITH}, {"callbacks": [recorder]}, context=DebateContext(rounds=0))
    # The agent's own run and the chat model inside it both carry the call's metadata.
    by_agent = {(r["name"], r["metadata"]["agent"]) for r in recorder.models}
    assert by_agent == {("du · a2 · r0", "a2"), (None, "a1")}
    inner = next(r for r in recorder.models if r["metadata"]["agent"] == "a1")
    assert inner["metadata"]["call_id"] == "r0:a1" and "agent:a1" in inner["tags"]


def test_tracing_leaves_the_call_cache_key_alone():
    call = {"id": "r1:a2", "kind": "answer", "speaker": "a2", "round": 1, "reads": [],
            "template": "debate", "vars": {}, "history": False}  # fmt: skip
    task = {"call": call, "question": "q", "task": "number", "choices": None, "reads": [],
            "history": [], "model_kwargs": {}, "seed": 0, "identity": {"method": "du"}}  # fmt: skip
    before = call_cache_key(task)
    assert call_run_config("du", call)["run_name"] == "du · a2 · r1"
    assert call_cache_key(task) == before  # building the trace touches no part of the payload
    assert set(call_run_config("du", call)) == {"run_name", "tags", "metadata"}


_HOOKED: ContextVar[Recorder | None] = ContextVar("debategraph_test_recorder", default=None)
register_configure_hook(_HOOKED, inheritable=True)  # how LangSmith's tracer joins every run


def test_every_eval_item_run_names_its_arm_item_and_dataset(tmp_path):
    items = [
        Item(id="q-1", question=ARITH, reference="15", task="number"),
        Item(id="q-2", question="What is the result of 1+2*3+4-5*1?", reference="6",
             task="number"),
    ]  # fmt: skip
    arms = [Arm("du", "du", {"agents": 2, "rounds": 1}), Arm("sc", "sc", {"agents": 3})]
    recorder = Recorder()
    token = _HOOKED.set(recorder)
    try:
        outcome = evaluate(items, arms, tmp_path, dataset="mini", concurrency=2)
    finally:
        _HOOKED.reset(token)
    assert outcome.failed == 0
    roots = {r["name"]: r for r in recorder.roots}
    assert sorted(roots) == ["du · q-1", "du · q-2", "sc · q-1", "sc · q-2"]
    root = roots["sc · q-2"]
    assert {"debategraph", "arm:sc", "item:q-2", "dataset:mini"} <= set(root["tags"])
    assert {k: root["metadata"][k] for k in ("debategraph_arm", "item_id", "dataset")} == {
        "debategraph_arm": "sc", "item_id": "q-2", "dataset": "mini",
    }  # fmt: skip
    assert item_run_config("sc", "q-2", "mini")["run_name"] == "sc · q-2"
    # Every model call inherits its item's tags and metadata beside its own.
    assert len(recorder.models) == 2 * (4 + 3)
    calls = [r for r in recorder.models if r["metadata"]["item_id"] == "q-1"]
    assert sorted(r["name"] for r in calls) == [
        "du · a1 · r0", "du · a1 · r1", "du · a2 · r0", "du · a2 · r1",
        "sc · a1 · r0", "sc · a2 · r0", "sc · a3 · r0",
    ]  # fmt: skip
    assert all("item:q-1" in r["tags"] and "dataset:mini" in r["tags"] for r in calls)
