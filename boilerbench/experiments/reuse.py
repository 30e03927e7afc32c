"""When a run need not run: its output folder already holds the results of this very run.

A run's identity hashes its config (less :data:`VOLATILE_KEYS`), the code versions of the runner
and everything it imports (scoring, segmentation, alignment), of the extractor (with an
ensemble's or a stack's members) and of the dataset loader, the installed packages' versions,
and its data. The data enters in two ways:

- ``quick_key``: before anything is read, the path, size and modification time of every file in
  the datasets' folders (as make judges staleness) and the project's split and manifest files;
- ``run_key``: after loading, every page's id, HTML, gold text, type and snippets.

A job whose folder holds a complete run with the same ``quick_key`` is kept without loading its
pages (about a second); otherwise the pages are loaded and an equal ``run_key`` keeps it (files
touched but unchanged), and the new ``quick_key`` is written into its summary so that the next
check is quick again.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import platform
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from boilerbench.cache import code_version, content_key
from boilerbench.datasets.base import Dataset, Split
from boilerbench.experiments.model_cache import extractor_version
from boilerbench.experiments.results import write_summary

#: Config keys that do not change a run's results (how it runs, not what it computes).
VOLATILE_KEYS = ("progress", "n_workers", "n_jobs", "paths", "rerun")
#: Keys of a dataset config that only say where its files are (the data's identity is hashed
#: from the files or pages themselves), so that a run stays the same run in another checkout.
LOCATION_KEYS = ("data_dir", "root")
#: The project's own data files that decide which pages a split holds.
PROJECT_DATA = Path(__file__).resolve().parents[1] / "datasets"

_PACKAGES = (
    "boilerbench",
    "lxml",
    "numpy",
    "pandas",
    "rapidfuzz",
    "hydra-core",
    "beautifulsoup4",
    "chardet",
    "torch",
    "lightgbm",
    "fastwarc",
)


def reference_packages() -> tuple[str, ...]:
    """The reference adapters' distribution names, read from their package when called.

    Imported here, the adapters would enter the runner's code version (:func:`code_version` follows
    this module's imports), which is part of every run key, and a change to one adapter would rerun
    every job; their code is already in their own extractors' versions, and only the names are read
    here. For the same reason this module takes the package's version from its installed metadata
    rather than ``boilerbench.__version__``: the package's ``__init__`` names the Python API."""
    return tuple(importlib.import_module("boilerbench.extractors.references").REFERENCE_PACKAGES)


def package_versions(names: tuple[str, ...] | None = None) -> dict[str, str]:
    """Installed versions of the packages that affect results (default: :data:`_PACKAGES` and
    :func:`reference_packages`)."""
    found = {"python": platform.python_version()}
    for name in names or (*_PACKAGES, *reference_packages()):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def run_identity(cfg: DictConfig, extractor: object, dataset: object, data: str) -> str:
    """The hex identity of a run over ``data`` (a page digest or a file fingerprint)."""
    config = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(config, dict)
    for name in VOLATILE_KEYS:
        config.pop(name, None)
    for node in (config.get("dataset"), config.get("train_dataset")):
        if isinstance(node, dict):
            for name in LOCATION_KEYS:
                node.pop(name, None)
    identity = {
        "config": config,
        "code": [
            code_version("boilerbench.experiments.runner"),
            extractor_version(extractor),
            code_version(type(dataset).__module__),
        ],
        "versions": package_versions(),
        "data": data,
    }
    return content_key(json.dumps(identity, sort_keys=True, default=str))[:24]


def page_digest(split: Split) -> str:
    """Digest of every page of ``split``: id, HTML, gold text, type, snippets and load error."""
    digest = hashlib.sha256(f"{len(split.train)} {len(split.validation)} {len(split.test)}".encode())
    for page in (*split.train, *split.validation, *split.test):
        for field in (page.id, page.html, page.gold_text, str(page.page_type), repr(page.snippets), page.load_error):
            data = field.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "little") + data)
    return "pages:" + digest.hexdigest()


def file_fingerprint(datasets: Iterable[Dataset]) -> str:
    """Path, size and modification time of every file in each dataset's folder, and the content
    of the project's split and manifest files: a stat per file, no page read."""
    digest = hashlib.sha256()
    for dataset in datasets:
        root = dataset.locate()
        digest.update(f"{dataset.name}\0{dataset.split}\n".encode())
        for path in sorted(root.rglob("*")):
            if path.is_file():
                stat = path.stat()
                name = str(path.relative_to(root)).encode("utf-8", "surrogateescape")
                digest.update(name + f"\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    for path in sorted(p for p in PROJECT_DATA.rglob("*") if p.is_file() and p.suffix != ".py"):
        digest.update(path.read_bytes())
    return "files:" + digest.hexdigest()


def remember_quick_key(output_dir: Path, summary: dict, quick_key: str | None) -> None:
    """Store ``quick_key`` in a kept run's summary (its files were touched, not changed)."""
    if quick_key and summary.get("quick_key") != quick_key:
        summary["quick_key"] = quick_key
        write_summary(output_dir, summary)
