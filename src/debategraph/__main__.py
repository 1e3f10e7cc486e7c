"""``python -m debategraph``: the command line."""

from debategraph.entry import main

main()
