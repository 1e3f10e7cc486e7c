"""Engine v2: agents as nodes, a typed call plan in phases, public method hooks."""

import asyncio
import dataclasses
import pathlib
from dataclasses import dataclass

import pytest
from langchain_core.tools import tool
from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import CachePolicy

import debategraph as dg
from debategraph import Agent, DebateContext, Method, MethodOptions, Phase, build_debate_graph
from debategraph.api import compiled_graph, recursion_limit
from debategraph.methods import call, decide_by_rule, initial_calls
from debategraph.nodes.plan import PlanError
from debategraph.policies.types import Decision
from debategraph.prompts import du
from debategraph.state.debate import DuplicateTurnError, add_turns

from .helpers import Recording, Scripted, ToolCaller

ARITH = "What is the result of 3+4*5+6-7*2?"
SRC = pathlib.Path(__file__).parents[1] / "src" / "debategraph"


def summarize_prompt(p):
    return "Summarize these opinions." + "".join(f"\n```\n{t['text']}\n```" for t in p.peers)


PROMPTS = {**du.PROMPTS, "summary": summarize_prompt}


def plan_summarised(view):
    """Round 0: everyone answers. Later rounds: one summary per agent (phase 0) of its
    peers' latest answers, then each agent answers reading its summary (phase 1)."""
    if view.round == 0:
        return initial_calls(view) if view.phase == 0 else None
    latest = view.latest_ids()
    if view.phase == 0:
        return [
            call(
                view,
                "summarizer",
                kind="summary",
                id=f"r{view.round}:summary:{a}",
                reads=[latest[b] for b in view.agents if b != a],
                template="summary",
                vars={"for": a},
            )
            for a in view.agents
        ]
    if view.phase == 1:
        return [
            call(view, a, reads=[f"r{view.round}:summary:{a}"], template="debate", history=True)
            for a in view.agents
        ]
    return None


SUMMARISED = Method(
    name="summarised",
    description="du with a summary of the peers per agent.",
    prompts=PROMPTS,
    plan=plan_summarised,
    roles=("summarizer",),
    max_phases=2,
    default_agents=3,
    default_rounds=2,
)


def test_a_round_of_phases_with_a_role_node():
    r = dg.run(ARITH, method=SUMMARISED, seed=1)
    kinds = [(t["id"], t["kind"]) for t in r.turns]
    assert len(r.turns) == 3 + 2 * (3 + 3)
    assert kinds[3:6] == [(f"r1:summary:a{i}", "summary") for i in (1, 2, 3)]
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r1:summary:a1"]["reads"] == ["r0:a2", "r0:a3"]
    assert by_id["r1:summary:a1"]["agent"] == "summarizer"
    assert by_id["r1:summary:a1"]["vars"] == {"for": "a1"}
    assert by_id["r2:a3"]["reads"] == ["r2:summary:a3"]
    # Summary calls are tagged, counted in every total and in NComm.
    kinds_usage = r.to_dict()["usage_by_kind"]
    assert kinds_usage["summary"]["calls"] == 6 and kinds_usage["answer"]["calls"] == 9
    assert r.usage["calls"] == 15
    assert r.ncomm == 6 * 2 + 6 * 1
    drawing = build_debate_graph(SUMMARISED).compile().get_graph(xray=True)
    assert "round:summarizer" in set(drawing.nodes)


def test_several_calls_of_one_agent_in_a_phase_are_all_recorded():
    def plan(view):
        if view.phase:
            return None
        if view.round == 0:
            return initial_calls(view)
        latest = view.latest_ids()
        return [
            call(view, "a1", kind="pairwise", id=f"r1:a1<{b}", reads=[latest[b]], template="debate")
            for b in ("a2", "a3")
        ]

    method = Method(name="pairs", description="", prompts=du.PROMPTS, plan=plan, default_rounds=1)
    r = dg.run(ARITH, method=method, agents=3)
    pairwise = [t for t in r.turns if t["kind"] == "pairwise"]
    assert [t["id"] for t in pairwise] == ["r1:a1<a2", "r1:a1<a3"]
    assert all(t["agent"] == "a1" for t in pairwise)
    assert r.ncomm == 2


def test_a_conflicting_duplicate_turn_raises_and_an_identical_one_is_skipped():
    t = {"id": "r1:a1", "round": 1, "text": "x"}
    assert add_turns([t], [dict(t)]) == [t]
    with pytest.raises(DuplicateTurnError, match="r1:a1"):
        add_turns([t], [{**t, "text": "y"}])


def test_a_planner_that_repeats_an_id_or_names_a_stranger_is_stopped():
    def twice(view):
        if view.phase:
            return None
        return [call(view, "a1", template="initial"), call(view, "a1", template="initial")]

    def stranger(view):
        return None if view.phase else [call(view, "zed", template="initial")]

    for plan, message in ((twice, "two calls of one phase"), (stranger, "neither an agent")):
        method = Method(name="bad", description="", prompts=du.PROMPTS, plan=plan)
        with pytest.raises(PlanError, match=message):
            dg.run(ARITH, method=method, agents=2, rounds=0)


def test_the_planner_is_asked_at_most_max_phases_times_a_round():
    seen = []

    def endless(view):
        seen.append((view.round, view.phase, view.made))
        return [call(view, "a1", template="initial", id=f"r{view.round}:p{view.phase}")]

    method = Method(name="endless", description="", prompts=du.PROMPTS, plan=endless)
    r = dg.run(ARITH, method=method, agents=1, rounds=1)
    assert [t["id"] for t in r.turns] == ["r0:p0", "r1:p0"]
    assert seen == [(0, 0, ()), (1, 0, ())]
    seen.clear()
    three = dataclasses.replace(method, max_phases=3)
    r = dg.run(ARITH, method=three, agents=1, rounds=0)
    assert [t["id"] for t in r.turns] == ["r0:p0", "r0:p1", "r0:p2"]
    assert seen == [(0, 0, ()), (0, 1, ("r0:p0",)), (0, 2, ("r0:p0", "r0:p1"))]


def test_a_planner_that_reissues_a_made_call_is_told_which_and_why():
    def again(view):  # no phase guard: round 1 asks for round 0's calls again
        return [call(view, "a1", template="initial", id="r0:a1")]

    method = Method(name="again", description="", prompts=du.PROMPTS, plan=again)
    with pytest.raises(PlanError) as info:
        dg.run(ARITH, method=method, agents=1, rounds=1)
    message = str(info.value)
    assert "call 'r0:a1' again" in message
    assert "already made in round 0" in message and "view.phase" in message


@dataclass(frozen=True, kw_only=True)
class VoteOptions(MethodOptions):
    target: str = "15"
    bonus: float = 1.0


def test_hooks_bind_observe_stop_and_decide_see_the_debate():
    seen = []

    async def observe(view):
        await asyncio.sleep(0)
        seen.append((view.round, view.phase))
        return {"rounds_seen": view.method_state.get("rounds_seen", 0) + 1}

    def stop(view):
        return view.round >= 1

    def decide(view):
        assert view.method_state["rounds_seen"] == 2
        return Decision(view.options.target, "custom", {"bonus": view.options.bonus})

    method = Method(
        name="hooked",
        description="",
        prompts=du.PROMPTS,
        plan=dg.get_method("du").plan,
        observe=observe,
        stop=stop,
        decide=decide,
        options=VoteOptions,
        bind=lambda view, c: {"temperature": 0.5 if c["round"] else 0.0},
        default_rounds=5,
    )
    model = Recording(seen=[])
    r = dg.run(ARITH, method=method, agents=2, models=model, options={"target": "7", "bonus": 2})
    assert seen == [(0, 0), (1, 0)] and r.rounds == 1
    assert r.answer == "7" and r.decision == {"rule": "custom", "evidence": {"bonus": 2.0}}
    assert [c["temperature"] for c in model.seen] == [0.0, 0.0, 0.5, 0.5]
    with pytest.raises(dg.DebateConfigError, match="hooked options: unknown option"):
        dg.run(ARITH, method=method, options={"targte": "7"})
    assert VoteOptions.from_pairs(["target=9", "bonus=0.5"]) == VoteOptions(target="9", bonus=0.5)


def test_context_generation_settings_reach_every_call():
    model = Recording(seen=[])
    dg.run(
        ARITH, method="du", agents=2, rounds=1, models=model, temperature=0.2, max_tokens=64,
        top_p=0.9, stop=["###"], logprobs=True,
    )  # fmt: skip
    assert len(model.seen) == 4
    for kwargs in model.seen:
        assert kwargs["temperature"] == 0.2 and kwargs["max_tokens"] == 64
        assert kwargs["top_p"] == 0.9 and kwargs["stop"] == ["###"] and kwargs["logprobs"]


def test_a_tool_using_agent_debates_and_its_inner_calls_are_counted():
    from langchain.agents import create_agent

    @tool
    def calculator(expression: str) -> str:
        """Evaluate an arithmetic expression."""
        return "15"

    tool_user = ToolCaller()
    agent = create_agent(tool_user, tools=[calculator], name="calculating-agent")
    r = dg.run(ARITH, method="du", agents=[Agent("a1", agent), "a2", "a3"], rounds=1)
    tool_turns = [t for t in r.turns if t["agent"] == "a1"]
    assert [t["answer"] for t in tool_turns] == ["15", "15"]
    # Two model calls inside the agent per turn (tool call, then the answer): 2 x (7 + 3).
    assert all(t["input_tokens"] == 14 and t["output_tokens"] == 6 for t in tool_turns)
    assert not any(t["usage_estimated"] for t in tool_turns)
    assert tool_user.calls == 4
    assert r.agents[0] == {"name": "a1", "model": "calculating-agent"}
    assert "calculator says 15" in tool_turns[0]["text"]


def test_missing_foreign_and_dict_contexts():
    graph = build_debate_graph("du", agents=2).compile()
    plain = graph.invoke({"question": ARITH})
    assert plain["round"] == 2 and len(plain["turns"]) == 6  # du's defaults

    @dataclass
    class AppContext:
        user: str = "x"

    foreign = graph.invoke({"question": ARITH}, context=AppContext())
    assert foreign["round"] == 2
    as_dict = graph.invoke({"question": ARITH}, context={"rounds": 0})
    assert as_dict["round"] == 0


def test_a_new_question_on_the_same_thread_starts_a_new_debate():
    graph = build_debate_graph("du", agents=2).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "same"}}
    ctx = DebateContext(rounds=1)
    first = graph.invoke({"question": ARITH}, config, context=ctx)
    second = graph.invoke({"question": "What is the result of 1+2*3+4-5*1?"}, config, context=ctx)
    assert first["decision"]["answer"] == "15"
    assert second["decision"]["answer"] == "6"
    assert len(second["turns"]) == 4 and "1+2*3" in second["turns"][0]["prompt"]


def test_bad_settings_fail_the_same_way_everywhere():
    graph = build_debate_graph("du", agents=2).compile()
    for bad, message in (
        ({"rounds": -1}, "rounds must be 0 or more"),
        ({"cut_off": ["a7"]}, "cut-off agents"),
        ({"models": ["simulated"] * 3}, "one per agent"),
        ({"method_options": {"k": 1}}, "du options: unknown option"),
        ({"rounds": 50}, "at most 20"),
    ):
        with pytest.raises(dg.DebateConfigError, match=message):
            graph.invoke({"question": ARITH}, context=bad)
        with pytest.raises(dg.DebateConfigError, match=message):
            kwargs = {"options" if k == "method_options" else k: v for k, v in bad.items()}
            models = kwargs.pop("models", None)
            dg.run(ARITH, method="du", agents=2, models=models, **kwargs)
    with pytest.raises(dg.DebateConfigError, match="agents must be at least 1"):
        build_debate_graph("du", agents=0)
    with pytest.raises(dg.DebateConfigError, match="taken by a node"):
        build_debate_graph("du", agents=["plan", "b"])
    with pytest.raises(dg.DebateConfigError, match="choice task needs"):
        graph.invoke({"question": "Pick one", "task": "choice"})


def test_run_and_invoke_work_inside_a_running_event_loop():
    async def notebook_cell():
        result = dg.run(ARITH, method="cortex", agents=3, rounds=1)
        graph = build_debate_graph("cortex", agents=3).compile()
        state = graph.invoke({"question": ARITH}, context={"rounds": 1})
        return result, state

    result, state = asyncio.run(notebook_cell())
    assert result.answer == state["decision"]["answer"] == "15"
    assert len(state["method_state"]["graphs"]) == 1


def test_node_cache_serves_repeated_calls_without_the_model():
    model = Recording(seen=[])
    graph = build_debate_graph(
        "mav",
        agents=[Agent("a1", model), Agent("a2", model)],
        cache_policy=CachePolicy(),
        cache=InMemoryCache(),
    ).compile()
    graph.invoke({"question": ARITH})
    graph.invoke({"question": ARITH})
    assert len(model.seen) == 2


def test_graphs_are_compiled_once_per_method_and_roster():
    assert compiled_graph("du", 3) is compiled_graph("du", ["a1", "a2", "a3"])
    assert compiled_graph("du", 3) is not compiled_graph("du", 4)
    assert compiled_graph("du", 3) is not compiled_graph("ring", 3)


def test_recursion_limit_follows_the_methods_bound():
    ctx = DebateContext(rounds=4)
    assert recursion_limit(dg.get_method("du"), ctx, ["a1", "a2"]) == 4 + 3 + 2
    bounded = Method(
        name="b", description="", prompts=du.PROMPTS, plan=dg.get_method("du").plan,
        round_bound=lambda view: 3 * len(view.agents), max_phases=4,
    )  # fmt: skip
    assert recursion_limit(bounded, ctx, ["a1", "a2"]) == max(6 + 3, 13) + 2


@pytest.mark.filterwarnings("ignore::debategraph.policies.mdm.UnknownModelSizeWarning")
def test_cortex_debates_once_before_it_may_stop_at_consensus():
    scripts = [["\\boxed{7}\nConfidence: 0.9"] * 3 for _ in range(3)]
    r = dg.run("q?", method="cortex", agents=3, models=[Scripted(replies=s) for s in scripts])
    assert r.rounds == 1 and r.answer == "7"


def test_a_method_object_runs_through_eval(tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    outcome = evaluate(
        arithmetic_items(3), [Arm("summarised", SUMMARISED, {"rounds": 1})], tmp_path,
        dataset="arithmetic",
    )  # fmt: skip
    assert [row["method"] for row in outcome.rows] == ["summarised"] * 3
    assert all(row["tokens_by_kind"]["summary"]["input_tokens"] > 0 for row in outcome.rows)


def test_decide_by_rule_is_the_default():
    assert dg.get_method("du").decide is decide_by_rule
    assert Phase(calls=[]).method_state == {}


def test_no_private_langgraph_api_is_imported():
    offenders = [
        p.relative_to(SRC).as_posix()
        for p in SRC.rglob("*.py")
        if "langgraph._internal" in p.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_evaluate_works_inside_a_running_event_loop(tmp_path):
    from debategraph.eval.datasets import arithmetic_items
    from debategraph.eval.run.runner import Arm, evaluate

    async def notebook_cell():
        return evaluate(arithmetic_items(2), [Arm("du", "du", {"rounds": 1})], tmp_path,
                        dataset="arithmetic")  # fmt: skip

    outcome = asyncio.run(notebook_cell())
    assert len(outcome.rows) == 2 and outcome.failed == 0
