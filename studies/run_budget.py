"""Where an experiment's time went: the wall time of its jobs (``summary.json`` ``timing``),
summed per extractor and split into fitting, extraction and the rest (loading, scoring,
writing), from the run folders of one or more experiments (``multirun/<experiment>``).

The jobs of a sweep run two at a time, so an experiment's wall time is about half the sum
printed here; a job kept from an earlier run (``make reports`` reruns only what changed) costs
what its summary says it cost when it ran. What ``make reports`` should cut first is at the top.

    python -m studies.run_budget multirun/table_datasets [multirun/table_generalization ...]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from benchmarks.common import run_main


def job_times(summary: dict) -> dict[str, float]:
    """Seconds of one job: wall, fit (0 when the model was loaded from the cache), extract."""
    timing = summary["timing"]
    extract = timing["extract_ms_per_page"] * summary["n_pages"] / 1000
    return {"wall": timing.get("wall_s", 0.0), "fit": timing.get("fit_s", 0.0), "extract": extract}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for folder in args.folders:
        per_extractor: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        jobs = sorted(folder.glob("*/summary.json"))
        for path in jobs:
            summary = json.loads(path.read_text())
            times = job_times(summary)
            row = per_extractor[summary["extractor"]]
            row["jobs"] += 1
            row["pages"] += summary["n_pages"]
            for name, seconds in times.items():
                row[name] += seconds
        total = sum(r["wall"] for r in per_extractor.values())
        print(f"{folder}: {len(jobs)} jobs, {total / 60:.1f} job-minutes (about {total / 120:.1f} minutes on 2 cores)")
        header = ("extractor", "jobs", "pages", "wall s", "fit s", "extract s", "rest s", "share")
        print("  {:<16} {:>4} {:>6} {:>8} {:>8} {:>9} {:>7} {:>6}".format(*header))
        for name, row in sorted(per_extractor.items(), key=lambda kv: -kv[1]["wall"]):
            rest = row["wall"] - row["fit"] - row["extract"]
            print(
                f"  {name:<16} {int(row['jobs']):>4} {int(row['pages']):>6} {row['wall']:>8.0f} {row['fit']:>8.0f}"
                f" {row['extract']:>9.0f} {rest:>7.0f} {row['wall'] / max(total, 1e-9):>6.1%}"
            )
    return 0


if __name__ == "__main__":
    run_main(main)
