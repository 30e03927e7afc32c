"""Do two run folders hold the same results? ``pages.csv`` compared byte for byte once its timing
column (``extract_ms``, wall time) is left out, every number of ``summary.json``'s metrics, counts,
per-type and per-language sections and cross-validation folds compared exactly (fit times left
out), and ``split``, ``trained_on`` and ``mixture``. What a refactoring of the runner must leave
unchanged: run the same commands from the old checkout and the new one, then compare, e.g.

    for tree in /old/checkout /new/checkout; do (cd $tree && python run.py extractor=crf dataset=cleaneval \\
        cv.folds=3 hydra.run.dir=/tmp/parity/$(basename $tree)); done
    python -m studies.run_parity /tmp/parity/checkout /tmp/parity/checkout-new

Prints one line per pair and the first differing figures; exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from boilerbench.experiments.results import RunFileError, read_pages, read_summary

#: Columns of pages.csv that measure time, not results.
TIMING = ("extract_ms",)
#: Summary sections whose numbers are results.
SECTIONS = ("metrics", "counts", "n_pages", "n_errors", "by_page_type", "by_language", "cv")


def figures(summary: dict) -> dict[str, object]:
    """Every number (and list of numbers) of the result sections, by dotted path (fit times left out)."""
    found: dict[str, object] = {}

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
            for index, value in enumerate(node):
                walk(value, f"{path}.{index}")
        elif isinstance(node, int | float | list) and "fit_s" not in path and "model_loaded" not in path:
            found[path] = node

    walk({k: summary[k] for k in SECTIONS if k in summary}, "")
    return found


def compare(old: Path, new: Path) -> list[str]:
    """The differences between two run folders (empty when they hold the same results)."""
    differences = []
    pages = [read_pages(folder / "pages.csv") for folder in (old, new)]
    tables = [p.drop(columns=[c for c in TIMING if c in p.columns]).to_csv(index=False) for p in pages]
    if tables[0] != tables[1]:
        differences.append("pages.csv differs (timing columns left out)")
    summaries = [read_summary(folder / "summary.json") for folder in (old, new)]
    for key in ("split", "trained_on", "mixture"):
        if summaries[0].get(key) != summaries[1].get(key):
            differences.append(f"{key}: {summaries[0].get(key)!r} != {summaries[1].get(key)!r}")
    before, after = figures(summaries[0]), figures(summaries[1])
    for path in sorted(before.keys() | after.keys()):
        if before.get(path) != after.get(path):
            differences.append(f"{path}: {before.get(path)!r} != {after.get(path)!r}")
    return differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="a run folder (or a folder of run folders) of the old code")
    parser.add_argument("new", type=Path, help="the same runs of the new code (same relative layout)")
    args = parser.parse_args(argv)
    runs = sorted(p.parent.relative_to(args.old) for p in args.old.rglob("summary.json"))
    failed = False
    for run in runs:
        try:
            differences = compare(args.old / run, args.new / run)
        except RunFileError as err:
            differences = [str(err)]
        failed |= bool(differences)
        print(f"{str(run) or '.'}: {'identical' if not differences else f'{len(differences)} differences'}")
        for line in differences[:10]:
            print(f"    {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
