"""Cache of fitted models: re-running the same command does not retrain.

A fitted extractor is stored under ``model_dir/<name>/<key>``. The key hashes the extractor's
config, the dataset, the split and the ids of its training and validation pages (so a fold of
a cross-validation is its own entry), and the code version of the extractor's module
(:func:`boilerbench.cache.code_version`: its source and that of every project module it
imports), so that a change to an extractor's features or training makes a new model instead of
reusing one that the code no longer makes. A model is saved into a temporary folder that is
renamed into place once complete; one that fails to load is refitted, with a logged warning.
Two processes that need the same model (parallel jobs of a sweep) take turns through a lock
file: the second waits for the first to save it, then loads it, instead of fitting it again.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import Timeout

from boilerbench.cache import code_version, content_key, lock_file
from boilerbench.datasets.base import Split
from boilerbench.extractors.base import Persistent, dependency_versions

log = logging.getLogger(__name__)


def extractor_version(extractor: object) -> str:
    """The code version of the module that defines the extractor's class, combined with the
    versions of what its output further depends on (:func:`~boilerbench.extractors.base.dependency_versions`:
    an ensemble's or a stack's members, which are given to it, not imported)."""
    version = code_version(type(extractor).__module__)
    dependencies = dependency_versions(extractor)
    return content_key(version, *dependencies)[:16] if dependencies else version


def model_key(extractor_config: object, dataset: str, split: Split, version: str, **extra: object) -> str:
    """Hex key of a fitted model's identity: config, dataset, split, its training and validation
    pages, the code ``version`` and any ``extra`` identity (a mixture's weights)."""
    description = json.dumps(
        {
            "extractor": extractor_config,
            "dataset": dataset,
            "split": split.name,
            "train": [p.id for p in split.train],
            "validation": [p.id for p in split.validation],
            "code_version": version,
            **extra,
        },
        sort_keys=True,
        default=str,
    )
    return content_key(description)[:24]


def load_cached(extractor: Persistent, directory: Path) -> bool:
    """Load ``extractor`` from ``directory`` if a saved model is there. A model that cannot be
    loaded (a corrupt or incompatible file) is reported with a warning and False is returned, so
    that the caller refits; it is never half-used."""
    if not directory.is_dir():
        return False
    try:
        extractor.load(directory)
    except Exception as err:  # any failure to load means "not cached": refit, never crash
        log.warning("could not load the cached model in %s (%s: %s); refitting", directory, type(err).__name__, err)
        return False
    return True


def save_cached(extractor: Persistent, directory: Path) -> None:
    """Save ``extractor`` into ``directory`` atomically (temporary folder, then rename)."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    try:
        extractor.save(staging)
        if directory.exists():
            shutil.rmtree(directory)
        staging.rename(directory)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@contextmanager
def model_lock(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on the model ``directory`` (``model_dir/<name>/<key>``) for the time
    of a load-or-fit, waiting (with a log line) while another process holds it. The lock file is
    ``model_dir/.locks/<name>.<key>``, out of the models' folders; the lock is released when the
    process ends, however it ends (:func:`boilerbench.cache.lock_file`)."""
    locks = directory.parent.parent / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    lock = lock_file(locks / f"{directory.parent.name}.{directory.name}")
    try:
        lock.acquire(blocking=False)
    except Timeout:
        log.info("another process is fitting the model in %s; waiting for it", directory)
        lock.acquire()
    try:
        yield
    finally:
        lock.release()
