"""Compiled, checkpointer-free graphs for ``langgraph.json`` (LangGraph Studio / ``langgraph dev``).

There is one graph per registered method, built for the method's default roster (``a1`` ..
``aN``) and named after the method: ``studio.du``, ``studio.freemad_n`` (dashes become
underscores), or ``studio.graph("freemad-n")``. They are module attributes built at import,
because the server reads them from the module's namespace. A run whose context asks for
another number of agents is refused with a message saying how to build a graph for it.
Library users should call ``build_debate_graph`` and compile it themselves; these exist so
that the server, which brings its own persistence, can load every method.

The server drops context keys that its context schema does not list before a run starts, so
a misspelt setting (``{"round": 0}``) would be ignored in silence. These graphs' schemas
claim every key (:class:`_EveryKey`), so that the run's context reaches
:class:`~debategraph.state.context.DebateContext`, which refuses it by name with the setting
it was likely meant as. A graph drops input keys its input schema lacks in the same way, so
these graphs refuse a misspelt input key (``{"questions": ...}``) by name before the run.

The repository's ``langgraph.json`` is :func:`studio_config` of the built-in methods
(``python -m debategraph.graphs.studio`` prints it; a test keeps the two equal). A plugin
exports its methods from a two-line module of its own package and writes its own
``langgraph.json`` with :func:`studio_config` (see its docstring).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from debategraph.graphs.debate import build_debate_graph
from debategraph.methods.registry import get_method, method_names, method_plugins
from debategraph.nodes.start import check_input_keys

STUDIO_FILE = "./src/debategraph/graphs/studio.py"
"""Where ``langgraph.json`` finds this module, relative to the repository root."""

PYTHON_VERSION = "3.11"
"""The Python version ``langgraph.json`` pins (the project's floor)."""

_BUILT: dict[str, CompiledStateGraph[Any, Any, Any, Any]] = {}


def attribute(name: str) -> str:
    """The module attribute of a method's graph: its name with dashes as underscores."""
    return name.replace("-", "_")


class _EveryKey(dict[str, Any]):
    """The context schema's properties, claiming every key for the server's filter."""

    def __contains__(self, key: object) -> bool:
        return True


class StudioGraph(CompiledStateGraph[Any, Any, Any, Any]):
    """A compiled debate graph that refuses misspelt keys instead of dropping them.

    Its context schema lists the same properties (Studio's form is unchanged); only the
    server's membership test, which would drop an unknown key, finds every key in it. An
    input with a key the input schema lacks (``{"questions": ...}``) is refused by name
    before the run starts (``invoke`` and ``ainvoke`` go through ``stream`` and ``astream``).
    """

    def stream(self, input: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        """``CompiledStateGraph.stream``, after refusing unknown input keys."""
        if isinstance(input, Mapping):
            check_input_keys(input)
        yield from super().stream(input, *args, **kwargs)

    async def astream(self, input: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """``CompiledStateGraph.astream``, after refusing unknown input keys."""
        if isinstance(input, Mapping):
            check_input_keys(input)
        async for part in super().astream(input, *args, **kwargs):
            yield part

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The context's JSON schema, its properties claiming every key."""
        schema = super().get_context_jsonschema()
        if schema and isinstance(schema.get("properties"), dict):
            schema = {**schema, "properties": _EveryKey(schema["properties"])}
        return schema


def graph(name: str) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled Studio graph of a registered method (built once, on first use).

    Raises:
        PluginError: An unknown method.
    """
    method = get_method(name)
    built = _BUILT.get(method.name)
    if built is None:
        built = build_debate_graph(method).compile(name=method.name)
        built.__class__ = StudioGraph  # the same graph; only its schema's filter differs
        _BUILT[method.name] = built
    return built


for _name in method_names():
    globals()[attribute(_name)] = graph(_name)


def studio_config(
    methods: Sequence[str] | None = None,
    *,
    path: str = STUDIO_FILE,
    dependencies: Sequence[str] = (".",),
    builtin_only: bool = True,
) -> dict[str, Any]:
    """The ``langgraph.json`` content that exports a Studio graph per method.

    A plugin exports its own methods from a module of its own package, two lines long::

        from debategraph.graphs.studio import graph
        review = graph("review")

    and writes its ``langgraph.json`` with ``studio_config(["review"],
    path="./src/debate_review/studio.py")``.

    Args:
        methods: The methods to export, by name (each attribute of ``path`` is the name with
            dashes as underscores). Default: every registered method, the built-ins only
            unless ``builtin_only`` is off.
        path: The module holding the graphs, as ``langgraph.json`` finds it (relative to
            the file). Default: this module in debategraph's repository.
        dependencies: The packages ``langgraph dev`` installs (``"."``: the project itself).
        builtin_only: Without ``methods``: only debategraph's own methods (the repository's
            file); ``False`` adds every installed plugin's.

    Returns:
        The configuration, ready for ``json.dump``.

    Raises:
        PluginError: An unknown method in ``methods``.
    """
    if methods is not None:
        chosen = [get_method(name) for name in methods]
    else:
        plugins, _ = method_plugins()
        chosen = [p.value for p in plugins if p.builtin or not builtin_only]
    graphs = {
        m.name: {"path": f"{path}:{attribute(m.name)}", "description": m.description}
        for m in chosen
    }
    return {
        "$schema": "https://langgra.ph/schema.json",
        "dependencies": list(dependencies),
        "python_version": PYTHON_VERSION,
        "graphs": graphs,
    }


if __name__ == "__main__":
    print(json.dumps(studio_config(), indent=2, ensure_ascii=False))
