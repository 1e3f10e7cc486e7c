"""Compiled, checkpointer-free graphs for ``langgraph.json`` (LangGraph Studio / ``langgraph dev``).

Each graph is built for its method's default roster (``a1`` .. ``aN``). A run whose context
asks for another number of agents is refused with a message saying how to build a graph for
it. Library users should call ``build_debate_graph`` and compile it themselves; these exist so
that the server, which brings its own persistence, can load every built-in method.
"""

from debategraph.graphs.debate import build_debate_graph

cot = build_debate_graph("cot").compile(name="cot")
sc = build_debate_graph("sc").compile(name="sc")
mav = build_debate_graph("mav").compile(name="mav")
du = build_debate_graph("du").compile(name="du")
ring = build_debate_graph("ring").compile(name="ring")
freemad_n = build_debate_graph("freemad-n").compile(name="freemad-n")
freemad_c = build_debate_graph("freemad-c").compile(name="freemad-c")
reconcile = build_debate_graph("reconcile").compile(name="reconcile")
cortex = build_debate_graph("cortex").compile(name="cortex")
svr = build_debate_graph("svr").compile(name="svr")
groupdebate = build_debate_graph("groupdebate").compile(name="groupdebate")
du_sum = build_debate_graph("du-sum").compile(name="du-sum")
chateval = build_debate_graph("chateval").compile(name="chateval")
madm2_s = build_debate_graph("madm2-s").compile(name="madm2-s")
madm2_o = build_debate_graph("madm2-o").compile(name="madm2-o")
mad = build_debate_graph("mad").compile(name="mad")
