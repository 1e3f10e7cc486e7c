"""Stage 3, analysis: pure computation over result rows (metrics, statistics, comparisons)."""
