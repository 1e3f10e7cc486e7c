"""Stage 2, log: the results row and the files a run writes (results, manifest, spend ledger)."""
