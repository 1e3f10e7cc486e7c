"""Prompt templates in our own wording, one module per method family."""
