"""The quality gate: figures of extractor x dataset runs pinned in ``tests/baselines.json``.

Each entry names a run (Hydra overrides), and per figure (a dotted path into ``summary.json``)
its pinned value and tolerance. ``tests/test_baselines.py`` runs every entry and fails when a
figure leaves its tolerance, so a change that moves quality shows up as a failing test and, once
accepted, as a reviewed diff of this file (trafilatura's evaluation gate works this way).

    python tests/baseline_gate.py                 # check every entry, print a table
    python tests/baseline_gate.py --update        # re-measure and rewrite the pinned values
    python tests/baseline_gate.py --update --only bte/cleaneval

Tolerances are part of the file: about 1e-4 for deterministic heuristics (floating-point sums in
another order), wider for learned extractors, whose CPU kernels may round differently on another
machine. ``--update`` keeps the entries and tolerances and rewrites the values.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
BASELINES = Path(__file__).with_name("baselines.json")


def load_baselines(path: Path = BASELINES) -> dict:
    """The pinned entries: ``{name: {"overrides": [...], "figures": {path: {"value", "tolerance"}}}}``."""
    return json.loads(path.read_text(encoding="utf-8"))["runs"]


def figure(summary: dict, path: str) -> float:
    """The value at a dotted path of a summary."""
    node = summary
    for part in path.split("."):
        node = node[part]
    return float(node)


def measure(overrides: list[str], root: Path, cache_dir: Path, output_dir: Path | None = None) -> dict:
    """Run ``python run.py OVERRIDES`` through the runner, with its files under ``root`` (results in
    ``output_dir``, default ``root/run``), and return its summary."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from boilerbench.configs import CONF_DIR
    from boilerbench.experiments import run

    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=[
                f"paths.root_dir={root}",
                f"paths.cache_dir={cache_dir}",
                "progress=false",
                "save_predictions=false",
                *overrides,
            ],
        )
    return run(cfg, output_dir or root / "run")


def deviations(entry: dict, summary: dict) -> list[str]:
    """One line per figure outside its tolerance (empty when the run passes the gate)."""
    problems = []
    for path, pinned in entry["figures"].items():
        value = figure(summary, path)
        if abs(value - pinned["value"]) > pinned["tolerance"]:
            problems.append(
                f"{path}: measured {value:.6g}, pinned {pinned['value']:.6g} +- {pinned['tolerance']:g} "
                f"(moved by {value - pinned['value']:+.6g})"
            )
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite the pinned values with the measured ones")
    parser.add_argument("--only", nargs="*", default=None, help="entries to run (default: all)")
    args = parser.parse_args(argv)
    from boilerbench.atomic import atomic_write_text

    if not os.environ.get("BOILERBENCH_DATA"):
        print("error: set BOILERBENCH_DATA to the datasets folder", file=sys.stderr)
        return 2
    document = json.loads(BASELINES.read_text(encoding="utf-8"))
    names = args.only or list(document["runs"])
    unknown = sorted(set(names) - set(document["runs"]))
    if unknown:
        print(
            f"error: no such entries: {', '.join(unknown)}; choose from {', '.join(document['runs'])}", file=sys.stderr
        )
        return 2
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            entry = document["runs"][name]
            summary = measure(entry["overrides"], Path(tmp) / name.replace("/", "_"), Path(tmp) / "cache")
            problems = deviations(entry, summary)
            failed += bool(problems)
            print(f"{name}: {'ok' if not problems else 'MOVED'}")
            for line in problems:
                print(f"  {line}")
            if args.update:  # written after each entry, so that an interrupted update keeps what it measured
                for path, pinned in entry["figures"].items():
                    pinned["value"] = round(figure(summary, path), 6)
                atomic_write_text(BASELINES, json.dumps(document, indent=2) + "\n")
    if args.update:
        print(f"rewrote {BASELINES}")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(PROJECT))
    raise SystemExit(main(sys.argv[1:]))
