"""The subcommands' argument parser: a usage error is one line on standard error, exit status 2."""

from __future__ import annotations

import argparse
from typing import NoReturn


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit status 2) instead of the usage text and the error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message}\n")
