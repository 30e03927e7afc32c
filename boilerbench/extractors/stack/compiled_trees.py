"""LightGBM trees compiled to native code by lleaves, for the stack's ``compiled_trees`` option.

lleaves (Böhm; github.com/siboehm/lleaves) compiles a LightGBM text model with LLVM into one
function per model; its predictions equal LightGBM's (to float rounding), and it skips
LightGBM's per-call overhead and its tree-by-tree interpretation. Compiling takes tens of seconds
per model, so the compiled library is kept on disk, keyed by the model text, the versions of
lleaves and llvmlite, the Python version and the machine: built once per machine and model, by
one process at a time (a lock file: parallel workers of ``boilerbench extract -j`` wait for the
first one's build instead of compiling again). The folder is the artefact cache's when one is
set, else ``$XDG_CACHE_HOME/boilerbench`` (``~/.cache/boilerbench``).
"""

from __future__ import annotations

import fcntl
import os
import platform
import tempfile
from collections.abc import Callable
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from boilerbench.cache import cache_dir, content_key
from boilerbench.errors import import_optional

#: The cache folder's subfolder of compiled models.
FOLDER = "compiled_trees"


def compiled_folder() -> Path:
    """Where compiled models are kept."""
    root = cache_dir() or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "boilerbench"
    return Path(root) / FOLDER


def compile_trees(model_text: str) -> Callable[[np.ndarray], np.ndarray]:
    """A function from feature rows to P(content), compiled from a LightGBM text model (built or
    read from the disk cache)."""
    lleaves = import_optional("lleaves", "lleaves", 'install it with: pip install -e ".[stack]"')
    versions = [f"{d}=={metadata.version(d)}" for d in ("lleaves", "llvmlite")]
    key = content_key(model_text, *versions, platform.machine(), platform.python_version())[:24]
    folder = compiled_folder()
    folder.mkdir(parents=True, exist_ok=True)
    library = folder / f"{key}.so"
    with open(folder / f"{key}.lock", "w") as lock, tempfile.TemporaryDirectory(dir=folder) as tmp:
        fcntl.flock(lock, fcntl.LOCK_EX)
        text = Path(tmp) / "model.txt"
        text.write_text(model_text, encoding="utf-8")
        model = lleaves.Model(model_file=str(text))
        if library.exists():
            model.compile(cache=str(library))
        else:
            staged = Path(tmp) / "model.so"
            model.compile(cache=str(staged))
            os.replace(staged, library)
    return lambda rows: model.predict(np.asarray(rows, dtype=np.float64), n_jobs=1)


class SavedTrees:
    """A saved LightGBM model: its text, made into a LightGBM Booster only when something asks
    for more than the text (``predict``, ``num_trees`` ...). Extraction with the compiled trees
    reads the text alone, so it never imports LightGBM, which imports scikit-learn and SciPy: about
    a second of every ``boilerbench extract``'s start, and their memory in every worker."""

    def __init__(self, text: str) -> None:
        self.text = text

    def model_to_string(self) -> str:
        """The model's text, as ``lightgbm.Booster.model_to_string`` gives it."""
        return self.text

    @cached_property
    def booster(self) -> Any:
        """The LightGBM Booster read from the text (made once, on first use)."""
        lgb = import_optional("lightgbm", "lightgbm", 'install it with: pip install -e ".[stack]"')
        return lgb.Booster(model_str=self.text)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy and pickle probe dunders before __init__ has run
            raise AttributeError(name)
        return getattr(self.booster, name)
