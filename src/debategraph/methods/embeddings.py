"""Embeddings for methods that compare answers by meaning (CortexDebate, S²-MAD).

A method takes an embeddings setting as a JSON-safe spec (:data:`EmbeddingsSpec`), checks it
before any call (:func:`check_embeddings`) and gets the embeddings object with
:func:`embeddings_for`; :func:`parse_embeddings_spec` reads the command-line form. Options
deriving from :class:`EmbeddingsOptions` declare the setting with those checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.embeddings import Embeddings

from debategraph.models.embeddings import (
    EmbeddingsSpec,
    check_embeddings,
    embeddings_for,
    parse_embeddings_spec,
)
from debategraph.state.options import MethodOptions

__all__ = [
    "EmbeddingsOptions",
    "EmbeddingsSpec",
    "check_embeddings",
    "embeddings_for",
    "parse_embeddings_spec",
]


@dataclass(frozen=True, kw_only=True)
class EmbeddingsOptions(MethodOptions):
    """Options of a method that embeds responses: the ``embeddings`` setting, checked.

    The spec is parsed on construction; :meth:`check_environment` (run before any call)
    checks, without loading anything, that it can be used here, when
    :attr:`uses_embeddings` says this run embeds anything.

    Attributes:
        embeddings: A spec (``hashing``, ``minilm``, ``openai:<model>``) or any LangChain
            ``Embeddings`` object.
    """

    embeddings: EmbeddingsSpec = "hashing"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.embeddings, Embeddings):
            parse_embeddings_spec(self.embeddings)

    @property
    def uses_embeddings(self) -> bool:
        """Whether a run with these options embeds responses (always, unless overridden)."""
        return True

    def check_environment(self) -> None:
        """Check that the embeddings can be used here, if this run uses them.

        Raises:
            ValueError: ``openai:`` without ``OPENAI_API_KEY``, or ``minilm`` without its
                optional packages.
        """
        if self.uses_embeddings:
            check_embeddings(self.embeddings)
