"""``python run.py -m ... hydra/launcher=dask [hydra.launcher.address=tcp://HOST:8786]``: a sweep's
jobs (each one (extractor, dataset) run) spread over the workers of a Dask distributed cluster.

Hydra's plugin conventions: this package lives in the ``hydra_plugins`` namespace package (shipped
in the wheel), Hydra imports it when it scans for plugins, and the :class:`~.config.DaskLauncherConf` entry
of its ConfigStore (:mod:`.config`) is the ``dask`` option of the ``hydra/launcher`` group. Each job runs as
Hydra's joblib launcher runs one (``run_job`` with the sweep's config and the Singleton state),
in a worker process.

- ``address``: a running scheduler (``dask scheduler`` and ``dask worker ADDRESS --nthreads 1``
  on each machine, or dask-jobqueue on Slurm / PBS); null starts a ``LocalCluster`` of
  ``n_workers`` processes on this machine for the sweep's time.
- One job per worker thread: start workers with one thread (``--nthreads 1``), since Hydra's job
  state (its config singleton, the logging setup) is per process.
- Every worker needs the project installed (or its checkout on ``PYTHONPATH``), the datasets at the
  paths the configs name, and a shared file system for the sweep folder, the artefact cache and
  the model cache (``paths.*``), exactly as Hydra's Slurm launcher does.

Results are the same as a local sweep's: each job is the same deterministic run
(:func:`boilerbench.experiments.seed.seed_everything`), only its process differs. A job that
exits (``sys.exit`` on a configuration error) ends the sweep with its status and its one-line
message, as a local sweep does.

Dask rather than Ray (``hydra-ray-launcher``): the project already uses Dask distributed for
``boilerbench extract --cluster`` (:mod:`boilerbench.distributed`), it is a pure-Python install,
and dask-jobqueue puts it on the clusters research groups have.
"""

from __future__ import annotations

import contextlib
import io
import logging
import sys
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, run_job, setup_globals
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, open_dict

from .dispatch import start_sweep

log = logging.getLogger(__name__)

#: Seconds to wait for the scheduler at ``address`` to answer.
CONNECT_TIMEOUT_S = 30.0


class JobExited(RuntimeError):
    """A job called ``sys.exit`` (run.py does on a configuration error: exit status 2): its status
    and the last line it wrote on standard error (run.py's one-line message)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message, status)  # both in args: the exception travels pickled to the client

    @property
    def status(self) -> int:
        return int(self.args[1])

    def __str__(self) -> str:
        return str(self.args[0])


def execute_job(
    number: int,
    overrides: Sequence[str],
    hydra_context: HydraContext,
    config: DictConfig,
    task_function: TaskFunction,
    singleton_state: dict[Any, Any],
) -> JobReturn:
    """One job, on a worker: the sweep's config with this job's overrides, then Hydra's ``run_job``."""
    setup_globals()
    Singleton.set_state(singleton_state)
    sweep_config = hydra_context.config_loader.load_sweep_config(config, list(overrides))
    with open_dict(sweep_config):
        sweep_config.hydra.job.id = f"{sweep_config.hydra.job.name}_{number}"
        sweep_config.hydra.job.num = number
    HydraConfig.instance().set_config(sweep_config)
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            return run_job(
                hydra_context=hydra_context,
                config=sweep_config,
                task_function=task_function,
                job_dir_key="hydra.sweep.dir",
                job_subdir_key="hydra.sweep.subdir",
            )
    except SystemExit as exit:  # a worker must not exit: the sweep's process does, with the job's status
        status = exit.code if isinstance(exit.code, int) else 1
        lines = stderr.getvalue().strip().splitlines()
        said = f": {lines[-1]}" if lines else ""
        raise JobExited(f"job {number} ({' '.join(overrides)}) exited with status {status}{said}", status) from None
    finally:
        sys.stderr.write(stderr.getvalue())


@contextmanager
def dask_client(address: str | None, n_workers: int) -> Iterator[Any]:
    """A client of the scheduler at ``address``, or of a local cluster of ``n_workers`` one-thread
    processes started for the time of the block."""
    from distributed import Client, LocalCluster

    if address:
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as err:
            raise ConnectionError(f"no Dask scheduler answered at {address}: {err}") from None
        with client:
            yield client
        return
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True) as cluster, Client(cluster) as client:
        yield client


class DaskLauncher(Launcher):
    """Runs a sweep's jobs as tasks of a Dask distributed cluster (see the module docstring)."""

    def __init__(self, address: str | None = None, n_workers: int = 2) -> None:
        self.address = address
        self.n_workers = n_workers
        self.config: DictConfig | None = None
        self.task_function: TaskFunction | None = None
        self.hydra_context: HydraContext | None = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.config = config
        self.task_function = task_function
        self.hydra_context = hydra_context

    def launch(self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int) -> Sequence[JobReturn]:
        """Submit every job (in :func:`~.dispatch.dispatch_order`, as task priorities), wait for all,
        and return their results in job order."""
        where = self.address or f"a local cluster of {self.n_workers} processes"
        header = f"Dask launcher: {len(job_overrides)} jobs on {where}"
        order = start_sweep(self, job_overrides, initial_job_idx, header)
        state = Singleton.get_state()
        sweep = uuid.uuid4().hex[:8]
        with dask_client(self.address, self.n_workers) as client:
            submitted = {
                position: client.submit(
                    execute_job,
                    initial_job_idx + position,
                    list(job_overrides[position]),
                    self.hydra_context,
                    self.config,
                    self.task_function,
                    state,
                    key=f"hydra-job-{sweep}-{initial_job_idx + position}",
                    pure=False,
                    priority=-rank,
                )
                for rank, position in enumerate(order)
            }
            try:
                results = client.gather([submitted[position] for position in range(len(job_overrides))])
            except JobExited as exited:  # as a local sweep ends: the job's message, its status
                print(exited, file=sys.stderr)
                sys.exit(exited.status)
        assert all(isinstance(r, JobReturn) for r in results)
        return list(results)
