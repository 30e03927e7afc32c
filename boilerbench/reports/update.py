"""A results store brought up to date with a few rerun jobs: ``boilerbench report update JOB_DIR...``.

After a change that re-keys some of the store's rows, those jobs are rerun (in place, from their
saved overrides: ``reports/results/archive/<experiment>/<job>.tar.xz``), and the store must take
their rows and the artefacts those rows feed, and nothing else. A plain build cannot do that on a
machine that lacks most run folders: a build from the store's ``runs.csv`` alone leaves out what
reads page rows (those tables' significance marks, the page-level figures), and a build from a
whole ``multirun`` folder drops every base row under it whose folder is not here. So the update:

1. builds the store as it is, from its ``runs.csv`` alone (with its ``sweeps.csv`` beside it), and
   the store with the rerun jobs, from those job folders and the same ``runs.csv``;
2. copies into the store each file of the second build that the first does not give byte for
   byte, or that the store lacks: ``runs.csv``, ``sweeps.csv``, the artefacts whose rows changed
   and an artefact new to the store; and each file of an artefact whose every run's page rows are
   readable here (in its folder or the archive), where the store holds other bytes: a build here
   gives that artefact whole, so a change to its builder lands with the next update. An artefact
   that neither build can make here keeps its stored files, and so its row of the index
   (``README.md``, :func:`merged_index`), since the builds here would list it as missing; the rows
   of the artefacts copied come from the second build;
3. archives the jobs' run folders (:func:`boilerbench.reports.archive.archive_store` over every
   row, so no other archive moves), each job's root being the folder above its experiment.

Exit status 1 when a rerun job's row ended without its archive, 2 when the store or a job folder
is missing.

    boilerbench report update multirun/fig_speed_quality/14_cascade_wcxb multirun/fig_speed_quality/15_cascade_cleaneval
"""

from __future__ import annotations

import argparse
import filecmp
import sys
import tempfile
from pathlib import Path

import pandas as pd

from boilerbench.atomic import atomic_write_bytes
from boilerbench.reports.archive import ArchiveReport, archive_store
from boilerbench.reports.artefacts import ARTEFACTS
from boilerbench.reports.build import build_all
from boilerbench.reports.collect import has_pages, read_runs

#: The store ``make store`` fills (the folder of ``reports/results/runs.csv``).
STORE_DIR = Path("reports/results")
#: The store's files that an update never rewrites: the index of every artefact.
KEPT = frozenset({"README.md"})


def changed_files(
    before: Path, after: Path, store: Path | None = None, rebuilt: frozenset[str] = frozenset()
) -> list[str]:
    """The names of the files of ``after`` that ``before`` (or ``store``, where given) lacks or
    ``before`` holds with other bytes, and those of the artefacts named in ``rebuilt`` that
    ``store`` holds with other bytes, less :data:`KEPT`, sorted."""

    def differs(folder: Path, path: Path) -> bool:
        return not ((folder / path.name).is_file() and filecmp.cmp(folder / path.name, path, shallow=False))

    return sorted(
        path.name
        for path in after.iterdir()
        if path.is_file()
        and path.name not in KEPT
        and (
            differs(before, path)
            or (store is not None and not (store / path.name).is_file())
            or (store is not None and path.name.split(".")[0] in rebuilt and differs(store, path))
        )
    )


def readable_artefacts(runs: pd.DataFrame) -> frozenset[str]:
    """The artefacts whose every run's page rows are readable here (:func:`has_pages`): a build
    here gives them whole, as a build on the machine that ran them would."""
    readable = runs.apply(has_pages, axis=1) if len(runs) else pd.Series(dtype=bool)
    return frozenset(
        artefact.name
        for artefact in ARTEFACTS
        if len(mine := artefact.runs(runs)) and bool(readable.loc[mine.index].all())
    )


def _index_rows(index: str) -> dict[str, str]:
    """The rows of an index's artefact table (``build_all``'s ``README.md``) by artefact name."""
    rows = {}
    for line in index.splitlines():
        cells = line.split(" | ")
        if line.startswith("| ") and len(cells) > 2 and not line.startswith(("| artefact |", "|---")):
            rows[cells[0].removeprefix("| ")] = line
    return rows


def merged_index(stored: str, built: str, copied: list[str]) -> str:
    """The stored index with the built one's row for each artefact whose files were copied, or
    that the stored one lacks and the build made, in the built index's order (the other rows
    and the text around the table as stored)."""
    ours, theirs = _index_rows(stored), _index_rows(built)
    touched = {Path(name).stem for name in copied}
    rows = [
        theirs[name] if name in touched or (name not in ours and "**missing**" not in theirs[name]) else ours[name]
        for name in theirs
        if name in ours or name in touched or "**missing**" not in theirs[name]
    ]
    lines = stored.splitlines()
    table = [i for i, line in enumerate(lines) if line.startswith("| ") and line.split(" | ")[0][2:] in ours]
    if not table:
        return stored
    merged = lines[: table[0]] + rows + lines[table[-1] + 1 :]
    return "\n".join(merged) + ("\n" if stored.endswith("\n") else "")


def update(jobs: list[Path], store: Path = STORE_DIR) -> tuple[list[str], ArchiveReport]:
    """Bring ``store`` up to date with the run folders ``jobs`` (see the module docstring): the
    names of the files copied into it, and what archiving did."""
    runs_csv = store / "runs.csv"
    with tempfile.TemporaryDirectory(prefix="boilerbench-update-") as tmp:
        before, after, nothing = Path(tmp) / "before", Path(tmp) / "after", Path(tmp) / "nothing"
        nothing.mkdir()
        build_all([str(nothing)], before, str(runs_csv))
        build_all([str(job) for job in jobs], after, str(runs_csv))
        rebuilt = readable_artefacts(read_runs(after / "runs.csv"))
        copied = changed_files(before, after, store, rebuilt)
        for name in copied:
            atomic_write_bytes(store / name, (after / name).read_bytes())
        index = store / "README.md"
        if index.is_file() and (after / "README.md").is_file():
            stored = index.read_text(encoding="utf-8")
            merged = merged_index(stored, (after / "README.md").read_text(encoding="utf-8"), copied)
            if merged != stored:
                atomic_write_bytes(index, merged.encode("utf-8"))
                copied.append("README.md (rows)")
    roots = sorted({job.parent.parent for job in jobs})
    return copied, archive_store(read_runs(runs_csv), roots, store / "archive")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="boilerbench report update", description=__doc__.splitlines()[0])
    parser.add_argument("jobs", nargs="+", type=Path, help="rerun job folders, <root>/<experiment>/<job>")
    parser.add_argument("--store", type=Path, default=STORE_DIR, help=f"the results store (default {STORE_DIR})")
    args = parser.parse_args(argv)
    absent = [str(job) for job in args.jobs if not (job / "summary.json").is_file()]
    if absent or not (args.store / "runs.csv").is_file():
        what = f"no run in {', '.join(absent)}" if absent else f"no results store in {args.store}"
        print(f"error: {what}", file=sys.stderr)
        return 2
    copied, report = update(args.jobs, args.store)
    print(f"updated in {args.store}: {', '.join(copied) or 'nothing'}")
    print("\n".join(report.lines()))
    ours = {str(job) for job in args.jobs}
    # a missing row is "run_key run_dir": one of the jobs' rows left without its archive fails
    return 1 if any(row.split(" ", 1)[1] in ours for row in report.missing) else 0
