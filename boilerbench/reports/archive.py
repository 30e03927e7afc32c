"""The run archive: the files of every run behind the results store, kept in git beside it, so
that a fresh clone holds what the per-page artefacts read and what the runner's reuse check
compares.

Each row of ``reports/results/runs.csv`` whose run folder was on the archiving machine is kept as
``reports/results/archive/<experiment>/<job>.tar.xz``: the folder's ``summary.json`` (with its
run key), ``pages.csv`` and Hydra files, compressed with xz (about 30 KB a run). The tables can be
rebuilt from ``runs.csv`` alone, but the significance marks and the figures that read per-page
rows need every run's ``pages.csv``, which only the machine of a complete regeneration had (and a
lost machine lost). With the archive:

- ``boilerbench report --restore [ROOT]`` writes each archived run back as its job's folder under
  ``ROOT`` (default ``multirun``), where the runner finds it: ``make reports`` then reruns only the
  jobs whose run key changed (``summary.json``'s ``run_key``: config, code, packages, pages), on
  any machine, and a change to one extractor lands with its own jobs rerun, not a day's
  regeneration. A folder that already holds a complete run is left as it is.
- ``boilerbench report --archive [RUN_DIRS...]`` (after a regeneration, from the machine that ran
  it) archives, for each row of the store, the run folder under ``RUN_DIRS`` holding that row's run
  key; a row whose run no folder here holds keeps its archive when that has the row's run key, and
  is listed as missing otherwise; archives of runs no row names are removed. The archive follows
  the store, as the store follows the code.

Archives are built and read here only: names are checked on reading (no path leaves the job's
folder) and nothing in them is executed or unpickled. The same files give the same bytes (fixed
tar metadata), so an unchanged run leaves git's tree unchanged.
"""

from __future__ import annotations

import atexit
import functools
import io
import json
import shutil
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from boilerbench.atomic import atomic_write_bytes
from boilerbench.experiments.results import RunFileError, read_summary

#: Where the archive is kept, beside the store's ``runs.csv``.
ARCHIVE_DIR = Path("reports/results/archive")
#: The files of a run folder that the archive keeps (``summary.json`` last when restored: its
#: presence is what marks a run complete).
FILES = ("pages.csv", ".hydra/config.yaml", ".hydra/hydra.yaml", ".hydra/overrides.yaml", "summary.json")
#: The files without which an archive is not a run.
REQUIRED = ("summary.json", "pages.csv")
SUFFIX = ".tar.xz"


def pack(run_dir: Path) -> bytes:
    """The archive of ``run_dir``: its :data:`FILES` that exist, in that order, with fixed
    metadata (mode, owner and time), so the same files always give the same bytes."""
    missing = [name for name in REQUIRED if not (run_dir / name).is_file()]
    if missing:
        raise RunFileError(f"{run_dir} has no {', '.join(missing)}: not a complete run")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz", preset=9) as tar:
        for name in FILES:
            path = run_dir / name
            if path.is_file():
                data = _portable(path.read_bytes()) if name == "summary.json" else path.read_bytes()
                info = tarfile.TarInfo(name)
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _portable(summary: bytes) -> bytes:
    """A summary without its ``quick_key`` (the data files' paths, sizes and times on the machine
    that ran it): on another machine the runner checks the run key and writes its own."""
    data = json.loads(summary)
    data.pop("quick_key", None)
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def contents(data: bytes) -> dict[str, bytes]:
    """The files of an archive, by name: only :data:`FILES` (any other member, a link or a path
    outside the folder, is ignored); a RunFileError when it is unreadable or lacks :data:`REQUIRED`."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:xz") as tar:
            files = {}
            for member in tar.getmembers():
                handle = tar.extractfile(member) if member.isfile() and member.name in FILES else None
                if handle is not None:
                    files[member.name] = handle.read()
    except (tarfile.TarError, EOFError, OSError) as err:
        raise RunFileError(f"not a run archive: {err}") from err
    missing = [name for name in REQUIRED if name not in files]
    if missing:
        raise RunFileError(f"the archive has no {', '.join(missing)}")
    return files


def archived_summary(path: Path) -> dict:
    """The ``summary.json`` of the archive at ``path``."""
    try:
        summary = json.loads(contents(path.read_bytes())["summary.json"])
    except (OSError, ValueError) as err:
        raise RunFileError(f"{path}: {err}") from err
    if not isinstance(summary, dict):
        raise RunFileError(f"{path}: its summary.json is not an object")
    return summary


def _summaries(archive: Path) -> Iterator[tuple[Path, dict]]:
    """Each readable archive under ``archive`` (in name order) with its ``summary.json``."""
    for path in sorted(archive.rglob(f"*{SUFFIX}")):
        try:
            yield path, archived_summary(path)
        except RunFileError:
            continue


@functools.cache
def _archives_by_folder(archive: Path) -> dict[str, list[Path]]:
    """The archives under ``archive`` by the folder their run was written to (``summary.json``'s
    ``output_dir``, absolute) and by that folder's last two names (``<experiment>/<job>``, what a
    store row's relative ``run_dir`` ends with on any machine)."""
    found: dict[str, list[Path]] = {}
    for path, summary in _summaries(archive):
        folder = summary.get("output_dir")
        if folder:
            for name in {str(folder), "/".join(Path(str(folder)).parts[-2:])}:
                found.setdefault(name, []).append(path)
    return found


@functools.cache
def _unpacked_root() -> Path:
    """A temporary folder for the runs :func:`archived_run_dir` unpacks, removed at exit."""
    root = Path(tempfile.mkdtemp(prefix="boilerbench-archived-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


@functools.cache
def _archives_by_key(archive: Path) -> dict[str, Path]:
    return archived_runs(archive)


def is_archived(run_key: str, archive: Path = ARCHIVE_DIR) -> bool:
    """Whether an archive under ``archive`` holds the run of ``run_key``."""
    return run_key in _archives_by_key(archive.resolve())


def archived_run_dir(run_dir: str | Path, archive: Path = ARCHIVE_DIR, run_key: str | None = None) -> Path | None:
    """A folder holding the archived files of a run, unpacked into a temporary folder: the run of
    ``run_key`` where one is given, else the run that was written to ``run_dir`` (its absolute
    folder, else its ``<experiment>/<job>`` where one archive alone ends so); None where no
    archive, or more than one, is that run's. The report reads per-page rows from it when the run
    folder is not on this machine, or holds another run."""
    if run_key is not None:
        keyed = _archives_by_key(archive.resolve()).get(run_key)
        candidates = [keyed] if keyed is not None else []
    else:
        by_folder = _archives_by_folder(archive.resolve())
        tail = "/".join(Path(run_dir).parts[-2:])
        candidates = by_folder.get(str(Path(run_dir).resolve())) or by_folder.get(tail, [])
    if len(candidates) != 1:
        return None
    target = _unpacked_root() / candidates[0].relative_to(archive.resolve()).as_posix().removesuffix(SUFFIX)
    if not (target / "summary.json").is_file():
        try:
            unpack(candidates[0].read_bytes(), target)
        except (OSError, RunFileError):
            return None
    return target


def unpack(data: bytes, run_dir: Path) -> None:
    """Write an archive's files into ``run_dir``, each atomically, ``summary.json`` last."""
    files = contents(data)
    for name in FILES:
        if name in files:
            atomic_write_bytes(run_dir / name, files[name])


def run_key_of(summary_path: Path) -> str | None:
    """The run key of a ``summary.json`` (:func:`read_summary`); None for a damaged one."""
    try:
        summary = read_summary(summary_path)
    except (OSError, RunFileError):
        return None
    key = summary.get("run_key") if isinstance(summary, dict) else None
    return str(key) if key else None


def local_runs(roots: list[Path]) -> dict[str, tuple[Path, Path]]:
    """Every complete run folder under ``roots`` by its run key: (root, folder); a key that two
    folders hold is the same run, and the first found (roots in order, paths sorted) is taken."""
    found: dict[str, tuple[Path, Path]] = {}
    for root in roots:
        for summary in sorted(root.rglob("summary.json")):
            key = run_key_of(summary)
            if key and (summary.parent / "pages.csv").is_file():
                found.setdefault(key, (root, summary.parent))
    return found


def archived_runs(archive: Path) -> dict[str, Path]:
    """Every archive under ``archive`` by its run's key (an unreadable one is left out, and so
    pruned by :func:`archive_store`)."""
    return {str(summary["run_key"]): path for path, summary in _summaries(archive) if summary.get("run_key")}


@dataclass
class ArchiveReport:
    """What :func:`archive_store` did: archive names written, unchanged and removed, and the rows
    whose run is neither here nor archived (as ``run_key run_dir``)."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    #: rows whose archive holds another run of their key than the row's (an earlier rerun: its
    #: timings differ) and whose own run no folder here holds
    outdated: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return (
            [f"missing: {row}" for row in self.missing]
            + [f"outdated: {row}" for row in self.outdated]
            + [
                f"archive: {len(self.written)} written, {len(self.unchanged)} unchanged, {len(self.removed)} removed, "
                f"{len(self.missing)} rows without their run, {len(self.outdated)} with an earlier run of their key"
            ]
        )


def _finished(summary: dict) -> str:
    return str(summary.get("finished_at") or "")


def archive_store(runs: pd.DataFrame, roots: list[Path], archive: Path = ARCHIVE_DIR) -> ArchiveReport:
    """Make ``archive`` hold one archive per row of ``runs`` (a store's ``runs.csv``), named by
    its run folder's path below its root (``<experiment>/<job>``): an archive that already holds
    the row's run key stays as it is (a job kept by the runner is the same run, though Hydra
    rewrote its files), moved where the run folder under ``roots`` now is; else that folder is
    packed; the other archives are removed. A job rerun under the same key (a timing rerun) is
    told apart by its ``finished_at``: the folder that finished when the row says replaces an
    archive of an earlier run, and a row whose archive is such an earlier run, with no folder
    here holding its own, is listed as outdated."""
    report = ArchiveReport()
    here, before = local_runs(roots), archived_runs(archive)
    finished = runs["finished_at"] if "finished_at" in runs.columns else pd.Series("", index=runs.index)
    finished = finished.fillna("").astype(str)
    keep: set[Path] = set()
    for key, run_dir, when in zip(runs["run_key"].astype(str), runs["run_dir"].astype(str), finished, strict=True):
        earlier = before.get(key)
        if key not in here and earlier is None:
            report.missing.append(f"{key} {run_dir}")
            continue
        archived_when = _finished(archived_summary(earlier)) if earlier is not None else ""
        stale = bool(when) and archived_when != when
        if key in here:
            root, folder = here[key]
            target = archive / f"{folder.relative_to(root).as_posix()}{SUFFIX}"
            fresh = earlier is None or (stale and _finished(read_summary(folder / "summary.json")) == when)
        else:
            assert earlier is not None
            target, fresh = earlier, False
        if stale and not fresh and earlier is not None:
            report.outdated.append(f"{key} {run_dir}: archived run finished {archived_when}, the row {when}")
        name = target.relative_to(archive).as_posix().removesuffix(SUFFIX)
        if fresh:
            atomic_write_bytes(target, pack(here[key][1]))
            report.written.append(name)
        elif earlier != target:  # the job was renumbered: its archive moves
            assert earlier is not None
            atomic_write_bytes(target, earlier.read_bytes())
            report.written.append(name)
        else:
            report.unchanged.append(name)
        keep.add(target)
    for path in sorted(archive.rglob(f"*{SUFFIX}")):
        if path not in keep:
            path.unlink()
            report.removed.append(path.relative_to(archive).as_posix().removesuffix(SUFFIX))
    return report


def restore(archive: Path, root: Path) -> tuple[list[str], list[str]]:
    """Write each archived run into ``root/<experiment>/<job>`` where that folder holds no
    complete run; returns (restored, left) names: a folder with its own run is left to the
    runner, which keeps or reruns it by its run key, and so is a damaged archive's (said on
    stderr: its job reruns)."""
    restored, left = [], []
    for path in sorted(archive.rglob(f"*{SUFFIX}")):
        name = path.relative_to(archive).as_posix().removesuffix(SUFFIX)
        target = root / name
        if all((target / required).is_file() for required in REQUIRED):
            left.append(name)
            continue
        try:
            unpack(path.read_bytes(), target)
        except (OSError, RunFileError) as err:
            print(f"warning: {path}: {err}; its job will rerun", file=sys.stderr)
            left.append(name)
            continue
        restored.append(name)
    return restored, left
