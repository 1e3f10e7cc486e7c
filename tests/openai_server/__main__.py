"""``python -m tests.openai_server``: see :func:`tests.openai_server.cli.main`."""

from tests.openai_server.cli import main

main()
