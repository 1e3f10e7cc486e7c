"""LangGraph Studio's server (`langgraph dev`) loads every method and runs it, as Studio does.

Starts ``langgraph dev`` on a free loopback port and talks to it with the ``langgraph-sdk``
client: the schemas Studio needs for its forms, a run of every method with a context sent as
JSON, the agent nodes in a streamed run, and the refusal of another roster.
"""

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
ARITH = "What is the result of 3+4*5+6-7*2?"
GSM8K = (
    "Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes "
    "muffins for her friends every day with four. She sells the remainder at the farmers' "
    "market daily for $2 per fresh duck egg. How much in dollars does she make every day at "
    "the farmers' market?"
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("langgraph") is None
        and not Path(sys.executable).with_name("langgraph").exists(),
        reason="langgraph-cli[inmem] is not installed (pip install '.[dev]')",
    ),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("langgraph-dev") / "server.log"  # outside the app folder
    executable = shutil.which("langgraph") or str(Path(sys.executable).with_name("langgraph"))
    env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1"}
    with log.open("w") as out:
        process = subprocess.Popen(
            [executable, "dev", "--no-browser", "--no-reload", "--port", str(port)],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"langgraph dev exited:\n{log.read_text()[-3000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.3)
        else:
            pytest.fail(f"langgraph dev did not start:\n{log.read_text()[-3000:]}")
        yield url, log
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def call(coroutine_fn, *args):
    return asyncio.run(coroutine_fn(*args))


async def schemas_and_runs(url):
    from langgraph_sdk import get_client

    from debategraph.methods.registry import get_method

    client = get_client(url=url)
    assistants = await client.assistants.search(limit=100)
    by_graph = {a["graph_id"]: a["assistant_id"] for a in assistants}
    schemas = {g: await client.assistants.get_schemas(a) for g, a in by_graph.items()}
    results = {}
    for graph_id, assistant in by_graph.items():
        method = get_method(graph_id)  # cot, sc and mav refuse rounds; the rest take one
        rounds = {"rounds": 1} if method.debates or method.default_rounds > 0 else {}
        results[graph_id] = await client.runs.wait(
            None,
            assistant,
            input={"question": ARITH},
            context={**rounds, "seed": 1, "temperature": 0.2},
        )
    return by_graph, schemas, results


def test_every_method_has_real_schemas_and_runs_with_a_json_context(loopback, server):
    from debategraph.methods.registry import method_plugins

    url, log = server
    by_graph, schemas, results = call(schemas_and_runs, url)
    assert set(by_graph) == {p.name for p in method_plugins()[0] if p.builtin}
    for graph_id, schema in schemas.items():
        for key in ("input_schema", "output_schema", "state_schema", "context_schema"):
            assert schema[key], (graph_id, key)
        context = schema["context_schema"]["properties"]
        assert "rounds" in context and context["rounds"]["description"]
        assert "question" in schema["input_schema"]["properties"]
    for graph_id, result in results.items():
        assert "__error__" not in result, (graph_id, result, log.read_text()[-2000:])
        assert result["decision"]["answer"] is not None, graph_id
        assert result["round"] <= 1


async def streamed_updates(url):
    from langgraph_sdk import get_client

    client = get_client(url=url)
    nodes = []
    async for part in client.runs.stream(
        None,
        "du",
        input={"question": ARITH},
        context={"rounds": 1},
        stream_mode="updates",
        stream_subgraphs=True,
    ):
        if part.event.startswith("updates") and isinstance(part.data, dict):
            nodes += list(part.data)
    refused = await client.runs.wait(
        None, "du", input={"question": ARITH}, context={"agents": 5}, raise_error=False
    )
    gsm8k = await client.runs.wait(None, "mav", input={"question": GSM8K}, context={"seed": 2})
    misspelt = await client.runs.wait(
        None, "du", input={"question": ARITH}, context={"round": 0}, raise_error=False
    )
    misspelt_input = await client.runs.wait(
        None, "du", input={"questions": ARITH}, raise_error=False
    )
    debating_vote = await client.runs.wait(
        None, "sc", input={"question": ARITH}, context={"rounds": 1}, raise_error=False
    )
    return nodes, refused, gsm8k, misspelt, misspelt_input, debating_vote


def test_streamed_updates_show_the_agent_nodes_and_another_roster_is_refused(loopback, server):
    url, _ = server
    nodes, refused, gsm8k, misspelt, misspelt_input, debating_vote = call(streamed_updates, url)
    assert {"start", "plan", "a1", "a2", "a3", "observe", "decide"} <= set(nodes)
    assert "build_debate_graph(method, agents=5)" in str(refused)
    # A misspelt context key reaches the graph, which refuses it by name (not run silently).
    assert "unknown context key(s) 'round' (did you mean 'rounds'?)" in str(misspelt), misspelt
    # So is a misspelt input key, which the server would otherwise drop.
    assert "'questions' (did you mean 'question'?)" in str(misspelt_input), misspelt_input
    # Rounds for a method that never debates are refused here as by run() and the CLI.
    assert "sc does not debate" in str(debating_vote), debating_vote
    # The simulated debaters read their bundled data without blocking the server's loop.
    assert gsm8k["decision"]["answer"] is not None, gsm8k
