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
   byte: ``runs.csv``, ``sweeps.csv`` and the artefacts whose rows changed. An artefact that
   neither build can make here keeps its stored files, and the index (``README.md``) is kept,
   since the builds here would list those artefacts as missing;
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

from boilerbench.atomic import atomic_write_bytes
from boilerbench.reports.archive import ArchiveReport, archive_store
from boilerbench.reports.build import build_all
from boilerbench.reports.collect import read_runs

#: The store ``make store`` fills (the folder of ``reports/results/runs.csv``).
STORE_DIR = Path("reports/results")
#: The store's files that an update never rewrites: the index of every artefact.
KEPT = frozenset({"README.md"})


def changed_files(before: Path, after: Path) -> list[str]:
    """The names of the files of ``after`` that ``before`` lacks or holds with other bytes, less
    :data:`KEPT`, sorted."""
    return sorted(
        path.name
        for path in after.iterdir()
        if path.is_file()
        and path.name not in KEPT
        and not ((before / path.name).is_file() and filecmp.cmp(before / path.name, path, shallow=False))
    )


def update(jobs: list[Path], store: Path = STORE_DIR) -> tuple[list[str], ArchiveReport]:
    """Bring ``store`` up to date with the run folders ``jobs`` (see the module docstring): the
    names of the files copied into it, and what archiving did."""
    runs_csv = store / "runs.csv"
    with tempfile.TemporaryDirectory(prefix="boilerbench-update-") as tmp:
        before, after, nothing = Path(tmp) / "before", Path(tmp) / "after", Path(tmp) / "nothing"
        nothing.mkdir()
        build_all([str(nothing)], before, str(runs_csv))
        build_all([str(job) for job in jobs], after, str(runs_csv))
        copied = changed_files(before, after)
        for name in copied:
            atomic_write_bytes(store / name, (after / name).read_bytes())
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
