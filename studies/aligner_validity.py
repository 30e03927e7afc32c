"""Aligner validity on L3S-GN1: block labels from aligning the gold text vs labels read
directly from the annotation spans, on the annotated pages' own blocks.

    BOILERBENCH_DATA=../shared/datasets python -m studies.aligner_validity
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks.common import run_main
from boilerbench.datasets.l3s import L3SGN1, aligner_agreement


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=None, help="L3S-GN1 folder (default: found as run.py finds it)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    args = parser.parse_args(argv)
    root = Path(args.root) if args.root else L3SGN1(download=False).locate()
    r = aligner_agreement(root, args.limit)
    print(
        f"L3S-GN1 aligner validity: {r['agree']}/{r['blocks']} blocks agree = {100 * r['agreement']:.2f} % "
        f"over {r['pages']} pages (worst page {100 * r['worst_page']:.1f} %)"
    )
    return 0


if __name__ == "__main__":
    run_main(main)
