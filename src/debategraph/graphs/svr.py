"""Moved to :mod:`debategraph.methods.svr.method`; this path is removed in 0.3."""

from debategraph._compat import moved

__getattr__ = moved(__name__, "debategraph.methods.svr.method")
