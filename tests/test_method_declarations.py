"""What a method declares is held to before any call: its decision, its agents, its stop.

Each method here is an outside author's: a ``Method`` built from the kit, run on a scripted
model that records every call, so "before any call" is checked by counting them.
"""

from __future__ import annotations

import pytest

import debategraph as dg
from debategraph.errors import ConfigurationError, PlanError
from debategraph.eval.datasets import load_dataset
from debategraph.eval.run.arms import Arm
from debategraph.eval.run.failed_rows import failure_advice, lasting_failures
from debategraph.eval.run.runner import evaluate
from debategraph.methods import (
    DebateConfigError,
    DebateView,
    Decision,
    Method,
    debate_planner,
    decide_by_rule,
    full_reads,
)
from debategraph.prompts import du
from debategraph.testing import ScriptedChatModel

Q = "What is 2+2?"
PLANNER = debate_planner(full_reads, history=True)


def first_agent(view: DebateView) -> Decision:
    return Decision(view.final_answers()[0], "first-agent", {})


def first_unless_ruled(view: DebateView) -> Decision:
    return decide_by_rule(view) if view.context.decision else first_agent(view)


def never(view: DebateView) -> bool:
    return False


OWN = Method(name="own-decide", description="x", prompts=du.PROMPTS, plan=PLANNER,
             decide=first_agent)  # fmt: skip
RULED = Method(name="ruled", description="x", prompts=du.PROMPTS, plan=PLANNER,
               decide=first_unless_ruled, takes_decision=True)  # fmt: skip
EVEN = Method(name="even", description="x", prompts=du.PROMPTS, plan=PLANNER,
              agent_counts=range(2, 7, 2), default_agents=4)  # fmt: skip
FOREVER = Method(name="forever", description="x", prompts=du.PROMPTS, plan=PLANNER, stop=never)


def model() -> ScriptedChatModel:
    return ScriptedChatModel(respond=lambda prompt: "2 + 2 = 4, so \\boxed{4}")


def test_a_rule_given_to_a_method_with_its_own_decide_is_refused_before_any_call():
    scripted = model()
    with pytest.raises(DebateConfigError, match="own-decide picks its answer with its own decide"):
        dg.run(Q, method=OWN, decision="majority", models=scripted)
    assert scripted.calls == []
    assert dg.run(Q, method=OWN, models=scripted).decision["rule"] == "first-agent"


def test_a_method_that_declares_it_takes_the_rule_gets_it():
    assert dg.run(Q, method=RULED, decision="freemad", models=model()).decision["rule"] == (
        "freemad_score"
    )
    assert dg.run(Q, method=RULED, models=model()).decision["rule"] == "first-agent"


def test_a_gated_method_keeps_what_it_declares():
    assert dg.gated(OWN, "unanimous").honours_decision is False
    assert dg.gated("du", "unanimous").honours_decision is True
    with pytest.raises(DebateConfigError, match="takes no decision rule"):
        dg.run(Q, method=dg.gated(OWN, "unanimous"), decision="majority", models=model())


def test_the_builtins_with_their_own_decide_take_the_rule():
    for name in ("cortex", "svr", "sid-et", "council", "moa", "self-moa", "mad-judge"):
        assert dg.get_method(name).honours_decision, name


def test_a_sweep_arms_decision_is_refused_before_any_row(tmp_path):
    items = load_dataset("arithmetic", limit=1)
    arm = Arm("own", OWN, {"decision": "majority", "models": [model()]})
    with pytest.raises(DebateConfigError, match="takes no decision rule"):
        evaluate(items, [arm], tmp_path / "out", dataset="arithmetic")
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_agent_counts_are_checked_before_any_call():
    scripted = model()
    with pytest.raises(DebateConfigError, match=r"even takes 2, 4 or 6 agents, got 3"):
        dg.run(Q, method=EVEN, agents=3, models=scripted)
    assert scripted.calls == []
    assert dg.run(Q, method=EVEN, models=scripted).usage["calls"] == 4 * 3


def test_agent_counts_as_a_range():
    wide = Method(name="wide", description="x", prompts=du.PROMPTS, plan=PLANNER,
                  agent_counts=range(2, 9))  # fmt: skip
    with pytest.raises(DebateConfigError, match=r"wide takes 2 to 8 agents, got 9"):
        dg.run(Q, method=wide, agents=9, models=model())


def test_bad_agent_counts_are_refused_when_the_method_is_made():
    with pytest.raises(TypeError, match="default_agents \\(3\\) is not one of agent_counts"):
        Method(name="x", description="x", prompts=du.PROMPTS, plan=PLANNER, agent_counts=(4,))
    with pytest.raises(TypeError, match="agent_counts must be a non-empty range"):
        Method(name="x", description="x", prompts=du.PROMPTS, plan=PLANNER, agent_counts=())


def test_a_stop_hook_that_never_ends_the_debate_gets_a_plan_error_naming_it():
    with pytest.raises(PlanError, match=r"forever: its stop hook .*never did not end the debate "
                       r"after round 2"):  # fmt: skip
        dg.run(Q, method=FOREVER, rounds=2, models=model())


def test_lasting_failures_are_told_apart_from_ones_worth_retrying():
    rows = [
        {"error": "PlanError: bad: call 'x' has no field 'kind'"},
        {"error": "DebateConfigError: rounds must be 0 or more"},
        {"error": "MissingLogprobsError: madm2-o needs token logprobs"},
        {"error": "APITimeoutError: Request timed out. — the model server did not answer"},
        {"error": "ModelUnreachableError: could not reach the model server"},
        {"answer": "4"},
    ]
    import debategraph.methods.madm2  # noqa: F401  (its error class is then known)

    assert lasting_failures(rows) == 3
    assert "run the same command again to retry them" in failure_advice(2, 0)
    assert "would fail the same way" in failure_advice(3, 3)
    assert "retry" not in failure_advice(3, 3)
    mixed = failure_advice(5, 3)
    assert "3 with a settings or method error" in mixed and "retry all 5" in mixed


def test_one_exception_base():
    assert issubclass(DebateConfigError, ConfigurationError)
    assert issubclass(DebateConfigError, ValueError)  # caught as before
    with pytest.raises(dg.DebategraphError, match="rounds must be 0 or more"):
        dg.run(Q, rounds=-1)
    with pytest.raises(dg.ConfigurationError, match="unknown method"):
        dg.run(Q, method="nope")


def test_every_error_class_has_its_kind():
    from debategraph.errors import (
        CallGaveUpError,
        DataError,
        ModelError,
        ModelUnreachableError,
        NoConnectionError,
        UnusableReplyError,
    )
    from debategraph.eval.datasets import DatasetFormatError
    from debategraph.eval.log.store import OutputBusyError, SettingsMismatchError
    from debategraph.eval.run.breaker import ServerDownError
    from debategraph.eval.run.sweep import SweepError
    from debategraph.methods.registry import PluginError
    from debategraph.models.resolve import ModelConfigError
    from debategraph.nodes.cache_guard import CacheError
    from debategraph.state.debate import DuplicateTurnError

    kinds = {
        ConfigurationError: [PluginError, CacheError, ModelConfigError, SweepError],
        PlanError: [DuplicateTurnError],
        ModelError: [ModelUnreachableError, CallGaveUpError, NoConnectionError,
                     UnusableReplyError, ServerDownError],
        DataError: [DatasetFormatError, SettingsMismatchError, OutputBusyError],
    }  # fmt: skip
    for kind, classes in kinds.items():
        assert issubclass(kind, dg.DebategraphError)
        for cls in classes:
            assert issubclass(cls, kind), cls
    # What each was before stays catchable as such.
    assert issubclass(DuplicateTurnError, ValueError)
    assert issubclass(SettingsMismatchError, RuntimeError)
    assert issubclass(DatasetFormatError, ValueError)
    assert issubclass(CallGaveUpError, RuntimeError)
