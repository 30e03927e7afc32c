"""The error-rate gate of an experiment whose extractors decline some of its pages by design.

The experiments behind the results run every extractor on every dataset, and some extractors
cannot handle some languages: jusText has no stoplist for Chinese or Japanese
(``NoStoplistError``), newspaper4k needs packages outside its base install for Korean and
Japanese text. Each such page is still a row with its error, scored as an empty extraction (the
tables show what a user of that extractor gets on those pages), but it is no fault of the run, and
the plain gate (:class:`~boilerbench.experiments.gate.ErrorRateGate`) would end the sweep with
exit status 1, so that ``make reports`` would end in failure on a complete regeneration.

:class:`DeclinedPagesGate` is that gate, less the errors that match one of the experiment's
``declined`` patterns (regular expressions matched at the start of a page's error text, as
``pages.csv`` records it): a job fails when its other errors exceed its ``max_error_rate``, and the
declined pages are counted on stderr. An experiment opts in with
``- /gate: declined_pages`` in its defaults (``conf/gate/declined_pages.yaml``
holds the patterns); the callback is Hydra's, so it enters no run key.

A subclass in a module of its own, not an option of the plain gate: ``gate.py`` is imported by
the runner, so its code is part of every run's key, and changing it would make every row of the
results store stale.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from boilerbench.experiments.gate import ErrorRateGate, gate_message
from boilerbench.experiments.results import RunFileError, read_pages, read_summary


def declined_count(errors: Sequence[str], declined: Sequence[re.Pattern[str]]) -> int:
    """How many of the pages' ``errors`` ("" where a page has none) match a ``declined`` pattern."""
    return sum(1 for error in errors if error and any(p.match(error) for p in declined))


class DeclinedPagesGate(ErrorRateGate):
    """Ends a multirun with exit status 1 when a job written during it had more errors than its
    ``max_error_rate`` besides the pages it declined (errors matching ``declined``)."""

    def __init__(self, declined: Sequence[str] = ()) -> None:
        super().__init__()
        self.declined = [re.compile(pattern) for pattern in declined]

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        failed, declined = [], []
        for path in sorted(Path(config.hydra.sweep.dir).rglob("summary.json")):
            if path.stat().st_mtime < self.started:
                continue  # a job of an earlier sweep into the same folder
            try:
                summary = read_summary(path)
                errors = list(read_pages(path.parent / "pages.csv")["error"]) if summary.get("n_errors") else []
            except (OSError, ValueError, KeyError, RunFileError):
                continue
            n_declined = declined_count(errors, self.declined)
            if n_declined:
                job = f"{summary['extractor']} on {summary['dataset']}"
                declined.append(f"  {job}: {n_declined} of {summary['n_pages']}")
            rest = (summary["n_errors"] - n_declined) / summary["n_pages"] if summary["n_pages"] else 0.0
            message = gate_message(summary)
            if message and rest > summary["max_error_rate"]:
                failed.append(message)
        if declined:
            print("pages declined by design (not counted against max_error_rate):", file=sys.stderr)
            print("\n".join(declined), file=sys.stderr)
        if failed:
            print(f"{len(failed)} job(s) of this sweep exceeded max_error_rate:", file=sys.stderr)
            for message in failed:
                print(f"  {message}", file=sys.stderr)
            sys.exit(1)
