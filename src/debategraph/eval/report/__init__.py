"""Stage 4, report: the tables, plots and Markdown/HTML made from the analysis."""
