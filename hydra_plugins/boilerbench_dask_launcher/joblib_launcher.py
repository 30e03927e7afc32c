"""``hydra/launcher=parallel``: Hydra's joblib launcher, its jobs dispatched round robin over the
extractors (:func:`~.dispatch.dispatch_order`) so that a worker does not wait for another's fit.

The class keeps Hydra's name (``JoblibLauncher``): the results store labels a sweep by its
launcher class (``joblib, 2 jobs``), and this is the same launcher with another dispatch order.
"""

from __future__ import annotations

from collections.abc import Sequence

from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn
from hydra_plugins.hydra_joblib_launcher import joblib_launcher
from hydra_plugins.hydra_joblib_launcher._core import execute_job, process_joblib_cfg
from joblib import Parallel, delayed

from .dispatch import start_sweep


class JoblibLauncher(joblib_launcher.JoblibLauncher):
    """Hydra's joblib (loky) launcher with :func:`~.dispatch.dispatch_order`'s order."""

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        """Run every job, ``pre_dispatch`` at a time in dispatch order; return them in job order."""
        settings = {**self.joblib, "backend": "loky"}  # Hydra's launcher insists on loky too
        process_joblib_cfg(settings)
        joblib_settings = ",".join(f"{k}={v}" for k, v in settings.items())
        header = f"Joblib.Parallel({joblib_settings}) is launching {len(job_overrides)} jobs"
        order = start_sweep(self, job_overrides, initial_job_idx, header)
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
