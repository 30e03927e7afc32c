"""One file per trained model, outside the cache: ``python run.py ... save_model=PATH`` writes it,
``boilerbench extract --model PATH`` reads it.

The file is a gzipped tar holding ``manifest.json`` and, for a learned extractor, the folder its
own ``save()`` writes (``model/``). The manifest records the extractor's config name and its
resolved config (the constructor's arguments: the file rebuilds the extractor by itself), what it
was trained on, the code version of the extractor's module, and the installed package versions.

A model is refused with one :class:`ModelFileError` (a user-facing error: one message, exit
status 2) when it cannot be used as made: another file format, another code version of the
extractor (its features or model layout may differ), or, for the packages the model itself
depends on (its ``required_distributions()``: the trees' library, each member's library), another
major.minor version than the one it was made with. Archive members are extracted with tarfile's
``data`` filter (no absolute paths, links or devices).
"""

from __future__ import annotations

import io
import json
import os
import tarfile
import tempfile
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from boilerbench.atomic import atomic_write_bytes
from boilerbench.errors import BoilerbenchError
from boilerbench.experiments.model_cache import extractor_version
from boilerbench.extractors.base import Persistent
from boilerbench.extractors.compose import build

FORMAT = 1
MANIFEST = "manifest.json"
MODEL_DIR = "model"


class ModelFileError(BoilerbenchError):
    """A model file that cannot be read or was made by incompatible versions."""


def _required(extractor: object) -> dict[str, str | None]:
    """The installed versions of the distributions the model depends on."""
    names = extractor.required_distributions() if hasattr(extractor, "required_distributions") else ()
    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def save_model_file(
    extractor: Any, path: str | os.PathLike[str], name: str, config: dict, trained_on: str, versions: dict[str, str]
) -> dict:
    """Write ``extractor`` (fitted) and its manifest into the one file ``path``; return the manifest."""
    learned = getattr(extractor, "learns", True)
    if learned and not isinstance(extractor, Persistent):
        raise ModelFileError(f"extractor {name!r} learns but cannot save its fitted state")
    manifest = {
        "format": FORMAT,
        "extractor": name,
        "config": config,
        "trained_on": trained_on if learned else None,
        "code_version": extractor_version(extractor),
        "module": type(extractor).__module__,
        "requires": _required(extractor),
        "versions": versions,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory(prefix="boilerbench-model-") as tmp:
        folder = Path(tmp) / MODEL_DIR
        folder.mkdir()
        if learned:
            extractor.save(folder)
        (Path(tmp) / MANIFEST).write_text(json.dumps(manifest, indent=1, default=str), encoding="utf-8")
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            tar.add(Path(tmp) / MANIFEST, arcname=MANIFEST)
            tar.add(folder, arcname=MODEL_DIR)
    atomic_write_bytes(path, buffer.getvalue())
    return manifest


def _major_minor(version: str | None) -> tuple[str, ...] | None:
    return tuple(version.split(".")[:2]) if version else None


def check_manifest(manifest: dict, extractor: object, path: str | os.PathLike[str]) -> None:
    """Raise :class:`ModelFileError` listing every way the running code differs from the one that
    made the model in ``path``."""
    problems = []
    made_with = manifest.get("versions", {}).get("boilerbench", "?")
    code = extractor_version(extractor)
    if manifest.get("code_version") != code:
        problems.append(
            f"the code of {manifest.get('module')} has changed since the model was made "
            f"(code version {manifest.get('code_version')} then, {code} now)"
        )
    installed = _required(extractor)
    for name, then in manifest.get("requires", {}).items():
        now = installed.get(name)
        if _major_minor(then) != _major_minor(now):
            problems.append(f"{name} {then} then, {now or 'not installed'} now")
    if problems:
        raise ModelFileError(
            f"the model in {path} was made with incompatible versions (boilerbench {made_with}): "
            + "; ".join(problems)
            + ". Retrain it with this version (python run.py ... save_model=PATH), or install the versions it names."
        )


def load_model_file(path: str | os.PathLike[str]) -> tuple[Any, dict]:
    """The extractor saved in ``path`` (rebuilt from its config, its fitted state loaded), and its manifest."""
    try:
        tar = tarfile.open(path, mode="r:gz")
    except (OSError, tarfile.TarError) as err:
        raise ModelFileError(f"cannot read the model file {path}: {err}") from None
    with tar, tempfile.TemporaryDirectory(prefix="boilerbench-model-") as tmp:
        try:
            tar.extractall(tmp, filter="data")
            manifest = json.loads((Path(tmp) / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, tarfile.TarError, ValueError) as err:
            raise ModelFileError(f"{path} is not a boilerbench model file: {err}") from None
        if manifest.get("format") != FORMAT:
            raise ModelFileError(f"{path} has model file format {manifest.get('format')}; this version reads {FORMAT}")
        extractor = build(manifest["config"])
        check_manifest(manifest, extractor, path)
        if getattr(extractor, "learns", True):
            extractor.load(Path(tmp) / MODEL_DIR)
    return extractor, manifest
