"""The files of a results directory, by name."""

RESULTS_FILE = "results.jsonl"
"""The rows, one line per (method, item, seed) (:mod:`debategraph.eval.log.store`)."""

MANIFEST_FILE = "run.json"
"""The run manifest: the settings the rows were made with."""

INTERRUPTED_FILE = "interrupted.jsonl"
"""The ledger of spend kept beside the rows (:mod:`debategraph.eval.log.ledger`)."""

SPEND_NOTES_FILE = "spend.jsonl"
"""The spend notes written ahead, as requests and replies happen (see the ledger)."""

SPEND_NOTES_DIR = "spend"
"""Spend notes that Ray workers wrote themselves: ``spend/<run>/<worker>.jsonl``, one writer
per file (see the ledger)."""
