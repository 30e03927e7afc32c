"""Fetching a dataset from pinned public archives, checked against a checksum manifest.

A dataset config's ``source`` names one or more archives (zip or tar) by URL, the folder
inside each archive to take files from (``strip``), which of its paths to keep
(``include``, path prefixes) and/or an explicit ``files`` mapping (archive path -> dataset path),
and a ``manifest``: the SHA-256 of every file of the dataset, ``sha256sum`` format, shipped
in ``boilerbench/datasets/manifests/``. Files are unpacked into a staging folder beside the
target, every manifest entry is verified, and only then is the staging folder renamed into
place: a failed or interrupted download never leaves a half dataset where the loaders look.

Before a dataset is read, :func:`check_manifest` verifies its folder against the shipped
manifest once: the verdict is cached (keyed by the manifest and each listed file's size and
modification time), so later runs pay a ``stat`` per file, not a hash of every byte.

``python -m boilerbench.datasets.download manifest DIR`` writes a manifest for a folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import IO

from boilerbench.cache import cached_text, code_version, content_key
from boilerbench.errors import DatasetIntegrityError

MANIFEST_DIR = Path(__file__).with_name("manifests")
TIMEOUT_S = 60


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_manifest(folder: Path) -> str:
    """Manifest text (``<sha256>  <relative path>`` lines, sorted) of every file under ``folder``."""
    lines = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        lines.append(f"{sha256_file(path)}  {path.relative_to(folder).as_posix()}")
    return "\n".join(lines) + "\n"


def read_manifest(path: Path) -> dict[str, str]:
    """Map relative path -> expected SHA-256 from a manifest file."""
    entries = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            digest, rel = line.split(None, 1)
            entries[rel.strip()] = digest.lower()
    return entries


def verify_manifest(folder: Path, manifest: Mapping[str, str]) -> list[str]:
    """Relative paths that are missing or whose checksum differs (empty when all is well)."""
    bad = []
    for rel, digest in manifest.items():
        path = folder / rel
        if not path.is_file() or sha256_file(path) != digest:
            bad.append(rel)
    return bad


def manifest_problems(folder: Path, manifest: Mapping[str, str]) -> list[str]:
    """``"<path> is missing"`` or ``"<path> differs"`` for each manifest entry that does not
    match the files under ``folder`` (empty when all is well)."""
    problems = []
    for rel, digest in manifest.items():
        path = folder / rel
        if not path.is_file():
            problems.append(f"{rel} is missing")
        elif sha256_file(path) != digest:
            problems.append(f"{rel} differs")
    return problems


def manifest_path(name: str | os.PathLike[str]) -> Path:
    """A manifest named in a dataset config: a path, or a file name in :data:`MANIFEST_DIR`."""
    path = Path(name)
    return path if path.is_absolute() else MANIFEST_DIR / path


#: Verdicts already reached in this process (folder, manifest and file stats -> problems).
_checked: dict[str, str] = {}


def check_manifest(folder: Path, manifest_file: Path, dataset: str) -> None:
    """Raise :class:`DatasetIntegrityError` naming the files of ``folder`` that are missing or
    differ from ``manifest_file``; the verdict is cached per folder state (see the module
    docstring), so an unchanged folder is hashed once."""
    manifest = read_manifest(manifest_file)
    stats = []
    for rel in manifest:
        try:
            st = (folder / rel).stat()
            stats.append(f"{rel}\t{st.st_size}\t{st.st_mtime_ns}")
        except OSError:
            stats.append(f"{rel}\tmissing")
    parts = (manifest_file.read_bytes(), str(folder.resolve()), "\n".join(stats))
    key = content_key(*parts)
    if key not in _checked:
        _checked[key] = cached_text(
            "manifest_check", code_version(__name__), parts, lambda: "\n".join(manifest_problems(folder, manifest))
        )
    if _checked[key]:
        problems = _checked[key].split("\n")
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise DatasetIntegrityError(
            f"Dataset '{dataset}' in {folder} does not match its checksum manifest {manifest_file}: {shown}. "
            "The files are damaged or another version: fetch them again (see the dataset's SOURCE.md or "
            "docs/datasets/), or pass dataset.verify=false to use them anyway."
        )


def _members(archive_path: Path) -> Iterator[tuple[str, IO[bytes]]]:
    """(path, open file) for each regular file of a zip or tar archive."""
    if zipfile.is_zipfile(archive_path):
        with zipfile.ZipFile(archive_path) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    with zf.open(info) as fh:
                        yield info.filename, fh
    else:
        with tarfile.open(archive_path) as tf:
            for member in tf:
                if member.isfile():
                    data = tf.extractfile(member)
                    if data is not None:
                        yield member.name, data


def _destination(name: str, spec: Mapping) -> str | None:
    """Where archive member ``name`` goes inside the dataset, or None to skip it."""
    path = PurePosixPath(name)
    strip = spec.get("strip")
    if strip:
        try:
            path = path.relative_to(strip)
        except ValueError:
            return None
    rel = path.as_posix()
    if any(part.startswith(".") for part in path.parts):  # .DS_Store and the like
        return None
    files = spec.get("files") or {}
    if rel in files:
        return files[rel]
    include = spec.get("include")
    if files and not include:
        return None
    if include and not any(rel == p or rel.startswith(p.rstrip("/") + "/") for p in include):
        return None
    return rel


def _safe_join(root: Path, rel: str) -> Path:
    target = (root / rel).resolve()
    if root.resolve() not in target.parents:
        raise ValueError(f"archive member escapes the dataset folder: {rel}")
    return target


def fetch_dataset(source: Mapping, target: str | os.PathLike[str]) -> None:
    """Download ``source``'s archives, unpack the selected files, verify the manifest, move into ``target``."""
    target = Path(target)
    manifest_name = source.get("manifest")
    if not manifest_name:
        raise ValueError("the dataset source names no checksum manifest")
    manifest = read_manifest(manifest_path(manifest_name))
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        for spec in source["archives"]:
            with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".download") as tmp:
                with urllib.request.urlopen(spec["url"], timeout=TIMEOUT_S) as resp:
                    shutil.copyfileobj(resp, tmp)
                tmp.flush()
                expected = spec.get("sha256")
                if expected and sha256_file(Path(tmp.name)) != expected.lower():
                    raise ValueError(f"checksum mismatch for {spec['url']}")
                try:
                    for name, fh in _members(Path(tmp.name)):
                        rel = _destination(name, spec)
                        if rel is None:
                            continue
                        out = _safe_join(staging, rel)
                        out.parent.mkdir(parents=True, exist_ok=True)
                        with open(out, "wb") as dst:
                            shutil.copyfileobj(fh, dst)
                except (zipfile.BadZipFile, tarfile.TarError) as err:
                    raise ValueError(f"{spec['url']} is not a readable zip or tar archive: {err}") from err
        bad = verify_manifest(staging, manifest)
        if bad:
            shown = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
            raise ValueError(f"{len(bad)} file(s) missing or with a wrong checksum: {shown}")
        if target.exists():
            if any(target.iterdir()):
                raise ValueError(f"{target} exists and is not empty; move it away first")
            target.rmdir()
        os.replace(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str]) -> int:
    """``manifest DIR``: print the manifest of a folder."""
    if len(argv) != 2 or argv[0] != "manifest":
        print("usage: python -m boilerbench.datasets.download manifest DIR", file=sys.stderr)
        return 2
    sys.stdout.write(write_manifest(Path(argv[1])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
