import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from debategraph.models.resolve import ModelConfigError, agent_models, resolve_model
from debategraph.models.simulated import SimulatedDebater
from debategraph.state.context import DebateContext


def test_default_is_simulated_with_per_agent_profiles():
    models = agent_models(DebateContext(agents=3))
    assert all(isinstance(m, SimulatedDebater) for m in models)
    assert [m.agent for m in models] == ["a1", "a2", "a3"]
    assert len({m.skill for m in models}) > 1


def test_single_model_samples_share_one_profile():
    models = agent_models(DebateContext(agents=3), single_model=True)
    assert len({(m.skill, m.conformity, m.replay) for m in models}) == 1
    assert len({m.agent for m in models}) == 3


def test_simulated_overrides():
    m = resolve_model("simulated:skill=0.9,conformity=0.1", index=0, agent="a1")
    assert (m.skill, m.conformity) == (0.9, 0.1)
    with pytest.raises(ModelConfigError, match="valid settings"):
        resolve_model("simulated:skil=0.9", index=0, agent="a1")


def test_instances_pass_through_and_lists_map_per_agent():
    fake = FakeListChatModel(responses=["\\boxed{1}"])
    models = agent_models(DebateContext(agents=2, models=[fake, "simulated"]))
    assert models[0] is fake and isinstance(models[1], SimulatedDebater)
    with pytest.raises(ModelConfigError, match="one per agent"):
        agent_models(DebateContext(agents=3, models=["simulated", "simulated"]))
    with pytest.raises(ModelConfigError, match="single model"):
        agent_models(DebateContext(agents=2, models=["simulated", "simulated"]), single_model=True)


def test_unknown_provider_and_missing_key_are_clear(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelConfigError, match="unknown model provider"):
        resolve_model("nosuchprovider:model-x", index=0, agent="a1")
    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY") as info:
        resolve_model("openai:gpt-4o-mini", index=0, agent="a1", seed=99)
    assert "sk-" not in str(info.value)


def test_base_url_builds_openai_compatible_client(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    m = resolve_model("smollm2", index=0, agent="a1", base_url="http://127.0.0.1:9/v1")
    assert m.model_name == "smollm2"
    assert "sk-secret-value" not in repr(m)
