"""``hydra/launcher=parallel``: Hydra's joblib launcher, its jobs dispatched round robin over the
extractors (:func:`~.dispatch.dispatch_order`) so that a worker does not wait for another's fit.

The class keeps Hydra's name (``JoblibLauncher``): the results store labels a sweep by its
launcher class (``joblib, 2 jobs``), and this is the same launcher with another dispatch order.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, configure_log, filter_overrides, setup_globals
from hydra_plugins.hydra_joblib_launcher import joblib_launcher
from hydra_plugins.hydra_joblib_launcher._core import execute_job, process_joblib_cfg
from joblib import Parallel, delayed

from .dispatch import dispatch_order

log = logging.getLogger(__name__)


class JoblibLauncher(joblib_launcher.JoblibLauncher):
    """Hydra's joblib (loky) launcher with :func:`~.dispatch.dispatch_order`'s order."""

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        """Run every job, ``pre_dispatch`` at a time in dispatch order; return them in job order."""
        setup_globals()
        assert self.config is not None and self.task_function is not None and self.hydra_context is not None
        configure_log(self.config.hydra.hydra_logging, self.config.hydra.verbose)
        sweep_dir = Path(str(self.config.hydra.sweep.dir))
        sweep_dir.mkdir(parents=True, exist_ok=True)
        settings = {**self.joblib, "backend": "loky"}  # Hydra's launcher insists on loky too
        process_joblib_cfg(settings)
        order = dispatch_order(job_overrides)
        log.info(
            "Joblib.Parallel(%s) is launching %d jobs", ",".join(f"{k}={v}" for k, v in settings.items()), len(order)
        )
        log.info("Launching jobs, sweep output dir : %s", sweep_dir)
        for position in order:
            overrides = " ".join(filter_overrides(job_overrides[position]))
            log.info("\t#%d : %s", initial_job_idx + position, overrides)
        state = Singleton.get_state()
        done = Parallel(**settings)(
            delayed(execute_job)(
                initial_job_idx + position,
                job_overrides[position],
                self.hydra_context,
                self.config,
                self.task_function,
                state,
            )
            for position in order
        )
        by_position = dict(zip(order, done, strict=True))
        return [by_position[position] for position in range(len(job_overrides))]
