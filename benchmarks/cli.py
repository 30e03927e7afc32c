"""The benchmark scripts' shared entry point: a user-facing error (missing data, a bad option)
is one line on stderr and exit status 2, as with ``run.py``."""

from __future__ import annotations

import sys
from collections.abc import Callable

from boilerbench.errors import BoilerbenchError


def run_main(main: Callable[[list[str]], int]) -> None:
    """Call ``main`` with the command-line arguments and exit with its status."""
    try:
        sys.exit(main(sys.argv[1:]))
    except BoilerbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
