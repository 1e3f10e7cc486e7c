"""The ``debategraph`` console script: Ctrl-C is answered from its first moment.

Importing the command line takes a few hundred milliseconds; a Ctrl-C in that time ends the
process with one line and exit status 130, not a traceback. The command line itself lives
in :mod:`debategraph.cli`.
"""

from __future__ import annotations

import signal
import sys


def main() -> None:
    """Run the command line (``debategraph.cli.main``)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        from debategraph.cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    cli_main()
