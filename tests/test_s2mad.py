"""S²-MAD: the decision-making mechanism's math (hand-computed) and whole scripted debates."""

from __future__ import annotations

import math
import re

import pytest
from langchain_core.embeddings import Embeddings

import debategraph as dg
from debategraph import Agent
from debategraph.methods.s2mad import S2MAD, S2MadOptions, decide_round, plan_s2mad
from debategraph.policies.s2mad import (
    agreement,
    answer_similarity,
    check_threshold,
    cosine_similarity,
    differing,
    filter_views,
    participates,
    reached_consensus,
    redundant_group,
)
from debategraph.prompts.common import SUMMARY_REQUEST
from debategraph.testing import ScriptedChatModel, make_turn, make_view

Q = "What is the result of 3+4*5+6-7*2?"
_BOXED = re.compile(r"\\boxed\{([^}]*)\}")
_OWN = re.compile(r"Your own latest answer:\n```.*?```", re.DOTALL)

# --- the mechanism's math ---------------------------------------------------------------


def test_answer_similarity_is_answer_equivalence_and_abstentions_match_nobody():
    assert answer_similarity(["4", "4", "5", None, None]) == [
        [1.0, 1.0, 0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 1.0],
    ]


def test_cosine_similarity_by_hand():
    sim = cosine_similarity([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0], [0.0, 0.0]])
    half = 1 / math.sqrt(2)  # cos 45°
    assert sim[0][1] == pytest.approx(half, abs=1e-15) and sim[1][0] == sim[0][1]
    assert sim[1][2] == pytest.approx(half, abs=1e-15)
    assert sim[0][2] == 0.0
    assert sim[3] == [0.0, 0.0, 0.0, 1.0]  # a zero vector is similar to nothing but itself
    assert [sim[i][i] for i in range(4)] == [1.0] * 4
    with pytest.raises(ValueError, match="same length"):
        cosine_similarity([[1.0], [1.0, 0.0]])


def test_participation_and_filtering():
    # a0 "4", a1 "4", a2 "5", a3 "5", a4 "6", a5 abstains
    sim = answer_similarity(["4", "4", "5", "5", "6", None])
    assert differing(0, [1, 2, 3, 4, 5], sim, 1.0) == [2, 3, 4, 5]
    assert not participates(0, [1], sim, 1.0)  # its only peer agrees: it sits out
    assert participates(0, [1, 5], sim, 1.0)  # an abstaining peer is a differing view
    assert filter_views(0, [1, 2, 3, 4], sim, 1.0) == [2, 4]  # one "5", one "6"
    assert filter_views(0, [1, 2, 3, 4], sim, 1.0, dedupe=False) == [2, 3, 4]
    assert filter_views(5, [0, 1, 2], sim, 1.0) == [0, 2]  # the abstainer reads every view


def test_filtering_by_embedding_threshold():
    # a0 and a1 close (0.9), a1 and a2 close (0.95), a0 and a2 apart (0.7)
    sim = [[1.0, 0.9, 0.7], [0.9, 1.0, 0.95], [0.7, 0.95, 1.0]]
    assert filter_views(0, [1, 2], sim, 0.9) == [2]
    assert filter_views(0, [1, 2], sim, 0.95) == [1]  # a2 is redundant with the kept a1
    assert filter_views(0, [1, 2], sim, 0.95, dedupe=False) == [1, 2]
    assert not participates(1, [0, 2], sim, 0.9)


def test_redundant_groups_agreement_and_consensus():
    sim = answer_similarity(["4", "4", "5", "4", "4", "4"])
    assert redundant_group(0, [0, 1], sim, 1.0)
    assert not redundant_group(0, [2, 3], sim, 1.0)
    assert agreement(sim, 1.0) == 5
    assert reached_consensus(sim, 1.0, 5 / 6)  # SVR-MAD's "at least five of six"
    assert not reached_consensus(sim, 1.0, 1.0)
    everyone = answer_similarity(["4", "4", None])
    assert agreement(everyone, 1.0) == 2 and not reached_consensus(everyone, 1.0, 1.0)
    assert agreement(answer_similarity([None, None]), 1.0) == 1


def test_threshold_is_a_similarity():
    assert check_threshold(1.0) == 1.0
    for bad in (0.0, -0.5, 1.2):
        with pytest.raises(ValueError, match=r"threshold must be a similarity in \(0, 1\]"):
            check_threshold(bad)


def test_options_are_checked():
    with pytest.raises(ValueError, match="threshold"):
        S2MadOptions(threshold=0)
    with pytest.raises(ValueError, match="consensus must be a share"):
        S2MadOptions(consensus=1.5)
    with pytest.raises(ValueError, match="stage_rounds"):
        S2MadOptions(stage_rounds=0)
    with pytest.raises(dg.DebateConfigError, match=r"s2mad options: .*add up to 5"):
        dg.run(Q, method="s2mad", agents=4, options={"groups": (3, 2)})
    # GroupDebate's group checks, shared: sizes of at least 1, matching num_groups.
    with pytest.raises(ValueError, match=r"groups must be sizes of at least 1, got \(3, 0\)"):
        S2MadOptions(groups=(3, 0))
    with pytest.raises(ValueError, match=r"groups \(2, 2\) make 2 groups, but num_groups is 3"):
        S2MadOptions(groups=(2, 2), num_groups=3)
    assert S2MadOptions().cutoff == 1.0 and S2MadOptions(similarity="embedding").cutoff == 0.9


def test_embeddings_are_checked_before_any_call_only_when_used(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)
    remote = {"embeddings": "openai:text-embedding-3-small"}
    with pytest.raises(dg.DebateConfigError, match="OPENAI_API_KEY"):
        dg.run(Q, method="s2mad", options={**remote, "similarity": "embedding"})
    assert dg.run(Q, method="s2mad", options=remote).answer is not None  # answer similarity
    with pytest.raises(ValueError, match="embeddings"):
        S2MadOptions(embeddings="nope")


# --- the planner on hand-made views --------------------------------------------------------


def _round0(answers):
    return [make_turn(f"r0:a{i}", answer=a) for i, a in enumerate(answers, 1)]


def _state(answers, groups):
    return {
        "groups": groups,
        "similarity": {"matrix": answer_similarity(answers)},
        "decisions": [],
    }


def test_an_intra_round_reads_only_differing_group_members():
    answers = ["4", "4", "5", "4", "6", "6"]
    view = make_view(
        S2MAD, turns=_round0(answers), round=1, agents=6,
        method_state=_state(answers, [["a1", "a2", "a3"], ["a4", "a5", "a6"]]),
    )  # fmt: skip
    d = decide_round(view)
    assert d["kind"] == "intra" and d["skipped"] == []
    assert d["reads"] == {
        "a1": ["r0:a3"], "a2": ["r0:a3"], "a3": ["r0:a1"],
        "a4": ["r0:a5"], "a5": ["r0:a4"], "a6": ["r0:a4"],
    }  # fmt: skip
    # a3 and a4 see one response per differing view: a2 repeats a1, a6 repeats a5
    assert d["filtered"] == {
        "a1": ["r0:a2"], "a2": ["r0:a1"], "a3": ["r0:a2"],
        "a4": ["r0:a6"], "a5": ["r0:a6"], "a6": ["r0:a5"],
    }  # fmt: skip
    assert d["views"] == {"read": 6, "of": 12}
    calls = plan_s2mad(view).calls
    assert [(c["speaker"], c["reads"], c["template"]) for c in calls[:3]] == [
        ("a1", ["r0:a1", "r0:a3"], "intra"),
        ("a2", ["r0:a2", "r0:a3"], "intra"),
        ("a3", ["r0:a3", "r0:a1"], "intra"),
    ]


def test_agents_whose_group_agrees_sit_the_round_out():
    answers = ["4", "4", "5", "6", "6", "6"]
    view = make_view(
        S2MAD, turns=_round0(answers), round=1, agents=6,
        method_state=_state(answers, [["a1", "a2", "a3"], ["a4", "a5", "a6"]]),
    )  # fmt: skip
    d = decide_round(view)
    assert d["participants"] == ["a1", "a2", "a3"] and d["skipped"] == ["a4", "a5", "a6"]
    assert [c["speaker"] for c in plan_s2mad(view).calls] == ["a1", "a2", "a3"]


def test_an_inter_round_summarises_only_groups_someone_needs():
    answers = ["4", "4", "4", "4", "5", "6"]
    groups = [["a1", "a2"], ["a3", "a4"], ["a5", "a6"]]
    turns = _round0(answers)
    view = make_view(S2MAD, turns=turns, round=2, agents=6, method_state=_state(answers, groups))
    d = decide_round(view)
    assert d["kind"] == "inter"
    # a1..a4 read only group 3's summary; a5 and a6 read the two other groups' and each other's
    assert d["reads"]["a1"] == ["r2:summary:g3"]
    assert d["reads"]["a5"] == ["r2:summary:g3", "r2:summary:g1", "r2:summary:g2"]
    assert d["summaries"] == [1, 2, 3]
    phase = plan_s2mad(view)
    assert [c["id"] for c in phase.calls] == ["r2:summary:g1", "r2:summary:g2", "r2:summary:g3"]
    assert phase.calls[2]["reads"] == ["r0:a5", "r0:a6"]
    # everyone agrees but a6: the others read group 3's summary, a6 reads all three
    answers = ["4", "4", "4", "4", "4", "6"]
    view = make_view(
        S2MAD, turns=_round0(answers), round=2, agents=6, method_state=_state(answers, groups)
    )
    d = decide_round(view)
    assert d["participants"] == ["a1", "a2", "a3", "a4", "a5", "a6"]
    assert d["reads"]["a6"] == ["r2:summary:g3", "r2:summary:g1", "r2:summary:g2"]
    assert d["reads"]["a3"] == ["r2:summary:g3"]
    assert d["summaries"] == [1, 2, 3]


def test_a_round_where_nobody_differs_makes_no_call_but_records_why():
    answers = ["4", "4", "5", "5"]
    view = make_view(
        S2MAD, turns=_round0(answers), round=1, agents=4,
        method_state=_state(answers, [["a1", "a2"], ["a3", "a4"]]),
    )  # fmt: skip
    phase = plan_s2mad(view)
    assert list(phase.calls) == []
    (decision,) = phase.method_state["decisions"]
    assert decision["skipped"] == ["a1", "a2", "a3", "a4"] and decision["participants"] == []


# --- whole debates ---------------------------------------------------------------------------


def debater(initial: str, after: dict[str, str] | None = None) -> ScriptedChatModel:
    """Answers ``initial`` alone; reading others, ``after`` maps the first differing answer
    shown to its new answer (default: keep its own). Summaries list the answers read."""

    def respond(prompt: str) -> str:
        if SUMMARY_REQUEST in prompt:
            return "The group says " + " and ".join(
                f"\\boxed{{{a}}}" for a in _BOXED.findall(prompt)
            )
        peers = _OWN.sub("", prompt.split("Question:")[0])
        shown = [a for a in _BOXED.findall(peers) if a != initial]
        reply = (after or {}).get(shown[0], initial) if shown else initial
        return f"Working it out step by step. \\boxed{{{reply}}}"

    return ScriptedChatModel(respond=respond)


def team(*models: ScriptedChatModel) -> list[Agent]:
    return [Agent(f"a{i}", m) for i, m in enumerate(models, 1)]


def test_a_unanimous_start_ends_after_round_one_or_at_round_zero_if_asked():
    # SVR-MAD's protocol: stop "after round one" at consensus. Round one makes no call here
    # (nobody's view differs), so it costs nothing and is no round of debate: rounds is 0.
    models = [debater("4") for _ in range(4)]
    r = dg.run(Q, method="s2mad", agents=team(*models), options={"shuffle": False})
    assert (r.answer, r.usage["calls"], r.rounds) == ("4", 4, 0)
    assert r.method_state["consensus"] == {"round": 0, "largest": 4, "reached": True}
    assert r.method_state["decisions"][0]["participants"] == []
    options = {"shuffle": False, "consensus_from": 0}
    r0 = dg.run(Q, method="s2mad", agents=team(*models), options=options)
    assert (r0.answer, r0.usage["calls"], r0.rounds) == ("4", 4, 0)
    assert r0.method_state["decisions"] == []


def test_a_scripted_debate_runs_the_mechanism_round_by_round():
    # groups {a1, a2} and {a3, a4}; round 1 is intra-group, round 2 inter-group (R = 2)
    a1, a2 = debater("4"), debater("4", {"5": "5"})
    a3, a4 = debater("5", {"4": "4"}), debater("6", {"5": "5", "4": "4"})
    r = dg.run(Q, method="s2mad", agents=team(a1, a2, a3, a4), rounds=2,
               options={"groups": (2, 2), "shuffle": False})  # fmt: skip
    first, second = r.method_state["decisions"]
    # round 1: a1 and a2 agree and sit out; a3 reads a4's "6" and keeps "5"; a4 adopts "5"
    assert first["skipped"] == ["a1", "a2"] and first["reads"] == {
        "a3": ["r0:a4"], "a4": ["r0:a3"]
    }  # fmt: skip
    assert r.round_answers()[1] == ["4", "4", "5", "5"]
    # round 2: each group's summary is read only by the other group; a2 and a4 change sides
    assert second["summaries"] == [1, 2]
    assert second["reads"] == {
        "a1": ["r2:summary:g2"], "a2": ["r2:summary:g2"],
        "a3": ["r2:summary:g1"], "a4": ["r2:summary:g1"],
    }  # fmt: skip
    assert r.round_answers()[2] == ["4", "5", "4", "4"]
    assert r.answer == "4" and r.rounds == 2
    # 4 first answers + 2 intra answers + 2 summaries + 4 inter answers
    assert r.usage["calls"] == 12
    # NComm: 2 in round 1; each summary reads 2 answers, each answer reads 1 summary
    assert r.ncomm == 2 + 4 + 4
    assert len(a1.calls) == 1 + 1 + 2  # a1's model also writes the summaries
    summaries = [c["prompt"] for c in a1.calls if "Summarize" in c["prompt"]]
    assert sorted(_BOXED.findall("".join(summaries))) == ["4", "4", "5", "5"]
    assert not any("Question:" in p for p in summaries)


def test_the_debate_stops_at_consensus():
    a1, a2 = debater("4"), debater("4")
    a3, a4 = debater("4"), debater("5", {"4": "4"})
    r = dg.run(Q, method="s2mad", agents=team(a1, a2, a3, a4), rounds=3,
               options={"groups": (2, 2), "shuffle": False})  # fmt: skip
    assert r.rounds == 1 and r.answer == "4"
    assert r.usage["calls"] == 4 + 2  # a3 and a4 debate once; then everyone agrees
    assert r.method_state["consensus"]["reached"]


def test_consensus_share_and_no_early_stop():
    models = [debater("4"), debater("4"), debater("4"), debater("5")]
    kwargs = {"agents": team(*models), "rounds": 1}
    # 3 of 4 agree at round 0: the share is reached, but only after round one does it stop;
    # in round one a4's group (a3, a4) debates: 2 more calls.
    share = dg.run(Q, method="s2mad", options={"consensus": 0.75, "shuffle": False}, **kwargs)
    assert share.rounds == 1 and share.usage["calls"] == 4 + 2
    at_once = {"consensus": 0.75, "shuffle": False, "consensus_from": 0}
    early = dg.run(Q, method="s2mad", options=at_once, **kwargs)
    assert early.rounds == 0 and early.usage["calls"] == 4
    longer = dg.run(Q, method="s2mad", options={"consensus": 0.75, "shuffle": False},
                    **{**kwargs, "rounds": 3})  # fmt: skip
    assert longer.rounds == 1  # consensus holds after round one: it stops there
    never = dg.run(Q, method="s2mad", options={"consensus": None, "shuffle": False}, **kwargs)
    assert never.rounds == 1


class KeywordEmbeddings(Embeddings):
    """Embeds a response by whether it says "carry" and "borrow" (cosine 1, 0 or 0.707...)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float("carry" in t), float("borrow" in t)] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def test_embedding_similarity_uses_the_response_texts():
    texts = {
        "a1": "I carry the one. \\boxed{4}",
        "a2": "I carry the one too. \\boxed{5}",
        "a3": "I borrow and carry. \\boxed{4}",
    }
    models = [ScriptedChatModel(respond=lambda p, t=t: t) for t in texts.values()]
    options = {"similarity": "embedding", "embeddings": KeywordEmbeddings(), "threshold": 0.9,
               "groups": (3,), "shuffle": False}  # fmt: skip
    r = dg.run(Q, method="s2mad", agents=team(*models), rounds=1, options=options)
    half = 1 / math.sqrt(2)
    matrix = r.method_state["similarity"]["matrix"]
    assert matrix[0][1] == 1.0 and matrix[0][2] == pytest.approx(half, abs=1e-6)
    (d,) = r.method_state["decisions"]
    # a1 and a2 give different answers but the same reasoning: each reads only a3
    assert d["reads"] == {"a1": ["r0:a3"], "a2": ["r0:a3"], "a3": ["r0:a1"]}
    assert d["filtered"]["a3"] == ["r0:a2"]


def test_every_debating_call_starts_from_groupdebates_system_framing():
    from debategraph.prompts.groupdebate import SYSTEM

    a1, a2 = debater("4"), debater("4", {"5": "5"})
    a3, a4 = debater("5", {"4": "4"}), debater("6", {"5": "5", "4": "4"})
    r = dg.run(Q, method="s2mad", agents=team(a1, a2, a3, a4), rounds=2,
               options={"groups": (2, 2), "shuffle": False})  # fmt: skip
    assert r.usage["calls"] == 12
    calls = [c for m in (a1, a2, a3, a4) for c in m.calls]
    summaries = [c for c in calls if "Summarize" in c["prompt"]]
    debating = [c for c in calls if "Summarize" not in c["prompt"]]
    assert len(summaries) == 2 and len(debating) == 10
    assert all(c["messages"][0] == ("system", SYSTEM) for c in debating)
    assert not any(role == "system" for c in summaries for role, _ in c["messages"])
    with pytest.raises(ValueError, match="consensus_from must be 1"):
        S2MadOptions(consensus_from=2)
