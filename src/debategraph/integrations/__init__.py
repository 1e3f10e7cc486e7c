"""Bridges to the evaluation tools researchers use: LangSmith experiments and Inspect tasks.

Import the submodule you need (``debategraph.integrations.langsmith``,
``debategraph.integrations.inspect``); each imports its tool only when it is imported.
"""
