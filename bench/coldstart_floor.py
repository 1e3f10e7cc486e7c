"""The cold-start floor: the least a LangGraph program doing one 3-agent debate's calls needs.

It imports LangGraph and LangChain's chat-model base, defines a model that replies at once
with a fixed solution, and runs the graph shape of ``debategraph run`` (``du``, 3 agents,
initial round + 2 debate rounds): a plan node, a ``Send`` to each of 3 agent nodes that call
the model, a deferred collect node, looped 3 times; then it prints the replies. No prompt
rendering, answer parsing or transcript: what is left is the interpreter, the imports and
LangGraph's own work. ``bench/coldstart.py`` times ``debategraph`` against it.
"""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

REPLY = "Adding the numbers step by step gives 15.\nThe final answer is \\boxed{15}."
AGENTS = ["a1", "a2", "a3"]
ROUNDS = 2


class Fixed(BaseChatModel):
    @property
    def _llm_type(self) -> str:
        return "fixed"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        usage = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
        message = AIMessage(content=REPLY, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])


class State(TypedDict):
    round: int
    replies: Annotated[list[str], operator.add]


def main() -> None:
    model = Fixed()

    def plan(state: State) -> dict[str, Any]:
        return {"round": state.get("round", -1) + 1}

    def fan_out(state: State) -> list[Send]:
        return [Send(name, {"agent": name}) for name in AGENTS]

    async def agent(payload: dict[str, str]) -> dict[str, Any]:
        prompt = f"What is the result of 3+4*5+6-7*2? ({payload['agent']})"
        reply = await model.ainvoke([HumanMessage(prompt)])
        return {"replies": [reply.text]}

    def loop(state: State) -> str:
        return "plan" if state["round"] < ROUNDS else END

    graph = StateGraph(State)
    graph.add_node("plan", plan)
    for name in AGENTS:
        graph.add_node(name, agent)
        graph.add_edge(name, "collect")
    graph.add_node("collect", lambda state: {}, defer=True)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", fan_out, AGENTS)
    graph.add_conditional_edges("collect", loop, ["plan", END])
    final = asyncio.run(graph.compile().ainvoke({"replies": []}))
    for i, reply in enumerate(final["replies"]):
        print(i, reply.splitlines()[-1])


if __name__ == "__main__":
    main()
