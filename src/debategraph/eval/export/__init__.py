"""Stage 5, export: a finished run written out for other tools (Inspect, LangSmith)."""
