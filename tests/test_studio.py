import importlib
import json
from pathlib import Path

from langgraph.graph.state import CompiledStateGraph

from debategraph import METHODS

ROOT = Path(__file__).parents[1]


def exported():
    config = json.loads((ROOT / "langgraph.json").read_text())
    graphs = {}
    for name, target in config["graphs"].items():
        path, attr = target.split(":")
        module = ".".join(Path(path).with_suffix("").parts[1:])
        graphs[name] = getattr(importlib.import_module(module), attr)
    return graphs


def test_every_method_is_exported_compiled_without_checkpointer():
    graphs = exported()
    assert set(graphs) == set(METHODS)
    for name, graph in graphs.items():
        assert isinstance(graph, CompiledStateGraph)
        assert graph.checkpointer is None
        assert graph.name == name


def test_exported_graph_takes_context_as_studio_sends_it():
    graph = exported()["du"]
    out = graph.invoke(
        {"question": "What is the result of 3+4*5+6-7*2?"},
        context={"agents": 2, "rounds": 1, "seed": 3},
    )
    assert out["round"] == 1
    assert len(out["turns"]) == 4
    assert out["decision"]["answer"] is not None
