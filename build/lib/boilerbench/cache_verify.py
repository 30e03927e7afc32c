"""``boilerbench cache verify``: check every entry of the artefact cache and of the model cache,
and remove the bad ones (the next run recomputes or refits them).

An artefact entry is ``<cache>/<step>/<version>/<kk>/<key><suffix>`` (:mod:`boilerbench.cache`):
its name is the 64-hex digest of its inputs, so it must sit in the shard of its key's first two
digits, and its content must be complete in its format: an ``.npy`` file a valid header
(read with ``allow_pickle=False``; no object arrays) followed by exactly the bytes its shape and
dtype need; a ``.txt`` entry valid UTF-8. The key hashes the inputs, not the content: a file
that is complete and well-formed cannot be told from the one its step would write, and the
writes are atomic (a rename), so what a killed run leaves is a temporary ``.NAME.*.tmp`` file,
which is removed too. In the model cache (``<models>/<extractor>/<key>``) the staging folders
of a save that did not finish (``.<key>.*``) and model folders whose JSON, ``.npy`` or torch
files do not read are removed. Lock files (``.locks/``) are left: they hold no data.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from boilerbench.cache import LOCKS

KEY = re.compile(r"[0-9a-f]{64}")


@dataclass
class Report:
    """What a verification found: the entries checked and the bad ones (path, why)."""

    checked: int = 0
    bad: list[tuple[Path, str]] = field(default_factory=list)


def npy_problem(path: Path) -> str | None:
    """Why ``path`` is not a complete ``.npy`` file (None when it is one): its header must read
    without pickle and the file hold exactly the bytes its shape and dtype need."""
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as err:
        return f"not a complete .npy file ({err})"
    if not isinstance(array, np.memmap):
        return "not a single array"
    expected = array.offset + array.nbytes
    size = path.stat().st_size
    del array
    return None if size == expected else f"{size} bytes, its header needs {expected}"


def artefact_problem(path: Path) -> str | None:
    """Why the artefact-cache file ``path`` is bad (None when it is good)."""
    if path.name.startswith(".") and path.name.endswith(".tmp"):
        return "temporary file of an unfinished write"
    key, _, suffix = path.name.partition(".")
    if not KEY.fullmatch(key) or path.parent.name != key[:2]:
        return "not named by its key's digest, or not in its key's shard"
    if suffix == "npy":
        return npy_problem(path)
    if suffix == "txt":
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as err:
            return f"not UTF-8 ({err})"
        return None
    return f"unknown entry type .{suffix}"


def model_problem(folder: Path) -> str | None:
    """Why the model folder ``folder`` is bad (None when every file that can be checked reads)."""
    if folder.name.startswith("."):
        return "staging folder of an unfinished save"
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            if path.suffix == ".json":
                json.loads(path.read_text(encoding="utf-8"))
            elif path.suffix == ".npy" and (problem := npy_problem(path)):
                return f"{path.name}: {problem}"
            elif path.suffix == ".pt":
                import torch

                torch.load(path, weights_only=True, map_location="cpu")
        except Exception as err:  # any unreadable file makes the model unusable: it is refitted
            return f"{path.name}: {type(err).__name__}: {err}"
    return None


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def verify(cache: Path | None, models: Path | None, remove: bool = True) -> Report:
    """Check the artefact cache ``cache`` and the model cache ``models`` (either may be None or
    missing); remove the bad entries unless ``remove`` is False."""
    report = Report()
    if cache is not None and cache.is_dir():
        for path in sorted(cache.rglob("*")):
            if LOCKS in path.relative_to(cache).parts or path.is_dir():
                continue
            report.checked += 1
            if len(path.relative_to(cache).parts) != 4:
                problem: str | None = "not at <step>/<version>/<shard>/<key>"
            else:
                problem = artefact_problem(path)
            if problem:
                report.bad.append((path, problem))
    if models is not None and models.is_dir():
        for folder in sorted(p for p in models.glob("*/*") if p.is_dir() and p.parent.name != LOCKS):
            report.checked += 1
            if problem := model_problem(folder):
                report.bad.append((folder, problem))
    if remove:
        for path, _ in report.bad:
            _remove(path)
    return report
