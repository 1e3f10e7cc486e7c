import importlib
import json
from pathlib import Path

import pytest
from langgraph.graph.state import CompiledStateGraph

from debategraph import DebateConfigError
from debategraph.errors import ConfigurationError
from debategraph.graphs.studio import studio_config
from debategraph.methods.registry import get_method, method_plugins, unregister_method

ROOT = Path(__file__).parents[1]


def exported():
    config = json.loads((ROOT / "langgraph.json").read_text())
    graphs = {}
    for name, target in config["graphs"].items():
        path, attr = target["path"].split(":")
        module = ".".join(Path(path).with_suffix("").parts[1:])
        graphs[name] = getattr(importlib.import_module(module), attr)
    return graphs


def builtin_names():
    return {p.name for p in method_plugins()[0] if p.builtin}


def test_langgraph_json_is_generated_from_the_registry():
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config == studio_config()  # regenerate: python -m debategraph.graphs.studio
    assert config["python_version"] == "3.11"
    for name, entry in config["graphs"].items():
        assert entry["description"].strip(), name


def test_every_method_is_exported_compiled_without_checkpointer():
    graphs = exported()
    assert set(graphs) == builtin_names()
    for name, graph in graphs.items():
        assert isinstance(graph, CompiledStateGraph)
        assert graph.checkpointer is None
        assert graph.name == name


def test_exported_graph_takes_context_as_studio_sends_it():
    graph = exported()["du"]
    out = graph.invoke(
        {"question": "What is the result of 3+4*5+6-7*2?"},
        context={"agents": 3, "rounds": 1, "seed": 3, "method_options": {}},
    )
    assert out["round"] == 1
    assert len(out["turns"]) == 6
    assert out["decision"]["answer"] is not None


def test_exported_graph_refuses_another_roster_and_names_the_fix():
    graph = exported()["du"]
    with pytest.raises(DebateConfigError) as info:
        graph.invoke({"question": "What is 2+2?"}, context={"agents": 5})
    assert "build_debate_graph(method, agents=5)" in str(info.value)


def test_a_down_model_server_is_one_message_studio_shows():
    # Studio's server shows a run's error message only for some exception types (others
    # read "An internal error occurred"); ours is one of them, naming the URL and the fix.
    import pytest

    serde = pytest.importorskip("langgraph_api.serde")
    from debategraph.nodes.unreachable import unreachable

    class APIConnectionError(Exception):
        pass

    model = type("Model", (), {"openai_api_base": "http://user:secret@127.0.0.1:9/v1"})()
    error = unreachable(APIConnectionError("Connection error."), model)
    assert error is not None
    shown = serde.default(error)
    assert shown["message"].startswith("could not reach the model server at http://")
    assert "secret" not in shown["message"] and "--base-url" in shown["message"]
    timeout = type("APITimeoutError", (APIConnectionError,), {})("timed out")
    assert unreachable(timeout, model) is None  # a slow server is not a down one


@pytest.mark.parametrize(
    ("method", "plan"),
    [("cortex", "mdm"), ("svr", "svr"), ("madm2-s", "mask"), ("madm2-o", "mask"),
     ("groupdebate", "groups"), ("s2mad", "filter"), ("sid-et", "early_exit")],
)  # fmt: skip
def test_a_methods_plan_node_is_drawn_with_its_name(method, plan):
    from debategraph.graphs.studio import graph

    assert f"round:{plan}" in graph(method).get_graph(xray=True).nodes


def test_a_plugin_exports_its_graph_from_its_own_module():
    try:
        from debate_review import studio

        assert isinstance(studio.review, CompiledStateGraph)
        assert studio.review.name == "review"
        config = studio_config(["review"], path="./debate_review/studio.py")
        assert config["graphs"] == {
            "review": {
                "path": "./debate_review/studio.py:review",
                "description": get_method("review").description,
            }
        }
        assert config["dependencies"] == ["."]
        with pytest.raises(ConfigurationError, match="unknown method 'nope'"):
            studio_config(["nope"])
    finally:
        unregister_method("review")  # its rule is not registered: leave no half plugin behind
