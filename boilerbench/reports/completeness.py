"""The store's completeness check: every job of every experiment that ``make reports`` runs has a
row in the results store whose ``run_key`` is the key HEAD gives that job (its config, the code
versions of the runner, extractor and loader, the packages and the pages:
:func:`boilerbench.experiments.reuse.run_identity`). A job without such a row is listed: a
setting an experiment gained, a sweep never run, or a row whose code, data or packages changed
since. ``--check`` (:mod:`boilerbench.reports.stale`) reads code versions only and runs nothing;
this reads the data (``BOILERBENCH_DATA``) and runs no extractor.

``boilerbench report --complete [RUNS_CSV] [--experiments a,b]``: one line per job without its
row, a count per experiment on stderr; exit 1 if any."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from unittest import mock

from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import DictConfig, OmegaConf, open_dict

from boilerbench.conf import CONF_DIR
from boilerbench.configs import build
from boilerbench.datasets.base import Dataset, Split
from boilerbench.experiments.protocols import configured_protocol
from boilerbench.experiments.reuse import page_digest, run_identity
from boilerbench.extractors import base as contract


@dataclass(frozen=True)
class Job:
    """One job of an experiment's sweep: the experiment's name and the job's overrides."""

    experiment: str
    overrides: tuple[str, ...]


def sweep_jobs(params: dict[str, str]) -> list[tuple[str, ...]]:
    """The jobs of a sweep's ``hydra.sweeper.params`` (``{"extractor": "a,b", "dataset": "x"}``):
    the product of each key's values, in Hydra's basic sweeper's order (the first key slowest)."""
    parsed = OverridesParser.create().parse_overrides([f"{k}={v}" for k, v in params.items()])
    choices = [
        [f"{o.get_key_element()}={v}" for v in o.sweep_string_iterator()]
        if o.is_sweep_override()
        else [f"{o.get_key_element()}={o.get_value_element_as_str()}"]
        for o in parsed
    ]
    return [tuple(job) for job in itertools.product(*choices)]


def experiment_jobs(experiment: str) -> list[Job]:
    """Every job that ``python run.py experiment=<experiment>`` launches."""
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[f"experiment={experiment}"], return_hydra_config=True)
    params = OmegaConf.to_container(cfg.hydra.sweeper.params, resolve=False) or {}
    assert isinstance(params, dict)
    return [Job(experiment, overrides) for overrides in sweep_jobs({str(k): str(v) for k, v in params.items()})]


@contextmanager
def job_config(job: Job) -> Iterator[DictConfig]:
    """The job's config as its run receives it (the experiment, then the job's overrides), with
    Hydra's own config set as in the job's process for the time of the block (the ``${hydra:...}``
    interpolations of ``paths``, the config choices the protocols read) and restored after it."""
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[f"experiment={job.experiment}", *job.overrides], return_hydra_config=True)
    hydra = HydraConfig.instance()
    previous = hydra.cfg
    hydra.set_config(cfg)
    try:
        with open_dict(cfg):
            del cfg["hydra"]
        yield cfg
    finally:
        hydra.cfg = previous


def job_run_key(cfg: DictConfig) -> str:
    """The ``run_key`` the runner gives a job of config ``cfg`` (inside :func:`job_config`): the
    extractor and dataset built, the pages read and planned by the job's protocol, nothing fitted
    or extracted. The steps are :func:`boilerbench.experiments.runner.run`'s, called here rather
    than factored out of it: the runner's code version enters every run key, so moving them would
    invalidate every run."""
    extractor, dataset = build(cfg.extractor), build(cfg.dataset)
    split = dataset.load()
    protocol = configured_protocol(cfg).resolve(cfg, split, contract.tags(extractor).learns)
    plan = protocol.plan(cfg, split)
    return run_identity(cfg, extractor, dataset, page_digest(plan.split))


@contextmanager
def shared_loads() -> Iterator[None]:
    """Within, each dataset (same class and settings) is read from disk once and its split shared
    between the jobs planned: the check reads and hashes pages, never changes them."""
    loaded: dict[tuple, Split] = {}
    original = Dataset.load

    def load(self: Dataset) -> Split:
        key = (type(self).__qualname__, *sorted((k, repr(v)) for k, v in vars(self).items()))
        if key not in loaded:
            loaded[key] = original(self)
        return loaded[key]

    with mock.patch.object(Dataset, "load", load):
        yield


def key_of_job(job: Job) -> str:
    """The job's run key (:func:`job_run_key` of :func:`job_config`)."""
    with job_config(job) as cfg:
        return job_run_key(cfg)


@dataclass(frozen=True)
class Missing:
    """A job whose run key no row of the store holds, or that could not be planned (``error``)."""

    job: Job
    key: str
    error: str = ""

    def line(self) -> str:
        why = f"cannot plan: {self.error}" if self.error else f"no row with run key {self.key}"
        return f"missing: {self.job.experiment} {' '.join(self.job.overrides)}: {why}"


def missing_jobs(jobs: list[Job], store_keys: set[str], key_of: Callable[[Job], str]) -> list[Missing]:
    """The jobs whose key (``key_of``) is not in ``store_keys``; a job that raises is missing
    with its error (one job's bad config does not hide the others)."""
    missing = []
    for job in jobs:
        try:
            key = key_of(job)
        except Exception as err:  # noqa: BLE001 - reported per job, the check goes on
            missing.append(Missing(job, "", f"{type(err).__name__}: {err}"))
            continue
        if key not in store_keys:
            missing.append(Missing(job, key))
    return missing


def check_complete(store_keys: set[str], experiments: list[str]) -> int:
    """``--complete``: one line per missing job on stdout, a count per experiment on stderr;
    exit 1 if any job is missing."""
    total = found = 0
    with shared_loads():
        for experiment in experiments:
            jobs = experiment_jobs(experiment)
            missing = missing_jobs(jobs, store_keys, key_of_job)
            for item in missing:
                print(item.line(), flush=True)
            print(f"{experiment}: {len(jobs) - len(missing)} of {len(jobs)} jobs in the store", file=sys.stderr)
            total += len(jobs)
            found += len(jobs) - len(missing)
    print(f"{found} of {total} jobs have their row (run key) in the store", file=sys.stderr)
    return 0 if found == total else 1
