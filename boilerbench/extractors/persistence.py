"""Saving and loading the torch extractors' fitted state (BoilerNet, tag-path LSTM, Web2Text).

A fitted model is two files in one folder: ``<name>.pt`` (tensors only, read back with
``torch.load(weights_only=True)``, so loading a model never runs pickled code) and
``<name>.json`` (the constructor's hyperparameters under ``params`` and whatever else the model
needs: vocabularies, scalers, training history). Both are written atomically. Loading checks
the saved hyperparameters against the extractor's own (:meth:`BaseExtractor.check_saved_params`),
and reads only regular files, never through a link (symbolic or hard) and none over
:data:`MAX_FILE_BYTES` (:func:`regular_file`): a model folder may be someone else's.
"""

from __future__ import annotations

import io
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

from boilerbench.atomic import atomic_write_bytes, atomic_write_text
from boilerbench.extractors.base import BaseExtractor


def save_torch_model(
    estimator: BaseExtractor, directory: str | os.PathLike[str], name: str, weights: Mapping[str, Any], state: dict
) -> None:
    """Write ``weights`` (a mapping of tensors or state dicts) to ``<name>.pt`` and ``state`` plus the
    estimator's hyperparameters to ``<name>.json`` in ``directory``."""
    directory = Path(directory)
    buf = io.BytesIO()
    torch.save(dict(weights), buf)
    atomic_write_bytes(directory / f"{name}.pt", buf.getvalue())
    atomic_write_text(directory / f"{name}.json", json.dumps({"params": estimator.saved_params(), **state}, indent=1))


#: The largest model file read (the torch models here are a few MB).
MAX_FILE_BYTES = 1 << 30


def regular_file(path: Path) -> Path:
    """``path``, after checking that it is a regular file of at most :data:`MAX_FILE_BYTES`, not a
    symbolic or hard link (``ValueError`` otherwise, one line naming the file)."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise ValueError(f"{path} is a symbolic link; a model file is read only as a regular file")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path} is not a regular file (a folder, device or FIFO)")
    if info.st_nlink > 1:
        raise ValueError(f"{path} is a hard link ({info.st_nlink} names); a model file is read only from its own copy")
    if info.st_size > MAX_FILE_BYTES:
        raise ValueError(f"{path} is {info.st_size:,} bytes, over the {MAX_FILE_BYTES:,} limit of a model file")
    return path


def load_torch_model(estimator: BaseExtractor, directory: str | os.PathLike[str], name: str) -> tuple[dict, dict]:
    """The ``(weights, state)`` saved by :func:`save_torch_model`, after checking that they were
    saved with the estimator's hyperparameters (``ValueError`` otherwise)."""
    directory = Path(directory)
    state = json.loads(regular_file(directory / f"{name}.json").read_text(encoding="utf-8"))
    estimator.check_saved_params(state.pop("params"), directory)
    weights = torch.load(regular_file(directory / f"{name}.pt"), weights_only=True, map_location="cpu")
    return weights, state
