"""The runner: fit, extract, score, write results."""

from boilerbench.experiments.runner import run

__all__ = ["run"]
