"""Graph-level tests of the cortex method (CortexDebate on the engine)."""

import json
import math
import warnings

import networkx as nx
import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from typer.testing import CliRunner

import debategraph as dg
from debategraph.cli import app
from debategraph.eval.datasets import load_gsm8k_bundled
from debategraph.methods.cortex import CortexOptions
from debategraph.policies.mdm import (
    MODEL_SIZES,
    UnknownModelSizeWarning,
    credibility,
    edge_weights,
    initial_state,
    lookup_model_size,
    prune,
    update_state,
)
from debategraph.policies.tokens import estimate_tokens

from .helpers import Scripted

ARITH = "What is the result of 3+4*5+6-7*2?"
runner = CliRunner()


class Named(Scripted):
    """A scripted model with a model name, so that its credibility can be looked up."""

    model_name: str = "qwen2.5-7b"


class KeywordEmbeddings(Embeddings):
    """Embeds a text as the vector of the first keyword it contains (hand-computable)."""

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors = vectors

    def embed_query(self, text: str) -> list[float]:
        return next(v for k, v in self.vectors.items() if k in text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]


VECTORS = {"alpha": [1.0, 0.0], "beta": [0.0, 1.0], "gamma": [1.0, 1.0]}


def reply(word: str, answer: int | str, confidence: float | None = None) -> str:
    conf = "" if confidence is None else f"\nConfidence: {confidence}"
    return f"By {word} reasoning the result follows.\nThe answer is \\boxed{{{answer}}}.{conf}"


def models(*scripts: list[str], names: tuple[str, ...] = ()) -> list[Named]:
    names = names or ("qwen2.5-7b",) * len(scripts)
    return [Named(replies=s, model_name=n) for s, n in zip(scripts, names, strict=True)]


def kept_reads(result: dg.DebateResult, round_: int) -> dict[str, set[str]]:
    graph = next(g for g in result.method_state["graphs"] if g["round"] == round_)
    reads: dict[str, set[str]] = {a: set() for a in graph["agents"]}
    for e in graph["edges"]:
        if e["kept"]:
            reads[e["tail"]].add(f"r{round_ - 1}:{e['head']}")
    return reads


def stored_weights(result: dg.DebateResult, round_: int) -> np.ndarray:
    graph = next(g for g in result.method_state["graphs"] if g["round"] == round_)
    index = {a: i for i, a in enumerate(graph["agents"])}
    w = np.zeros((len(index), len(index)))
    for e in graph["edges"]:
        w[index[e["head"]], index[e["tail"]]] = math.inf if e["weight"] == "inf" else e["weight"]
    return w


# --- turn structure -----------------------------------------------------------------------------


def test_turn_structure_reads_are_the_kept_edges_and_calls_are_stateless():
    question = load_gsm8k_bundled()[0].question
    r = dg.run(question, method="cortex", rounds=3, stop_on_consensus=False)
    assert r.rounds == 3 and len(r.agents) == 5
    assert len(r.method_state["graphs"]) == 3
    for t in r.turns:
        # One user message per call: no system prompt and no own chat history.
        assert t["input_tokens"] == estimate_tokens(t["prompt"])
        if t["round"] == 0:
            assert t["reads"] == []
        else:
            assert set(t["reads"]) == kept_reads(r, t["round"])[t["agent"]]
            assert t["agent"] not in {i.split(":")[1] for i in t["reads"]}
    graphs = r.graphs()
    assert len(graphs) == 3 and all(isinstance(g, nx.DiGraph) for g in graphs)
    assert [g.graph["round"] for g in graphs] == [1, 2, 3]
    assert graphs[0].number_of_edges() == 5 * 4
    # Sparse: the mean rule dropped some edges, and every tail kept at least one.
    kept = [(h, t) for h, t, k in graphs[0].edges(data="kept") if k]
    assert 5 <= len(kept) < 20


def test_defaults_follow_the_paper():
    r = dg.run(ARITH, method="cortex")
    assert len(r.agents) == 5
    assert r.method_state["cortex_options"] == CortexOptions().to_dict()
    assert dg.get_method("cortex").default_rounds == 5


def test_prompts_ask_for_three_parts_and_hide_peer_confidence():
    scripts = [
        [reply("alpha", 1, 0.95), reply("alpha", 1, 0.9)],
        [reply("beta", 2, 0.91), reply("beta", 1, 0.9)],
        [reply("gamma", 3, 0.92), reply("gamma", 1, 0.9)],
    ]
    r = dg.run("q?", method="cortex", agents=3, rounds=1, models=models(*scripts),
               options={"embeddings": KeywordEmbeddings(VECTORS)})  # fmt: skip
    for t in r.turns:
        assert "explanation" in t["prompt"] and "confidence score between 0 and 1" in t["prompt"]
        assert "Confidence: <a number between 0 and 1>" in t["prompt"]
        assert "Please think it step by step" not in t["prompt"]  # not the paper's wording
    debate = [t["prompt"] for t in r.turns if t["round"] == 1]
    assert all("```" in p and "reasoning the result follows" in p for p in debate)
    assert not any(f"Confidence: 0.9{d}" in p for p in debate for d in "125")


# --- round-1 weights, by hand -------------------------------------------------------------------


def test_round_one_weights_equal_the_hand_computed_mdm():
    # Round 0: a1 "alpha" [1, 0] conf 0.95 -> 0.8; a2 "beta" [0, 1] conf 0.7 -> 0.6;
    # a3 "gamma" [1, 1] conf 0.4 -> 0.4. cos(a1, a2) = 0, cos(a1, a3) = cos(a2, a3) = 1/sqrt 2.
    names = ("qwen2.5-7b", "llama-3.1-8b", "gemma-2-9b")
    scripts = [
        [reply("alpha", 1, 0.95), reply("alpha", 1, 0.9)],
        [reply("beta", 2, 0.7), reply("beta", 1, 0.9)],
        [reply("gamma", 3, 0.4), reply("gamma", 1, 0.9)],
    ]
    r = dg.run("q?", method="cortex", agents=3, rounds=1, models=models(*scripts, names=names),
               options={"embeddings": KeywordEmbeddings(VECTORS)})  # fmt: skip
    c = [credibility(*MODEL_SIZES[n]) for n in names]
    r0 = [0.8, 0.6, 0.4]
    s = 1 / math.sqrt(2)
    sim = [[1, 0, s], [0, 1, s], [s, s, 1]]
    # Round 1, add-one smoothing: S + 1 = 1, so W[i, j] = C_i R_i (1 - Sim_ij).
    expected = np.array(
        [[0 if i == j else c[i] * r0[i] * (1 - sim[i][j]) for j in range(3)] for i in range(3)]
    )
    weights = stored_weights(r, 1)
    np.testing.assert_allclose(weights, expected, rtol=1e-12, atol=1e-15)
    state = update_state(initial_state(3), r0, vectors=[VECTORS[k] for k in VECTORS])
    np.testing.assert_allclose(weights, edge_weights(state, c), rtol=1e-12)
    # Mean rule per tail: a1 reads a2, a2 reads a1, a3 reads a1 (0.8 C1 (1 - s) > 0.6 C2 (1 - s)).
    assert kept_reads(r, 1) == {"a1": {"r0:a2"}, "a2": {"r0:a1"}, "a3": {"r0:a1"}}
    assert np.array_equal(prune(weights), prune(expected))
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r1:a3"]["reads"] == ["r0:a1"]
    assert r.method_state["credibilities"] == pytest.approx(c)
    assert r.method_state["confidences"][0] == pytest.approx(r0)
    # The state after round 1 counts who read whom (P, "read": in-degree).
    assert r.method_state["mdm"]["reads"] == [1, 1, 1]
    assert r.method_state["mdm"]["selections"] == [2, 1, 0]


def three_distinct(confidences=(0.95, 0.7, 0.4), rounds=1, **cortex):
    scripts = [
        [reply("alpha", 1, confidences[0])] * 2,
        [reply("beta", 2, confidences[1])] * 2,
        [reply("gamma", 3, confidences[2])] * 2,
    ]
    cortex.setdefault("embeddings", KeywordEmbeddings(VECTORS))
    return dg.run("q?", method="cortex", agents=3, rounds=rounds, models=models(*scripts),
                  options=cortex)  # fmt: skip


def round_zero_state(confidences=(0.8, 0.6, 0.4)):
    return update_state(initial_state(3), list(confidences), vectors=list(VECTORS.values()))


@pytest.mark.parametrize(
    "switch", ["use_credibility", "use_reliability", "use_intimacy", "use_self_orientation"]
)
def test_factor_switches_reach_the_math(switch):
    r = three_distinct(**{switch: False})
    c = r.method_state["credibilities"]
    expected = edge_weights(round_zero_state(), c, **{switch: False})
    np.testing.assert_allclose(stored_weights(r, 1), expected, rtol=1e-12)
    assert r.method_state["cortex_options"][switch] is False


def test_switching_off_intimacy_changes_the_graph():
    on, off = three_distinct(), three_distinct(use_intimacy=False)
    assert not np.allclose(stored_weights(on, 1), stored_weights(off, 1))
    # Without I, W = C R: every tail keeps the most reliable heads it can read.
    assert kept_reads(off, 1) == {"a1": {"r0:a2"}, "a2": {"r0:a1"}, "a3": {"r0:a1"}}


def test_literal_smoothing_makes_round_one_fully_connected_and_json_safe():
    literal, add_one = three_distinct(smoothing="literal"), three_distinct()
    assert all(e["weight"] == "inf" for e in literal.method_state["graphs"][0]["edges"])
    assert kept_reads(literal, 1) == {
        "a1": {"r0:a2", "r0:a3"},
        "a2": {"r0:a1", "r0:a3"},
        "a3": {"r0:a1", "r0:a2"},
    }
    assert all(w == math.inf for _, _, w in literal.graphs()[0].edges(data="weight"))
    assert all(math.isfinite(w) for w in stored_weights(add_one, 1).ravel())
    assert kept_reads(add_one, 1) != kept_reads(literal, 1)
    json.dumps(literal.to_dict(), allow_nan=False)


def test_participation_selected_counts_out_degree():
    r = three_distinct(participation="selected", rounds=2)
    w2 = stored_weights(r, 2)
    # Round 1 kept a2->a1, a1->a2, a1->a3: a1 selected twice, a2 once, a3 never.
    # S_2 + 1 = (2 - 1)(3 - 1) - P + 1 = 3 - P, so a1's out-weights are divided by 1.
    h = [0.8, 0.6, 0.4]
    state = update_state(round_zero_state(), h, vectors=list(VECTORS.values()),
                         adjacency=[[0, 1, 1], [1, 0, 0], [0, 0, 0]])  # fmt: skip
    c = r.method_state["credibilities"]
    np.testing.assert_allclose(w2, edge_weights(state, c, participation="selected"), rtol=1e-12)


@pytest.mark.parametrize(
    ("rule", "k", "reads_per_tail"), [("all", 3, 2), ("top_k", 1, 1), ("bottom_k_excluded", 1, 1)]
)
def test_prune_rules_reach_the_graph(rule, k, reads_per_tail):
    r = three_distinct(prune=rule, k=k)
    assert all(len(t["reads"]) == reads_per_tail for t in r.turns if t["round"] == 1)


@pytest.mark.parametrize(
    ("thresholds", "expected"), [(None, [0.95, 0.7, 0.4]), ((0.9, 0.5, 0.1), [0.9, 0.5, 0.4])]
)
def test_thresholds_recalibrate(thresholds, expected):
    r = three_distinct(thresholds=thresholds)
    assert r.method_state["confidences"][0] == pytest.approx(expected)


def test_include_own_previous_adds_the_agents_own_output():
    r = three_distinct(include_own_previous=True)
    by_id = {t["id"]: t for t in r.turns}
    assert by_id["r1:a3"]["reads"] == ["r0:a3", "r0:a1"]
    assert "Your own answer in the previous round" in by_id["r1:a3"]["prompt"]
    # The own output is not an edge of the debate graph.
    assert r.method_state["mdm"]["reads"] == [1, 1, 1]


def test_cut_off_agent_rereads_only_its_own_output():
    r = three_distinct(confidences=(0.95, 0.7, 0.4))
    attacked = dg.run("q?", method="cortex", agents=3, rounds=1, cut_off=["a1"],
                      models=models(*[[reply(w, i, 0.9)] * 2 for i, w in
                                     enumerate(["alpha", "beta", "gamma"])]),
                      options={"embeddings": KeywordEmbeddings(VECTORS)})  # fmt: skip
    assert r.turns[3]["reads"] == ["r0:a2"]
    assert attacked.turns[3]["reads"] == ["r0:a1"]
    assert attacked.method_state["mdm"]["reads"][0] == 0


# --- stopping and the final vote ----------------------------------------------------------------


def test_consensus_stops_early():
    scripts = [
        [reply("alpha", 1, 0.9), reply("alpha", 7, 0.9)],
        [reply("beta", 2, 0.9), reply("beta", 7, 0.9)],
        [reply("gamma", 7, 0.9), reply("gamma", 7, 0.9)],
    ]
    r = dg.run("q?", method="cortex", agents=3, models=models(*scripts),
               options={"embeddings": KeywordEmbeddings(VECTORS)})  # fmt: skip
    assert r.rounds == 1 and r.answer == "7"
    assert len(r.method_state["graphs"]) == 1 and len(r.turns) == 6


def test_all_different_answers_give_no_answer_unless_fallback():
    r = three_distinct(rounds=2)
    assert r.rounds == 2
    assert r.answer is None and r.decision["evidence"]["reason"] == "all answers differ"
    fallback = three_distinct(rounds=2, fallback_vote=True)
    assert fallback.answer == "1"  # tie policy "first": a1's answer
    assert fallback.decision["evidence"]["tie"] is True


def test_unparseable_confidence_is_neutral_and_counted():
    scripts = [
        [reply("alpha", 1, 0.95), reply("alpha", 1)],
        [reply("beta", 2), reply("beta", 2)],
        [reply("gamma", 3, 0.2), reply("gamma", 3, 0.2)],
    ]
    r = dg.run("q?", method="cortex", agents=3, rounds=1, models=models(*scripts),
               options={"embeddings": KeywordEmbeddings(VECTORS)})  # fmt: skip
    assert r.method_state["confidences"] == [[0.8, 0.5, 0.3], [0.5, 0.5, 0.3]]
    assert r.method_state["unparsed_confidences"] == 3
    assert r.to_dict()["method_state"]["unparsed_confidences"] == 3


# --- credibility from model labels --------------------------------------------------------------


def test_heterogeneous_credibility_comes_from_the_model_labels():
    names = ("Qwen/Qwen2.5-7B-Instruct", "gemma-2-2b", "llama-3.1-8b")
    r = dg.run("q?", method="cortex", agents=3, rounds=0,
               models=models(*[[reply(w, 1, 0.9)] for w in VECTORS], names=names),
               options={"embeddings": KeywordEmbeddings(VECTORS)})  # fmt: skip
    expected = [credibility(*lookup_model_size(n)) for n in names]
    assert r.method_state["credibilities"] == pytest.approx(expected)
    assert len(set(r.method_state["credibilities"])) == 3


def test_simulated_agents_get_credibility_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnknownModelSizeWarning)
        replay = dg.run(ARITH, method="cortex", rounds=0)
        plain = dg.run(ARITH, method="cortex", rounds=0, models="simulated:replay=none")
    six, big = credibility(*MODEL_SIZES["gpt3-6b"]), credibility(*MODEL_SIZES["gpt3-175b"])
    assert replay.method_state["credibilities"] == pytest.approx([six, six, big, big, six])
    assert len(set(plain.method_state["credibilities"])) == 1


# --- options ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"smoothing": "half"}, "smoothing must be one of"),
        ({"participation": "both"}, "participation must be one of"),
        ({"prune": "best"}, "prune must be one of"),
        ({"k": 0}, "k must be an integer"),
        ({"thresholds": (0.3, 0.6, 0.8)}, "t0 > t1 > t2"),
        ({"thresholds": "0.8"}, "thresholds must be three numbers"),
        ({"use_intimacy": "no"}, "use_intimacy must be true or false"),
        ({"k": 1.5}, "k must be an integer"),
        ({"embeddings": "word2vec"}, "bad embeddings"),
        ({"embeddings": "openai:text-embedding-3-large"}, "OPENAI_API_KEY"),
        ({"colour": "red"}, "unknown option(s) 'colour'; valid: embeddings, thresholds"),
    ],
)
def test_bad_options_are_config_errors(options, message):
    with pytest.raises(dg.DebateConfigError, match="cortex options") as info:
        dg.run(ARITH, method="cortex", options=options)
    assert message in str(info.value)


def test_options_from_command_line_pairs():
    opts = CortexOptions.from_pairs(
        ["thresholds=none", "smoothing=literal", "k=2", "use-intimacy=off", "embeddings=hashing:64"]
    )
    assert opts.thresholds is None and opts.smoothing == "literal" and opts.k == 2
    assert opts.use_intimacy is False and opts.embeddings == "hashing:64"
    assert CortexOptions.from_pairs(["thresholds=0.9,0.7,0.2"]).thresholds == (0.9, 0.7, 0.2)
    with pytest.raises(ValueError, match="true or false"):
        CortexOptions.from_pairs(["fallback_vote=maybe"])


def test_options_in_context_accept_a_dict():
    ctx = dg.DebateContext(method_options={"prune": "all"})  # as LangGraph Studio sends it
    options = dg.get_method("cortex").options_for(ctx)
    assert isinstance(options, CortexOptions) and options.prune == "all"
    assert options.k == CortexOptions().k
    with pytest.raises(dg.DebateConfigError, match="cortex options: unknown option"):
        dg.get_method("cortex").options_for(dg.DebateContext(method_options={"pruning": "x"}))


def test_configure_sets_object_valued_defaults_that_the_context_refines():
    embeddings = KeywordEmbeddings(VECTORS)
    method = dg.get_method("cortex").configure(embeddings=embeddings, prune="all")
    options = method.options_for(dg.DebateContext(method_options={"k": 2}))
    assert options.embeddings is embeddings and options.prune == "all" and options.k == 2
    scripts = [[reply(w, i, 0.9)] * 2 for i, w in enumerate(VECTORS)]
    r = dg.run("q?", method=method, agents=3, rounds=1, models=models(*scripts))
    assert all(len(t["reads"]) == 2 for t in r.turns if t["round"] == 1)


# --- command line -------------------------------------------------------------------------------


def test_cli_graph_png_writes_one_picture_per_round_and_json_has_edges(tmp_path):
    pytest.importorskip("matplotlib")
    question = load_gsm8k_bundled()[0].question
    args = ["run", "--method", "cortex", "--rounds", "2", "--json", "--graph-png", str(tmp_path)]
    out = runner.invoke(app, [*args, "--option", "smoothing=literal", question])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    pngs = sorted(p.name for p in tmp_path.iterdir())
    assert d["rounds"] == 2 and pngs == ["cortex-round-1.png", "cortex-round-2.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in tmp_path.iterdir())
    graphs = d["method_state"]["graphs"]
    assert [g["round"] for g in graphs] == [1, 2] and len(graphs[0]["edges"]) == 20
    assert graphs[0]["edges"][0]["weight"] == "inf"  # literal smoothing, JSON-safe
    assert set(graphs[0]["edges"][0]) == {"head", "tail", "weight", "kept"}


def test_cli_graph_png_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    out = runner.invoke(app, ["run", "--method", "cortex", "--graph-png", str(tmp_path), ARITH])
    assert out.exit_code == 2
    assert "debategraph[plots]" in " ".join(out.stderr.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--option", "prune=best"], "prune must be one of"),
        (["--option", "k"], "KEY=VALUE"),
        (["--option", "nope=1"], "cortex options: unknown option(s) 'nope'"),
        (["--option", "thresholds=0.1,0.5"], "three finite numbers"),
        (["--option", "k=two"], "k must be an integer"),
        (["--method", "du", "--option", "k=2"], "du options: unknown option(s) 'k'; valid: none"),
    ],
)
def test_cli_bad_method_options_exit_2(args, message):
    method = [] if "--method" in args else ["--method", "cortex"]
    out = runner.invoke(app, ["run", *method, *args, ARITH])
    assert out.exit_code == 2, out.output
    assert message in " ".join(out.stderr.split())


def test_cortex_is_exported_for_studio():
    from debategraph.graphs import studio

    assert studio.cortex.name == "cortex"
