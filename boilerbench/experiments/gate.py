"""The error-rate gate: a run where too many pages failed must not pass for a result.

A run whose share of pages with an error exceeds ``max_error_rate`` (default 0.01) still writes
its results, but says so in ``summary.json`` (``error_rate``, ``max_error_rate``,
``error_rate_exceeded``) and ends with exit status 1 and a message naming its first errors
(``run.py``). In a multirun every job runs; :class:`ErrorRateGate`, a Hydra callback, then
ends the sweep with exit status 1 when any of its jobs exceeded the rate.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from boilerbench.experiments.results import RunFileError, read_summary

#: Errors named in the message.
SHOWN_ERRORS = 5


def apply_gate(summary: dict, max_error_rate: float) -> None:
    """Record the run's error rate and whether it exceeds ``max_error_rate`` in ``summary``."""
    rate = summary["n_errors"] / summary["n_pages"] if summary["n_pages"] else 0.0
    summary["error_rate"] = rate
    summary["max_error_rate"] = max_error_rate
    summary["error_rate_exceeded"] = rate > max_error_rate


def gate_message(summary: dict) -> str | None:
    """The message of a run that exceeded its error rate (None when it did not)."""
    if not summary.get("error_rate_exceeded"):
        return None
    first = list(summary.get("errors", {}).items())[:SHOWN_ERRORS]
    named = "; ".join(f"page {page}: {error}" for page, error in first)
    return (
        f"error: {summary['n_errors']} of {summary['n_pages']} pages failed ({100 * summary['error_rate']:.1f} %), "
        f"above max_error_rate={summary['max_error_rate']} ({summary['extractor']} on {summary['dataset']}); "
        f"first errors: {named}. Results were written to {summary.get('output_dir', 'the run folder')}."
    )


class ErrorRateGate(Callback):
    """Ends a multirun with exit status 1 when a job written during it exceeded its error rate."""

    def __init__(self) -> None:
        self.started = time.time()

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self.started = time.time()

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        failed = []
        for path in sorted(Path(config.hydra.sweep.dir).rglob("summary.json")):
            if path.stat().st_mtime < self.started:
                continue  # a job of an earlier sweep into the same folder
            try:
                summary = read_summary(path)
            except (OSError, ValueError, RunFileError):
                continue
            message = gate_message(summary)
            if message:
                failed.append(message)
        if failed:
            print(f"{len(failed)} job(s) of this sweep exceeded max_error_rate:", file=sys.stderr)
            for message in failed:
                print(f"  {message}", file=sys.stderr)
            sys.exit(1)
