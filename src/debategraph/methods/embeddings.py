"""Embeddings for methods that compare answers by meaning (CortexDebate, S²-MAD).

A method takes an embeddings setting as a JSON-safe spec (:data:`EmbeddingsSpec`), checks it
before any call (:func:`check_embeddings`) and gets the embeddings object with
:func:`embeddings_for`; :func:`parse_embeddings_spec` reads the command-line form.
"""

from debategraph.models.embeddings import (
    EmbeddingsSpec,
    check_embeddings,
    embeddings_for,
    parse_embeddings_spec,
)

__all__ = ["EmbeddingsSpec", "check_embeddings", "embeddings_for", "parse_embeddings_spec"]
