"""``boilerbench``: the one command-line tool, with a subcommand per task (as ``git`` or ``pip``).

    boilerbench run OVERRIDES...        one (extractor, dataset) run, or a sweep with -m (Hydra; = python run.py)
    boilerbench extract INPUT...        the main text of your own pages (boilerbench.cli)
    boilerbench report [RUN_DIRS...]    every table and figure from the runs (boilerbench.reports)
    boilerbench compare RUN_A RUN_B     paired comparison of runs page by page
    boilerbench inspect RUN [RUN2] -o DIR   the per-page viewer
    boilerbench cache info|clear|verify the artefact and model caches

Each subcommand parses its own arguments (``boilerbench NAME --help``) and is imported only when
named, so that ``boilerbench extract`` does not pay for Hydra or matplotlib. This is the top
floor: nothing in the package imports it.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from boilerbench import __version__
from boilerbench.cpu_kernels import pin_cpu_kernels

# every entry point (python run.py, the boilerbench command) comes through here before any torch
# work: a fit gives the same numbers on an AVX-512 machine as on an AVX2 one
pin_cpu_kernels()


@dataclass(frozen=True)
class Command:
    """A subcommand: the module whose ``main(argv) -> int`` runs it, and a one-line summary."""

    module: str
    summary: str


COMMANDS = {
    "run": Command("boilerbench.commands.run", "one (extractor, dataset) job, or a sweep with -m (Hydra overrides)"),
    "extract": Command("boilerbench.cli", "extract the main text of HTML pages (files, folders, JSONL, WARC)"),
    "report": Command("boilerbench.reports.__main__", "build every table and figure from the runs"),
    "compare": Command("boilerbench.reports.compare", "compare runs on the same pages, figure by figure"),
    "inspect": Command("boilerbench.reports.inspect", "write the per-page viewer of one run, or two side by side"),
    "cache": Command("boilerbench.commands.cache", "show, clear or verify the artefact and model caches"),
}


def usage() -> str:
    """The top-level help: one line per subcommand."""
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {command.summary}" for name, command in COMMANDS.items()]
    return "\n".join(
        [
            "usage: boilerbench COMMAND [ARGS...]   (boilerbench COMMAND --help for its options)",
            "",
            "Main-content extraction from web pages: benchmarks, extraction, reports.",
            "",
            "commands:",
            *lines,
            "",
            "  --version  print the version",
        ]
    )


def _unknown(name: str) -> str:
    """The one-line error for a word that is no subcommand; a page or URL given without ``extract``
    (the tool's first form) is pointed at it."""
    if re.match(r"^[a-z][a-z0-9+.-]*://", name, re.IGNORECASE) or "." in name or "/" in name or name == "-":
        return f"error: boilerbench: {name!r} is not a command; to extract pages: boilerbench extract {name} ..."
    return f"error: boilerbench: unknown command {name!r}; choose one of: {', '.join(COMMANDS)}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the subcommand named first in ``argv`` (default: the command line); its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    if args[0] == "--version":
        print(f"boilerbench {__version__}")
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        print(_unknown(args[0]), file=sys.stderr)
        return 2
    return int(importlib.import_module(command.module).main(args[1:]) or 0)
