"""``python -m benchmarks [--full] [--only NAME,...] [-o FILE]`` (``make bench``): run every
benchmark, each at a small size (minutes in all) or with ``--full`` at its own full size, and
write one JSON file of their figures (default ``reports/out/bench.json``).

Each benchmark is a module of this package with a ``main(argv)`` and the arguments of its two
sizes (``QUICK``, ``FULL``); its figures are what it records (:func:`benchmarks.common.record`).
A benchmark that cannot run here (no dataset under ``BOILERBENCH_DATA``, an optional package or
Chromium missing) is ``skipped`` with its reason, one that fails is ``failed`` with its error; the
others run on. Exit status 1 when one failed."""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.common import collecting, timed
from boilerbench import __version__
from boilerbench.atomic import atomic_write_text
from boilerbench.errors import BoilerbenchError

#: Every benchmark, cheapest first.
BENCHMARKS = (
    "bootstrap_speed",
    "lcs_speed",
    "dataset_speed",
    "artefact_cache",
    "speed",
    "cluster_extract",
    "memory",
    "fuzz",
    "render",
)


def run_one(name: str, full: bool) -> dict[str, Any]:
    """Run benchmark ``name`` at its quick or full size: its status, arguments, seconds, figures."""
    module = importlib.import_module(f"benchmarks.{name}")
    argv = list(module.FULL if full else module.QUICK)
    entry: dict[str, Any] = {"args": argv}
    with collecting() as figures:
        try:
            status, seconds = timed(lambda: module.main(argv))
            entry.update(status="ok" if status == 0 else "failed", seconds=round(seconds, 3))
            if status != 0:
                entry["reason"] = f"exit status {status}"
        except BoilerbenchError as err:  # cannot run here: no data, a missing optional package
            entry.update(status="skipped", reason=f"{type(err).__name__}: {err}")
        except Exception as err:  # a benchmark's bug: reported, the others run on
            traceback.print_exc()
            entry.update(status="failed", reason=f"{type(err).__name__}: {err}")
    entry["figures"] = dict(figures)
    return entry


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="each benchmark at its full size (hours)")
    parser.add_argument("--only", default="", help=f"comma-separated, among: {', '.join(BENCHMARKS)}")
    parser.add_argument("-o", "--out", type=Path, default=Path("reports/out/bench.json"), help="the JSON file written")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}; choose among: {', '.join(BENCHMARKS)}")
    results: dict[str, Any] = {
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "size": "full" if args.full else "quick",
        "boilerbench": __version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "benchmarks": {},
    }
    for name in names:
        print(f"== {name}", flush=True)
        entry = run_one(name, args.full)
        results["benchmarks"][name] = entry
        print(f"== {name}: {entry['status']}{': ' + entry['reason'] if 'reason' in entry else ''}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out, json.dumps(results, indent=2) + "\n")
    statuses = [entry["status"] for entry in results["benchmarks"].values()]
    counts = ", ".join(f"{statuses.count(s)} {s}" for s in ("ok", "skipped", "failed"))
    print(f"{counts}: {args.out}")
    return 1 if "failed" in statuses else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
