"""Whether the results store reproduces on this machine: ``boilerbench report reproduce JOB...``.

Each named run of the archive (``reports/results/archive/<experiment>/<job>.tar.xz``,
:mod:`boilerbench.reports.archive`) is run again from its saved Hydra overrides with
``rerun=true`` and empty model and artefact caches of its own, in a fresh process (as
``python run.py`` runs it), and its figures are compared with the archived ones, within
:data:`TOLERANCE` (a relative 1e-9: the order of a floating-point sum; ``--tolerance 0`` for every
digit):

- other figures mean that this run no longer gives the stored ones here: this machine computes
  otherwise (the store's Web2Text rows do, because of the CPU's vector kernels:
  :mod:`boilerbench.cpu_kernels`), or something the run depends on changed since;
- another run key, printed beside, says that the config, the code of the runner, extractor or
  loader, the packages or the pages changed since the run, whether or not the figures moved.
  ``boilerbench report --check`` compares the extractor's code version only, so it sees neither.

Learned runs fit again, so one job costs what its fit costs (Web2Text on CleanEval, a few
minutes). Run it from the checkout's root, with ``BOILERBENCH_DATA`` set as for the runs.

    boilerbench report reproduce fig_speed_quality_extractors/134_web2text_cleaneval
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from boilerbench.experiments.results import RunFileError
from boilerbench.reports.archive import ARCHIVE_DIR, SUFFIX, contents
from boilerbench.reports.collect import metric_columns

#: The relative difference below which two figures are the same result: the order of a
#: floating-point sum moves the last digits (NumPy's vector loops differ by CPU, so the bootstrap
#: intervals of a deterministic run move by a few units in the 16th digit across machines), and no
#: table shows more than four decimals.
TOLERANCE = 1e-9


def figures(summary: dict) -> dict[str, float]:
    """Every number of a summary's figures (:func:`~boilerbench.reports.collect.metric_columns`:
    its metrics, per page type and per language), by column name, each bound of an interval
    apart (``token.f1_ci95.0``)."""
    numbers: dict[str, float] = {}
    for name, value in metric_columns(summary).items():
        for key, item in (
            ((f"{name}.{i}", v) for i, v in enumerate(value)) if isinstance(value, list) else [(name, value)]
        ):
            if isinstance(item, int | float) and not isinstance(item, bool):
                numbers[key] = float(item)
    return numbers


def differences(
    stored: dict, rerun: dict, tolerance: float = TOLERANCE
) -> list[tuple[str, float | None, float | None]]:
    """The figures (:func:`figures`) of two summaries that differ by more than ``tolerance`` times the
    larger of 1 and their size (NaN equals NaN; a figure one of them lacks is None there), in the
    stored summary's order."""
    old, new = figures(stored), figures(rerun)

    def same(a: float | None, b: float | None) -> bool:
        if a is None or b is None:
            return a is b
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))

    return [(k, old.get(k), new.get(k)) for k in dict.fromkeys([*old, *new]) if not same(old.get(k), new.get(k))]


def rerun(files: dict[str, bytes], work: Path) -> dict:
    """The summary of the archived run ``files`` run again under ``work`` (its run folder, model
    and artefact caches), in a fresh ``boilerbench run`` process; a RunFileError if it fails."""
    overrides = yaml.safe_load(files.get(".hydra/overrides.yaml", b"") or b"[]")
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        raise RunFileError("the archive has no list of Hydra overrides (.hydra/overrides.yaml)")
    command = [
        sys.executable,
        "-m",
        "boilerbench",
        "run",
        *overrides,
        "rerun=true",
        # an experiment's job is a one-job sweep (its config sets Hydra's multirun mode)
        f"hydra.run.dir={work / 'run'}",
        f"hydra.sweep.dir={work / 'sweep'}",
        "hydra.sweep.subdir=job",
        f"paths.model_dir={work / 'models'}",
        f"paths.cache_dir={work / 'cache'}",
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    summaries = [work / "run" / "summary.json", work / "sweep" / "job" / "summary.json"]
    found = [path for path in summaries if path.is_file()]
    if done.returncode != 0 or not found:
        last = (done.stderr.strip().splitlines() or ["no summary.json written"])[-1]
        raise RunFileError(f"the run failed (exit {done.returncode}): {last}")
    return json.loads(found[0].read_text(encoding="utf-8"))


def reproduce(job: str, archive: Path = ARCHIVE_DIR, tolerance: float = TOLERANCE) -> bool:
    """Run the archived ``job`` (``<experiment>/<job>``) again and print whether it gives the
    archived figures (within ``tolerance``: :func:`differences`) and run key; True when every
    figure is the same."""
    path = archive / f"{job}{SUFFIX}"
    files = contents(path.read_bytes())
    stored = json.loads(files["summary.json"])
    with tempfile.TemporaryDirectory(prefix="reproduce-") as work:
        again = rerun(files, Path(work))
    changed = differences(stored, again, tolerance)
    token = figures(stored).get("token.f1"), figures(again).get("token.f1")
    verdict = "differs" if changed else "reproduces"
    print(f"{job}: {verdict}: token F1 {token[0]} stored, {token[1]} now; {len(changed)} figures differ")
    if again.get("run_key") != stored.get("run_key"):
        print(f"  run key {stored.get('run_key')} stored, {again.get('run_key')} now (config, code, packages or pages)")
    for name, old, new in changed[:10]:
        print(f"  {name}: {old} stored, {new} now")
    return not changed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="boilerbench report reproduce", description=__doc__.splitlines()[0])
    parser.add_argument(
        "jobs", nargs="+", help="archived runs, EXPERIMENT/JOB (reports/results/archive/EXPERIMENT/JOB.tar.xz)"
    )
    parser.add_argument("--archive", type=Path, default=ARCHIVE_DIR, help=f"the archive folder (default {ARCHIVE_DIR})")
    parser.add_argument(
        "--tolerance",
        type=float,
        default=TOLERANCE,
        help=f"relative difference within which two figures are the same (default {TOLERANCE}; 0: every digit)",
    )
    args = parser.parse_args(argv)
    missing = [job for job in args.jobs if not (args.archive / f"{job}{SUFFIX}").is_file()]
    if missing:
        print(f"error: no archived run {', '.join(missing)} under {args.archive}", file=sys.stderr)
        return 2
    outcomes = []
    for job in args.jobs:
        try:
            outcomes.append(reproduce(job, args.archive, args.tolerance))
        except (RunFileError, OSError, ValueError) as err:
            print(f"{job}: not rerun: {err}")
            outcomes.append(False)
    return 0 if all(outcomes) else 1
