"""``boilerbench report [RUN_DIRS...] [--out DIR] [--base RUNS_CSV]`` (or ``python -m boilerbench.reports``):
build every table and figure from the runs under RUN_DIRS (default ``multirun``) into DIR
(default ``reports/out``), with an index and ``runs.csv``, the run rows every table was built
from; ``--base`` adds the rows of an earlier ``runs.csv`` (a run under RUN_DIRS replaces its
row), so a table can be rebuilt on a machine that reran only some of its runs (figures that read
per-page rows need the run folders).

``boilerbench report --check [RUNS_CSV]`` lists the rows of a results store (default
``reports/results/runs.csv``) whose extractor's code version is not HEAD's, one line each, and
exits 1 when there is one (:mod:`boilerbench.reports.stale`).

``boilerbench report --complete [RUNS_CSV] [--experiments a,b]`` lists the jobs of the experiments
``make reports`` runs that have no row with the run key HEAD gives them (reads the data, runs no
extractor: :mod:`boilerbench.reports.completeness`), and exits 1 when there is one.

``boilerbench report --archive [RUNS_CSV] [RUN_DIRS...]`` keeps, for each row of a results store
(default ``reports/results/runs.csv``), its run folder's files (found under RUN_DIRS, default
``multirun``, by run key) in ``reports/results/archive/``; ``boilerbench report --restore
[ROOT]`` writes them back as the jobs' folders under ROOT (default ``multirun``), so that ``make
reports`` on a fresh clone reruns only the jobs whose run key changed
(:mod:`boilerbench.reports.archive`).

``boilerbench report reproduce EXPERIMENT/JOB...`` runs archived jobs again with empty caches
and says whether each gives its archived figures (within a relative 1e-9) and run key on this machine,
exiting 1 when one does not (:mod:`boilerbench.reports.reproduce`).

``boilerbench report update JOB_DIR...`` brings the results store up to date with a few rerun
jobs: their rows, the artefacts those rows change and the jobs' archives, and nothing else
(:mod:`boilerbench.reports.update`).

``boilerbench report --list-experiments`` prints the experiment configs whose runs the artefacts
need (what ``make reports`` runs: :func:`boilerbench.reports.artefacts.experiments_to_run`).

``boilerbench compare RUN_A RUN_B [...]`` compares runs page by page
(:mod:`boilerbench.reports.compare`);
``boilerbench inspect RUN_DIR [RUN_DIR2] -o OUT_DIR`` writes the per-page viewer
(:mod:`boilerbench.reports.inspect`); ``python -m boilerbench.reports compare|inspect`` does the same."""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime
from pathlib import Path

from boilerbench.reports.archive import ARCHIVE_DIR, archive_store, restore
from boilerbench.reports.artefacts import experiments_to_run
from boilerbench.reports.build import build_all
from boilerbench.reports.collect import STORE, read_runs
from boilerbench.reports.regeneration import regeneration_note


def main(argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    parser = argparse.ArgumentParser(prog="boilerbench report", description=__doc__.splitlines()[0])
    parser.add_argument("run_dirs", nargs="*", default=["multirun"], help="folders holding runs (searched recursively)")
    parser.add_argument("--out", default="reports/out", help="where the tables, figures and index go")
    parser.add_argument("--base", help="an earlier build's runs.csv: its rows for the runs not under RUN_DIRS")
    parser.add_argument(
        "--check",
        nargs="?",
        const=STORE,
        metavar="RUNS_CSV",
        help=f"list the stale rows of a results store (default {STORE}) instead of building; exit 1 if any",
    )
    parser.add_argument(
        "--complete",
        nargs="?",
        const=STORE,
        metavar="RUNS_CSV",
        help=f"list the experiments' jobs without their row in a results store (default {STORE}); exit 1 if any",
    )
    parser.add_argument(
        "--experiments",
        type=lambda text: [e for e in text.split(",") if e],
        metavar="A,B",
        help="with --complete: these experiments only (default: those make reports runs)",
    )
    parser.add_argument(
        "--since",
        type=_moment,
        metavar="ISO_TIME",
        help="also say which runs finished since then (rerun) and which were reused (make reports passes its start)",
    )
    parser.add_argument(
        "--archive",
        nargs="?",
        const=STORE,
        metavar="RUNS_CSV",
        help=f"archive the run folders (under RUN_DIRS) of a store's rows (default {STORE}); exit 1 if a row has none",
    )
    parser.add_argument(
        "--restore", action="store_true", help="write the archived runs back as job folders under RUN_DIRS[0]"
    )
    parser.add_argument(
        "--list-experiments", action="store_true", help="print the experiments whose runs the artefacts need, and stop"
    )
    args = parser.parse_args(argv)
    if args.list_experiments:
        print("\n".join(experiments_to_run()))
        return 0
    if args.check:
        return check(args.check)
    if args.complete:
        return complete(args.complete, args.experiments)
    if args.restore:
        restored, left = restore(ARCHIVE_DIR, Path(args.run_dirs[0]))
        root = args.run_dirs[0]
        print(f"restored {len(restored)} archived runs into {root} ({len(left)} folders held their own run)")
        return 0
    start = time.perf_counter()
    missing_dirs = [d for d in args.run_dirs if not Path(d).is_dir()]
    if missing_dirs:
        print(f"error: no such run folder: {', '.join(missing_dirs)}", file=sys.stderr)
        return 2
    if args.archive:
        return archive(args.archive, args.run_dirs)
    if args.base and not Path(args.base).is_file():
        print(f"error: no such runs file: {args.base}", file=sys.stderr)
        return 2
    status = build_all(args.run_dirs, Path(args.out), args.base)
    for name, state in status.items():
        print(f"  {name:<26} {state}")
    print(f"reports in {args.out} ({time.perf_counter() - start:.1f} s)")
    if args.since is not None:
        print(regeneration_note(args.run_dirs, args.since))
    return 0


def _moment(text: str) -> datetime:
    """An ISO 8601 time with its offset (``date -u +%Y-%m-%dT%H:%M:%S+00:00``)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no UTC offset")
    return moment


def check(runs_csv: str) -> int:
    """``--check``: one line per stale row of ``runs_csv`` on stdout, a count on stderr; 1 if any, 2
    when the file is missing."""
    from boilerbench.reports.stale import UNRECORDED, stale_rows

    if not Path(runs_csv).is_file():
        print(f"error: no such runs file: {runs_csv}", file=sys.stderr)
        return 2
    runs = read_runs(runs_csv)
    stale = stale_rows(runs)
    for row in stale:
        print(row.line())
    unrecorded = sum(1 for r in stale if r.reason == UNRECORDED)
    print(
        f"{len(stale)} of {len(runs)} rows of {runs_csv} stale ({unrecorded} without a recorded code version)",
        file=sys.stderr,
    )
    return 1 if stale else 0


def archive(runs_csv: str, run_dirs: list[str]) -> int:
    """``--archive``: :func:`boilerbench.reports.archive.archive_store` of the store's rows; one
    line per row without its run, then the counts; 1 if a row has none, 2 when the file is missing."""
    if not Path(runs_csv).is_file():
        print(f"error: no such runs file: {runs_csv}", file=sys.stderr)
        return 2
    report = archive_store(read_runs(runs_csv), [Path(d) for d in run_dirs], Path(runs_csv).parent / ARCHIVE_DIR.name)
    print("\n".join(report.lines()))
    return 1 if report.missing else 0


def complete(runs_csv: str, experiments: list[str] | None) -> int:
    """``--complete``: the jobs without their row (:func:`boilerbench.reports.completeness.check_complete`);
    2 when the file is missing or an experiment is unknown."""
    from boilerbench.reports.completeness import check_complete

    if not Path(runs_csv).is_file():
        print(f"error: no such runs file: {runs_csv}", file=sys.stderr)
        return 2
    known = experiments_to_run()
    unknown = [e for e in experiments or [] if e not in known]
    if unknown:
        names = ", ".join(unknown)
        print(f"error: not an experiment make reports runs: {names} (known: {', '.join(known)})", file=sys.stderr)
        return 2
    keys = set(read_runs(runs_csv)["run_key"].dropna().astype(str))
    return check_complete(keys, experiments or known)


def _compare(argv: list[str]) -> int:
    from boilerbench.reports.compare import main as compare_main

    return compare_main(argv)


def _inspect(argv: list[str]) -> int:
    from boilerbench.reports.inspect import main as inspect_main

    return inspect_main(argv)


def _reproduce(argv: list[str]) -> int:
    from boilerbench.reports.reproduce import main as reproduce_main

    return reproduce_main(argv)


def _update(argv: list[str]) -> int:
    from boilerbench.reports.update import main as update_main

    return update_main(argv)


#: ``python -m boilerbench.reports NAME ...``: the subcommands (a run folder cannot be named like them);
#: the ``boilerbench`` command runs them as ``boilerbench compare`` and ``boilerbench inspect``, and
#: ``boilerbench report reproduce``, ``boilerbench report update``.
SUBCOMMANDS = {"compare": _compare, "inspect": _inspect, "reproduce": _reproduce, "update": _update}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
