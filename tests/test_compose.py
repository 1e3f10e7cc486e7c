"""A debate inside a larger app: as a node, as a tool, with checkpoints and interrupts."""

import asyncio
import operator
from dataclasses import dataclass
from typing import Annotated

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typing_extensions import TypedDict

import debategraph as dg
from debategraph import Agent, debate_node, debate_tool

from .helpers import Recording

ARITH = "What is the result of 3+4*5+6-7*2?"


class AppState(TypedDict, total=False):
    question: str
    debate: dict
    notes: Annotated[list[str], operator.add]
    turns: str  # a key the debate also uses: it must not be touched
    approved: bool


@dataclass
class AppContext:
    user: str = "ada"


def app(node, checkpointer=None, with_review=False):
    graph = StateGraph(AppState, context_schema=AppContext)
    graph.add_node("debate", node)
    graph.add_node("note", lambda s: {"notes": [f"answer {s['debate']['answer']}"]})
    graph.add_edge(START, "debate")
    graph.add_edge("debate", "note")
    if with_review:
        graph.add_node(
            "review", lambda s: {"approved": interrupt({"answer": s["debate"]["answer"]})}
        )
        graph.add_edge("note", "review")
        graph.add_edge("review", END)
    else:
        graph.add_edge("note", END)
    return graph.compile(checkpointer=checkpointer)


def test_debate_node_in_an_app_with_its_own_context_and_keys():
    node = debate_node("du", agents=3, context={"rounds": 1, "seed": 2})
    out = app(node).invoke({"question": ARITH, "turns": "mine"}, context=AppContext())
    assert out["debate"]["answer"] == "15" and out["debate"]["rounds"] == 1
    assert out["debate"]["usage"]["calls"] == 6 and out["debate"]["ncomm"] == 6
    assert out["turns"] == "mine" and out["notes"] == ["answer 15"]
    assert set(out["debate"]) == {"method", "answer", "decision", "usage", "ncomm", "rounds"}
    # Without a parent context, and asynchronously.
    again = asyncio.run(app(node).ainvoke({"question": ARITH}))
    assert again["debate"] == out["debate"]


def test_debate_node_across_an_interrupt_and_resume_with_a_checkpointer():
    model = Recording(seen=[], reply="The answer is \\boxed{15}.")
    node = debate_node("mav", agents=[Agent("a1", model), Agent("a2", model)])
    graph = app(node, checkpointer=InMemorySaver(), with_review=True)
    config = {"configurable": {"thread_id": "review"}}
    paused = graph.invoke({"question": ARITH}, config, context=AppContext())
    assert paused["__interrupt__"][0].value == {"answer": "15"}
    assert len(model.seen) == 2
    done = graph.invoke(Command(resume=True), config)
    assert done["approved"] is True and done["debate"]["answer"] == "15"
    assert len(model.seen) == 2  # resuming did not debate again


def test_debate_node_reports_a_missing_question_clearly():
    graph = app(debate_node("mav", agents=2))
    with pytest.raises(dg.DebateConfigError, match=r"state\['question'\]"):
        graph.invoke({"notes": []})
    with pytest.raises(dg.DebateConfigError, match="rounds"):
        debate_node("du", context={"rounds": -1})


def test_debate_tool_and_the_compiled_graph_as_a_tool():
    tool = debate_tool("du", agents=2, context={"rounds": 1})
    assert tool.name == "debate" and "question" in tool.args
    assert tool.invoke({"question": ARITH})["answer"] == "15"
    assert asyncio.run(tool.ainvoke({"question": ARITH}))["answer"] == "15"
    # The compiled graph as a tool asks for the question alone; the rest is optional.
    graph = dg.build_debate_graph("mav", agents=2).compile()
    as_tool = graph.as_tool(name="vote", description="Vote on a question")
    schema = as_tool.args_schema.model_json_schema()
    assert schema["required"] == ["question"]
    assert set(schema["properties"]) == {"question", "task", "choices", "reference", "item_id"}
    assert as_tool.invoke({"question": ARITH})["decision"]["answer"] == "15"
    assert graph.get_input_jsonschema()["required"] == ["question"]
