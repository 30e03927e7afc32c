"""One file per trained model, outside the cache: ``python run.py ... save_model=PATH`` writes it,
``boilerbench extract --model PATH`` reads it.

The file is a gzipped tar holding ``manifest.json`` and, for a learned extractor, the folder its
own ``save()`` writes (``model/``). The manifest records the extractor's config name and its
resolved config (the constructor's arguments: the file rebuilds the extractor by itself), what it
was trained on, the code version of the extractor's module, and the installed package versions.

A model is refused with one :class:`ModelFileError` (a user-facing error: one message, exit
status 2) when what decides its predictions has changed: another file format; another feature
schema (the names of the columns its trees read, for an extractor that has them); other outputs
on the golden pages (:mod:`boilerbench.experiments.golden`: the texts it gave on a few hand-made
pages when it was written, checked again when it is read); or, for the packages the model itself
depends on (its ``distributions`` tag: the trees' library, each member's library), another
major.minor version than the one it was made with. An edit of the source that changes none of
these (a release, a refactoring) leaves the model usable, so a shipped model survives releases;
the code version is recorded, not checked.

A model file may come from someone else: it is read as untrusted. Before anything is extracted,
every member is checked (:func:`check_member`): only regular files and folders, with relative
paths that stay inside the archive (no absolute path, no ``..``), no symbolic or hard links, no
devices or FIFOs, no member over :data:`MAX_MEMBER_BYTES` and no more than :data:`MAX_TOTAL_BYTES`
and :data:`MAX_MEMBERS` in all (a compression bomb is refused at the first header past a limit:
no more than the limits is ever inflated, and none of it is kept in memory). Each refusal is
one :class:`ModelFileError` line; members are then extracted with tarfile's ``data`` filter too.
The manifest's config may only name this project's extractors (:func:`check_targets`). Nothing
in it is unpickled: tensors are read with ``torch.load(weights_only=True)``, and an extractor
whose saved state is a pickle (the stack's ``backend=sklearn``: ``loads_pickle``) is refused,
when a model file is written and when it is read. A model whose files do not load is one line too.
"""

from __future__ import annotations

import hashlib
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
from boilerbench.configs import CONF_DIR, build
from boilerbench.errors import BoilerbenchError
from boilerbench.experiments.golden import golden_outputs
from boilerbench.experiments.model_cache import extractor_version
from boilerbench.extractors.base import feature_names, tags

#: 2: the manifest holds the feature schema and the golden outputs; 3: an ensemble's or a stack's
#: members are nested configs in its config (they were config names).
FORMAT = 3
MANIFEST = "manifest.json"
MODEL_DIR = "model"
#: The largest member, all members together, and the most members a model file may hold: the
#: largest models here (the stack's 1,000 trees, the LM probe) are tens of MB.
MAX_MEMBER_BYTES = 1 << 30
MAX_TOTAL_BYTES = 2 << 30
MAX_MEMBERS = 10_000
PICKLE_REFUSED = (
    "which runs code when loaded: a model file, made to be shared, never holds one "
    "(train it with a backend that saves no pickle, such as the stack's backend=lightgbm)"
)


class ModelFileError(BoilerbenchError):
    """A model file that cannot be read or was made by incompatible versions."""


def _required(extractor: object) -> dict[str, str | None]:
    """The installed versions of the distributions the model depends on."""
    found: dict[str, str | None] = {}
    for name in tags(extractor).distributions:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def save_model_file(
    extractor: Any, path: str | os.PathLike[str], name: str, config: dict, trained_on: str, versions: dict[str, str]
) -> dict:
    """Write ``extractor`` (fitted) and its manifest into the one file ``path``; return the manifest."""
    learned = tags(extractor).learns
    if learned and not tags(extractor).persistent:
        raise ModelFileError(f"extractor {name!r} learns but cannot save its fitted state")
    if tags(extractor).loads_pickle:
        raise ModelFileError(f"extractor {name!r} saves its fitted state as a pickle, {PICKLE_REFUSED}")
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
        "feature_schema": feature_schema(extractor),
        "golden": golden_outputs(extractor),
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
    Path(path).chmod(_default_mode())
    return manifest


def _default_mode() -> int:
    """The mode ``open`` gives a new file under this process's umask (0644 under 022). The
    atomic write's temporary file is private (0600), and a model file is made to be read by other
    users and services: a datatrove pipeline, a shared model folder."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _major_minor(version: str | None) -> tuple[str, ...] | None:
    return tuple(version.split(".")[:2]) if version else None


def feature_schema(extractor: object) -> str | None:
    """A digest of the names of the columns a fitted extractor's model reads (its
    ``feature_names()``), or None for one that has none."""
    names = feature_names(extractor)
    if names is None:
        return None
    return hashlib.sha256("\n".join(names).encode("utf-8")).hexdigest()[:16]


def check_manifest(manifest: dict, extractor: object, path: str | os.PathLike[str]) -> None:
    """Raise :class:`ModelFileError` listing every way the running code and packages differ from
    those that made the (loaded) model in ``path``, in what decides its predictions."""
    problems = []
    made_with = manifest.get("versions", {}).get("boilerbench", "?")
    if manifest.get("feature_schema") != feature_schema(extractor):
        problems.append(f"the features of {manifest.get('module')} have changed since the model was made")
    installed = _required(extractor)
    for name, then in manifest.get("requires", {}).items():
        now = installed.get(name)
        if _major_minor(then) != _major_minor(now):
            problems.append(f"{name} {then} then, {now or 'not installed'} now")
    if not problems:
        changed = sorted(k for k, v in golden_outputs(extractor).items() if manifest.get("golden", {}).get(k) != v)
        if changed:
            problems.append(f"it gives other outputs than when it was made on golden pages {', '.join(changed)}")
    if problems:
        raise ModelFileError(
            f"the model in {path} was made with incompatible versions (boilerbench {made_with}): "
            + "; ".join(problems)
            + ". Retrain it with this version (python run.py ... save_model=PATH), or install the versions it names."
        )


def check_member(member: tarfile.TarInfo, path: str | os.PathLike[str]) -> None:
    """Raise :class:`ModelFileError` unless ``member`` of the model file ``path`` is a regular file
    or folder of a safe size under a relative path that stays inside the archive."""
    name = member.name
    if member.issym() or member.islnk():
        raise ModelFileError(f"{path} holds a link ({name!r} -> {member.linkname!r}); a model file holds none")
    if not (member.isfile() or member.isdir()):
        raise ModelFileError(f"{path} holds a special file ({name!r}: a device, FIFO ...); a model file holds none")
    if name.startswith(("/", "\\")) or os.path.isabs(name) or ".." in Path(name).parts:
        raise ModelFileError(f"{path} holds a member outside the archive ({name!r}: an absolute path or '..')")
    if member.size > MAX_MEMBER_BYTES:
        raise ModelFileError(f"{path}: member {name!r} is {member.size:,} bytes, over the {MAX_MEMBER_BYTES:,} limit")


def safe_members(tar: tarfile.TarFile, path: str | os.PathLike[str]) -> list[tarfile.TarInfo]:
    """The members of ``tar``, read header by header and each checked (:func:`check_member`)
    before the next is read, within :data:`MAX_MEMBERS` and :data:`MAX_TOTAL_BYTES`."""
    members, total = [], 0
    while (member := tar.next()) is not None:
        check_member(member, path)
        total += member.size
        members.append(member)
        if len(members) > MAX_MEMBERS or total > MAX_TOTAL_BYTES:
            raise ModelFileError(
                f"{path} unpacks to over {MAX_MEMBERS:,} members or {MAX_TOTAL_BYTES:,} bytes (a compression bomb?)"
            )
    return members


def _targets(node: object) -> set[str]:
    """Every ``_target_`` value in a (nested) config."""
    if isinstance(node, dict):
        own = {str(node["_target_"])} if "_target_" in node else set()
        return own.union(*(_targets(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_targets(v) for v in node))
    return set()


def check_targets(config: object, path: str | os.PathLike[str]) -> None:
    """Raise :class:`ModelFileError` when the config of the model file ``path`` names a class or
    function (``_target_``) that no extractor config of this project names: instantiating a
    config from someone else may only build this project's extractors, never call ``os.system``."""
    import yaml

    known = set().union(*(_targets(yaml.safe_load(p.read_text())) for p in (CONF_DIR / "extractor").glob("*.yaml")))
    if not isinstance(config, dict) or "_target_" not in config:
        raise ModelFileError(f"{path}: its manifest holds no extractor config")
    unknown = sorted(_targets(config) - known)
    if unknown:
        raise ModelFileError(f"{path}: its config names {', '.join(unknown)}, which is no extractor of this project")


def load_model_file(path: str | os.PathLike[str]) -> tuple[Any, dict]:
    """The extractor saved in ``path`` (rebuilt from its config, its fitted state loaded), and its
    manifest; the file is untrusted (see the module docstring)."""
    try:
        tar = tarfile.open(path, mode="r:gz")
    except (OSError, tarfile.TarError, EOFError) as err:
        raise ModelFileError(f"cannot read the model file {path}: {err}") from None
    with tar, tempfile.TemporaryDirectory(prefix="boilerbench-model-") as tmp:
        try:
            members = safe_members(tar, path)
            tar.extractall(tmp, members=members, filter="data")
            manifest = json.loads((Path(tmp) / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, tarfile.TarError, EOFError, ValueError) as err:
            raise ModelFileError(f"{path} is not a boilerbench model file: {one_line(err)}") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            found = manifest.get("format") if isinstance(manifest, dict) else None
            raise ModelFileError(f"{path} has model file format {found}; this version reads {FORMAT}")
        check_targets(manifest.get("config"), path)
        try:
            extractor = build(manifest["config"])
        except Exception as err:  # a config from someone else: any failure to build it is one line
            raise ModelFileError(f"{path}: its extractor config does not build ({one_line(err)})") from None
        if tags(extractor).loads_pickle:
            raise ModelFileError(f"{path}: its extractor's saved state is a pickle, {PICKLE_REFUSED}")
        if tags(extractor).learns:
            try:
                extractor.load(Path(tmp) / MODEL_DIR)
            except Exception as err:  # any unreadable part of an untrusted file: one line, no traceback
                raise ModelFileError(f"{path}: its model does not load ({one_line(err)})") from None
    check_manifest(manifest, extractor, path)
    return extractor, manifest


def one_line(error: BaseException) -> str:
    """``Type: message`` of ``error`` on one line (for a one-line user message)."""
    return " ".join(f"{type(error).__name__}: {error}".split())
