"""``python -m boilerbench.reports inspect RUN_DIR [RUN_DIR2] -o OUT_DIR``: a static site to look inside a
run page by page (self-contained HTML, CSS and JS: no network, works from ``file://``).

The index lists every page of the run with its metrics, sortable by each, worst first; each
page shows its blocks in reading order coloured by outcome (kept and content, kept and
boilerplate, dropped and content, dropped and boilerplate), the gold and extracted text side
by side with their differences marked, and its metrics; with two runs on the same pages, both
runs' outcomes and where they disagree.

Where the blocks come from (a choice): the run folder holds what the run decided, the dataset
holds the pages. The runner writes each page's predicted block labels, the ones its block
metrics scored, into ``predictions.jsonl`` (a compact 0/1 string: a block-labelling
extractor's own labels cannot be recovered from its text); the block texts and gold labels are
re-read here through :mod:`boilerbench.datasets` (the canonical segmentation and the same
cached aligner as the metrics), which keeps runs small: a sweep's dozens of runs would otherwise
each carry a copy of the dataset's text. Runs written before the labels were saved fall back to
aligning the extracted text with :func:`boilerbench.datasets.align.align_labels`, as the
metrics did for text-only extractors. The counts of each outcome are checked against the run's
``pages.csv``; a page whose counts differ (the dataset or the aligner changed since the run)
is flagged. Pages the extractor failed on are shown as errors, not as zero scores.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from boilerbench.errors import BoilerbenchError
from boilerbench.experiments.results import Run, RunFileError
from boilerbench.reports.inspect.load import load_pages
from boilerbench.reports.inspect.site import write_site
from boilerbench.reports.significance import PageSetMismatch


def build(run_dirs: list[str], out: Path) -> int:
    """Write the site for one or two runs into ``out``; returns the number of pages."""
    runs = [Run(Path(d)) for d in run_dirs]
    pages = load_pages(runs)
    write_site(runs, pages, out)
    return len(pages)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="boilerbench inspect", description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="one run folder, or two on the same pages to compare")
    parser.add_argument("-o", "--out", required=True, help="folder for the site (index.html)")
    args = parser.parse_args(argv)
    if len(args.runs) > 2:
        print("error: inspect shows one run, or two side by side", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        n = build(args.runs, Path(args.out))
    except (RunFileError, PageSetMismatch, BoilerbenchError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{n} pages: open {Path(args.out) / 'index.html'} ({time.perf_counter() - start:.1f} s)")
    return 0
