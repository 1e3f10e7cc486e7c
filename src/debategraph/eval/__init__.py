"""Evaluation harness: question sets, metrics over result rows, and Markdown/PNG reports.

``datasets`` loads and samples question sets (the bundled GSM8K split and Du et al.'s
arithmetic task work offline; the others go through the Hugging Face ``datasets`` library).
``metrics`` summarises result rows per method; ``report`` turns a results directory into
``report.md`` and plots. ``runner`` runs methods over items concurrently and resumably,
writing rows through ``store`` (``results.jsonl`` and ``run.json``); ``progress`` draws its
progress bars and ``commands`` holds ``debategraph eval`` and ``debategraph report``.
"""
