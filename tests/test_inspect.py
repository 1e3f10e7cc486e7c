"""The Inspect solver: debates inside ``inspect_ai.eval`` on Inspect's mock model, offline."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai")
# inspect_ai's own retry setup warns about a tenacity parameter; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated")

from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import choice, match  # noqa: E402

from debategraph import DebateConfigError  # noqa: E402
from debategraph.integrations.inspect import InspectChatModel, debate_solver  # noqa: E402

ARITH = "What is the result of 3+4*5+6-7*2?"
PLANET = Sample(id="planet", input="Which planet is largest?", target="B",
                choices=["Mars", "Jupiter", "Venus"])  # fmt: skip
SAMPLES = [
    Sample(id="arith", input=ARITH, target="15"),
    PLANET,
    Sample(id="riddle", input="How many grains of sand are on the beach?", target="7"),
]


def reply(messages, tools, tool_choice, config) -> ModelOutput:
    """The mock debater: right on the arithmetic and the planet, no answer to the riddle."""
    prompt = messages[-1].text
    if "3+4*5" in prompt:
        text = "3 + 20 + 6 - 14 = 15, so the answer is \\boxed{15}."
    elif "planet" in prompt:
        text = "Jupiter is the largest planet. Answer: (B)"
    else:
        text = "Nobody could count them."
    return output(text, messages)


def output(text: str, messages) -> ModelOutput:
    """A reply with usage (word counts): without it the mock counts tokens with tiktoken,
    which downloads its encoding."""
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    read = sum(len(m.text.split()) for m in messages)
    out.usage = ModelUsage(input_tokens=read, output_tokens=len(text.split()),
                           total_tokens=read + len(text.split()))  # fmt: skip
    return out


def mock(name: str = "mockllm/model"):
    return get_model(name, custom_outputs=reply, memoize=False)


def run(task: Task, tmp_path, **kwargs):
    [log] = inspect_eval(task, log_dir=str(tmp_path), display="none", **kwargs)
    assert log.status == "success", log.error
    return log


@pytest.mark.slow
def test_a_debate_on_inspects_model_is_scored_by_inspects_scorers(tmp_path):
    task = Task(dataset=MemoryDataset(SAMPLES), solver=debate_solver("du", agents=2, rounds=1),
                scorer=match())  # fmt: skip
    log = run(task, tmp_path, model=mock())
    by_id = {s.id: s for s in log.samples}
    assert {k: s.scores["match"].value for k, s in by_id.items()} == {
        "arith": "C", "planet": "C", "riddle": "I",
    }  # fmt: skip
    assert [by_id[k].output.completion for k in ("arith", "planet", "riddle")] == ["15", "B", ""]
    # The abstention is an empty completion: Inspect's "no response", never correct.
    assert by_id["riddle"].scores["match"].reason == "no_response"
    debate = by_id["riddle"].metadata["debate"]
    assert debate["abstained"] is True and debate["answer"] is None
    assert by_id["arith"].metadata["debate"]["agents"] == [
        {"name": "a1", "model": "inspect:mockllm/model"},
        {"name": "a2", "model": "inspect:mockllm/model"},
    ]
    # Every debate call went through Inspect's model: 2 agents x 2 rounds per sample.
    calls = [e for e in by_id["arith"].events if e.event == "model"]
    assert len(calls) == 4
    assert log.stats.model_usage["mockllm/model"].output_tokens > 0
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(2 / 3)


def test_a_choice_sample_marks_its_choice_for_the_choice_scorer(tmp_path):
    task = Task(dataset=MemoryDataset([PLANET]), solver=debate_solver("cot"), scorer=choice())
    log = run(task, tmp_path, model=mock())
    assert log.samples[0].scores["choice"].value == "C"


def test_a_role_bound_to_a_list_of_models_gives_one_per_agent(tmp_path):
    task = Task(dataset=MemoryDataset(SAMPLES[:1]),
                solver=debate_solver("du", role="debaters", rounds=0), scorer=match())  # fmt: skip
    log = run(task, tmp_path, model=mock(),
              model_roles={"debaters": [mock("mockllm/alpha"), mock("mockllm/beta")]})  # fmt: skip
    sample = log.samples[0]
    assert sample.scores["match"].value == "C"
    assert [a["model"] for a in sample.metadata["debate"]["agents"]] == [
        "inspect:mockllm/alpha", "inspect:mockllm/beta",
    ]  # fmt: skip
    assert "mockllm/model" not in log.stats.model_usage  # the model under evaluation idles


def test_a_solver_that_uses_no_bound_role_says_so_once(tmp_path):
    roles = {"debaters": [mock("mockllm/alpha"), mock("mockllm/beta")]}
    task = Task(dataset=MemoryDataset(SAMPLES[:2]), solver=debate_solver("du", rounds=0),
                scorer=match())  # fmt: skip
    log = run(task, tmp_path, model=mock(), model_roles=roles)
    told = [e.message for s in log.samples for e in s.events if e.event == "logger"]
    assert [m.level for m in told] == ["warning"]
    assert "the eval binds model role(s) debaters, but it was given no role" in told[0].message
    assert "pass role='debaters'" in told[0].message
    assert {a["model"] for a in log.samples[0].metadata["debate"]["agents"]} == {
        "inspect:mockllm/model"
    }
    typo = Task(dataset=MemoryDataset(SAMPLES[:1]),
                solver=debate_solver("du", role="debater", rounds=0), scorer=match())  # fmt: skip
    log = run(typo, tmp_path / "typo", model=mock(), model_roles=roles)
    told = [e.message.message for e in log.samples[0].events if e.event == "logger"]
    assert len(told) == 1 and "its role 'debater' is not bound" in told[0]


def test_a_solver_on_its_bound_role_says_nothing(tmp_path):
    roles = {"debaters": [mock("mockllm/alpha"), mock("mockllm/beta")]}
    task = Task(dataset=MemoryDataset(SAMPLES[:1]),
                solver=debate_solver("du", role="debaters", rounds=0), scorer=match())  # fmt: skip
    log = run(task, tmp_path, model=mock(), model_roles=roles)
    assert not [e for e in log.samples[0].events if e.event == "logger"]


def test_our_own_models_debate_without_inspects(tmp_path):
    task = Task(dataset=MemoryDataset(SAMPLES[:1]),
                solver=debate_solver("du", models="simulated", agents=3, rounds=1),
                scorer=match())  # fmt: skip
    log = run(task, tmp_path, model=mock())
    assert log.samples[0].output.completion == "15"
    assert not [e for e in log.samples[0].events if e.event == "model"]


def test_bad_settings_fail_when_the_solver_is_made():
    with pytest.raises(DebateConfigError, match="did you mean 'rounds'"):
        debate_solver("du", roundz=1)
    with pytest.raises(DebateConfigError, match="not both"):
        debate_solver("du", role="debaters", models="simulated")


async def test_the_wrapper_maps_settings_and_refuses_what_inspect_cannot_take():
    seen = []

    def record(messages, tools, tool_choice, config) -> ModelOutput:
        seen.append((config.temperature, config.max_tokens, config.stop_seqs, config.top_k))
        return output("\\boxed{4}", messages)

    model = InspectChatModel(model=get_model("mockllm/model", custom_outputs=record,
                                             memoize=False))  # fmt: skip
    reply_ = await model.ainvoke("What is 2+2?", temperature=0.2, max_tokens=9, stop=["##"],
                                 top_k=5)  # fmt: skip
    assert reply_.text == "\\boxed{4}"
    assert reply_.usage_metadata == {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}
    assert seen == [(0.2, 9, ["##"], 5)]
    with pytest.raises(ValueError, match="GenerateConfig has no frobnicate"):
        await model.ainvoke("What is 2+2?", frobnicate=1)
    with pytest.raises(NotImplementedError, match="asynchronously"):
        model.invoke("What is 2+2?")


def test_an_inspect_models_cached_and_reasoning_tokens_reach_the_turn():
    from debategraph.integrations.inspect import _ai_message
    from debategraph.models.usage_details import usage_details

    output = ModelOutput.from_content("mockllm/model", "The answer is 7.")
    output.usage = ModelUsage(input_tokens=12, output_tokens=9, total_tokens=51,
                              input_tokens_cache_read=30, reasoning_tokens=4)  # fmt: skip
    usage = _ai_message(output).usage_metadata
    assert (usage["input_tokens"], usage["output_tokens"]) == (42, 9)  # ours: cache reads in
    assert usage_details(usage) == {"cached_input_tokens": 30, "reasoning_tokens": 4}
    plain = ModelOutput.from_content("mockllm/model", "7")
    plain.usage = ModelUsage(input_tokens=5, output_tokens=1, total_tokens=6)
    assert usage_details(_ai_message(plain).usage_metadata) == {}  # not stated: not zero
