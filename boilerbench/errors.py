"""Errors that the command line reports as one clear message, without a traceback."""

import argparse
import importlib
from types import ModuleType
from typing import NoReturn


class BoilerbenchError(Exception):
    """Base class: a user-facing problem (missing data, bad config value)."""


class DatasetNotFoundError(BoilerbenchError):
    """A dataset folder is missing or incomplete and could not be downloaded."""


class DatasetIntegrityError(BoilerbenchError):
    """A dataset's files do not match its checksum manifest (missing or changed files)."""


class ConfigError(BoilerbenchError):
    """A configuration value is not one of the valid options."""


class UsageError(BoilerbenchError):
    """A wrong command line or environment (a missing input or model file, a bad option): exit status 2."""


class TrainingDataError(BoilerbenchError, ValueError):
    """The training pages a run gives a learned extractor cannot train it (no text, one class only):
    one line naming what it needs, as a configuration error (a ``ValueError`` too, for callers of ``fit``)."""


#: The longest error string a page's row keeps.
MAX_ERROR_CHARS = 500


def describe(err: BaseException) -> str:
    """The one way a page's error is written in its row (``pages.csv``, ``boilerbench extract``'s
    rows): ``Type: message``, cut at :data:`MAX_ERROR_CHARS` characters."""
    return f"{type(err).__name__}: {err}"[:MAX_ERROR_CHARS]


def check_choice(name: str, value: object, options: "tuple | list") -> None:
    """Raise :class:`ConfigError` naming the valid options when ``value`` is not one of them."""
    if value not in options:
        listed = ", ".join(str(o) for o in options)
        raise ConfigError(f"{name}={value!r} is not valid; choose one of: {listed}")


class MissingDependencyError(BoilerbenchError):
    """An optional package that the selected component needs is not installed."""


def import_optional(module: str, distribution: str, how: str) -> ModuleType:
    """Import ``module`` of an optional package or raise :class:`MissingDependencyError` naming
    the package (``distribution``) and ``how`` to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise MissingDependencyError(
            f"this extractor needs the package {distribution!r}, which is not installed ({err}); {how}"
        ) from err


class ArgumentParser(argparse.ArgumentParser):
    """argparse for the ``boilerbench`` subcommands: a usage error is one line on standard error
    (``error: PROG: MESSAGE``), exit status 2, instead of the usage text and the error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message}\n")
