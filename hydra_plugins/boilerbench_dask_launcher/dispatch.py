"""The order in which a sweep's jobs are handed to the workers.

A sweep lists its jobs extractor by extractor (``extractor=a,b dataset=x,y`` gives a-x, a-y, b-x,
b-y). When an extractor's model is fitted once for all datasets (a training mixture, a cross-dataset
protocol), its jobs share that fit, and dispatched in list order the first two workers take two
jobs of the same extractor: one fits, the other waits on the model's lock
(:func:`boilerbench.experiments.model_cache.model_lock`) for the length of the fit. On a cold
``make reports`` on 2 cores a worker waited about 40 minutes behind BoilerNet's fit, and again
behind the tag-path LSTM's. Dispatching round robin over the groups of jobs that differ only in
their dataset sends the other workers to the other extractors' first jobs meanwhile. Only the
order changes: each job keeps its number (its folder's name) and the sweep returns its results in
job order.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from itertools import chain, zip_longest
from pathlib import Path
from typing import Any

from hydra.core.utils import configure_log, filter_overrides, setup_globals

log = logging.getLogger(__name__)


def override_key(override: str) -> str:
    """The config key an override sets: ``dataset`` for ``dataset=x``, ``+headline=stack`` gives
    ``headline``, ``~paths.cache_dir`` gives ``paths.cache_dir``."""
    return override.partition("=")[0].lstrip("+~")


def dispatch_order(job_overrides: Sequence[Sequence[str]]) -> list[int]:
    """The jobs' positions in dispatch order: round robin over the groups of jobs whose overrides
    are equal but for ``dataset`` (the evaluated dataset; ``dataset@train_dataset`` and
    ``dataset.split`` decide what a model learns from, so they separate groups), groups in order
    of first appearance and each group's jobs in sweep order."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for position, overrides in enumerate(job_overrides):
        group = tuple(o for o in overrides if override_key(o) != "dataset")
        groups.setdefault(group, []).append(position)
    rounds = zip_longest(*groups.values())
    return [position for position in chain.from_iterable(rounds) if position is not None]


def start_sweep(launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int, header: str) -> list[int]:
    """What both launchers do before running a sweep: Hydra's globals and logging, the sweep's
    folder, the ``header`` line (with the sweep's folder after it) and one line per job in dispatch
    order; returns that order (:func:`dispatch_order`)."""
    setup_globals()
    assert launcher.config is not None and launcher.task_function is not None and launcher.hydra_context is not None
    configure_log(launcher.config.hydra.hydra_logging, launcher.config.hydra.verbose)
    sweep_dir = Path(str(launcher.config.hydra.sweep.dir))
    sweep_dir.mkdir(parents=True, exist_ok=True)
    order = dispatch_order(job_overrides)
    log.info("%s, sweep output dir: %s", header, sweep_dir)
    for position in order:
        log.info("\t#%d : %s", initial_job_idx + position, " ".join(filter_overrides(job_overrides[position])))
    return order
