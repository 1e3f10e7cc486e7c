"""The ``debategraph`` console script: Ctrl-C is answered from its first moment.

Importing the command line takes a few hundred milliseconds. Until it is imported, the
package's guard (installed by ``debategraph/__init__.py`` when the process is the command
line, and here again for other launchers or a parent that ignored SIGINT) answers a Ctrl-C
with one line, ``interrupted``, and exit status 130: there is nothing to save yet. The command
line then hands SIGINT back to ``KeyboardInterrupt`` inside its own handling, so a running
evaluation cancels its work and keeps its rows. It lives in :mod:`debategraph.cli`.
"""

from __future__ import annotations

import gc
import signal

from debategraph import _interrupted_while_starting


def main() -> None:
    """Run the command line (``debategraph.cli.main``).

    The cyclic garbage collector is off while the command's libraries load: they make few
    cycles but many objects, and the collections they would trigger cost about a fifth of
    the start-up's CPU. The command line turns it back on once it has frozen that heap.
    """
    gc.disable()
    signal.signal(signal.SIGINT, _interrupted_while_starting)
    from debategraph.cli import main as cli_main

    cli_main()
