"""Moved to :mod:`debategraph.methods.madm2`; this path is removed in 0.3."""

from debategraph._compat import moved

__getattr__ = moved(__name__, "debategraph.methods.madm2")
