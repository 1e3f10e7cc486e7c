"""``python -m debategraph``: the command line."""

from debategraph.cli import main

main()
