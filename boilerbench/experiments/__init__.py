"""The runner: fit, extract, score, write results.

``run`` is imported on first use: extracting with a model file reads
:mod:`boilerbench.experiments.model_file`, and importing the runner would import the scoring's
statistics (scipy) at every command-line run's start-up."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boilerbench.experiments.runner import run

__all__ = ["run"]


def __getattr__(name: str) -> Any:
    if name == "run":
        from boilerbench.experiments.runner import run

        return run
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
