"""Names of the models debategraph itself provides (no import of the models)."""

SIMULATED = ("simulated", "sim")
"""The spec names of the simulated chat model (``"simulated"``, ``"sim:LABEL"``)."""
