import asyncio

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from debategraph.models.resolve import ModelConfigError, Models, resolve_model
from debategraph.models.roster import Agent, make_roster
from debategraph.models.simulated import SimulatedDebater
from debategraph.state.context import DebateConfigError, DebateContext


def book(agents, ctx=None, **kwargs):
    roster = make_roster(agents, 3)
    return Models(roster, ctx or DebateContext(), **kwargs), [a.name for a in roster]


def test_default_is_simulated_with_per_agent_profiles():
    models, names = book(3)
    resolved = [models.model(a) for a in names]
    assert all(isinstance(m, SimulatedDebater) for m in resolved)
    assert [m.agent for m in resolved] == ["a1", "a2", "a3"]
    assert len({m.skill for m in resolved}) > 1


def test_single_model_samples_share_one_profile():
    models, names = book(3, single_model=True)
    resolved = [models.model(a) for a in names]
    assert len({(m.skill, m.conformity, m.replay) for m in resolved}) == 1
    assert len({m.agent for m in resolved}) == 3


def test_roles_use_the_first_agents_model_unless_given():
    models, _ = book(2, DebateContext(models=["simulated:skill=0.2", "simulated"]))
    assert models.model("summarizer").skill == 0.2
    models, _ = book(2, DebateContext(role_models={"summarizer": "simulated:skill=0.9"}))
    assert models.model("summarizer").skill == 0.9


def test_simulated_overrides():
    m = resolve_model("simulated:skill=0.9,conformity=0.1", index=0, agent="a1")
    assert (m.skill, m.conformity) == (0.9, 0.1)
    with pytest.raises(ModelConfigError, match="valid settings"):
        resolve_model("simulated:skil=0.9", index=0, agent="a1")
    with pytest.raises(ModelConfigError, match="must be a number"):
        resolve_model("simulated:skill=abc", index=0, agent="a1")


def test_bound_objects_pass_through_and_strings_map_per_agent():
    fake = FakeListChatModel(responses=["\\boxed{1}"])
    models, _ = book([Agent("x", fake), Agent("y")], DebateContext(models=["simulated"]))
    assert models.model("x") is fake and isinstance(models.model("y"), SimulatedDebater)
    ctx = DebateContext(models=["simulated", "simulated"])
    with pytest.raises(DebateConfigError, match="one per agent"):
        ctx.validate(["a1", "a2", "a3"])
    with pytest.raises(DebateConfigError, match="single model"):
        ctx.validate(["a1", "a2"], single_model=True)


def test_context_holds_only_spec_strings():
    with pytest.raises(DebateConfigError, match="model spec strings"):
        DebateContext(models=[FakeListChatModel(responses=["x"])])


def test_unknown_provider_and_missing_key_are_clear(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelConfigError, match="unknown model provider"):
        resolve_model("nosuchprovider:model-x", index=0, agent="a1")
    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY") as info:
        resolve_model("openai:gpt-4o-mini", index=0, agent="a1", seed=99)
    assert "sk-" not in str(info.value)


def test_base_url_builds_openai_compatible_client_without_its_own_retries(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    m = resolve_model("smollm2", index=0, agent="a1", base_url="http://127.0.0.1:9/v1", timeout=7)
    assert m.model_name == "smollm2"
    assert m.max_retries == 0 and m.request_timeout == 7
    assert "sk-secret-value" not in repr(m)


def test_provider_models_are_made_once_per_event_loop(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")

    async def resolve():
        first = resolve_model("smollm2", base_url="http://127.0.0.1:9/v1")
        again = resolve_model("smollm2", base_url="http://127.0.0.1:9/v1")
        assert first is again
        return first

    one, two = asyncio.run(resolve()), asyncio.run(resolve())
    assert one is not two
    assert one.http_async_client is not two.http_async_client
