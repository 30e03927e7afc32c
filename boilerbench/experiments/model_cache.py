"""Cache of fitted models: re-running the same command does not retrain.

A fitted extractor is stored under ``model_dir/<name>/<key>``, the key hashing the extractor's
config, the dataset, the split and the ids of its training and validation pages (so a fold
of a cross-validation is its own entry). It is saved into a temporary folder that is renamed
into place once complete.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from boilerbench.datasets.base import Split
from boilerbench.datasets.cache import content_key
from boilerbench.extractors.base import Persistent


def model_key(extractor_config: Mapping, dataset: str, split: Split) -> str:
    """Hex key of a fitted model's identity (config, dataset, split and its training pages)."""
    description = json.dumps(
        {
            "extractor": extractor_config,
            "dataset": dataset,
            "split": split.name,
            "train": [p.id for p in split.train],
            "validation": [p.id for p in split.validation],
        },
        sort_keys=True,
        default=str,
    )
    return content_key(description)[:24]


def load_cached(extractor: Persistent, directory: Path) -> bool:
    """Load ``extractor`` from ``directory`` if a complete saved model is there."""
    if not directory.is_dir():
        return False
    extractor.load(directory)
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
