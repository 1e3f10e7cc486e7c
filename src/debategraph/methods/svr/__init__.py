"""SVR-MAD (Jiang et al., arXiv 2605.23099): method ``svr``, its options and bookkeeping."""

from debategraph.methods.svr.method import SVR
from debategraph.methods.svr.options import SvrOptions
from debategraph.methods.svr.state import observe_svr, pair_id

__all__ = ["SVR", "SvrOptions", "observe_svr", "pair_id"]
