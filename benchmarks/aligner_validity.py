"""Aligner validity on L3S-GN1: block labels from aligning the gold text vs labels read
directly from the annotation spans, on the annotated pages' own blocks.

    BOILERBENCH_DATA=../shared/datasets python benchmarks/aligner_validity.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from boilerbench.datasets.align import align_labels
from boilerbench.datasets.l3s import SUBDIR, L3SGN1, annotation_labels, read_annotated


def agreement(root: Path, limit: int | None = None) -> dict:
    """Blocks compared, blocks agreeing, and per-page agreement over the annotated pages."""
    stems = sorted(p.stem for p in (root / SUBDIR / "annotated").glob("*.html"))[:limit]
    agree = total = 0
    per_page = []
    for stem in stems:
        blocks = read_annotated(root, stem)
        direct, gold = annotation_labels(blocks)
        aligned = align_labels(blocks, gold)
        same = int(np.sum(aligned == direct))
        agree += same
        total += len(blocks)
        per_page.append(same / len(blocks) if len(blocks) else 1.0)
    return {"pages": len(stems), "blocks": total, "agree": agree, "agreement": agree / total if total else float("nan"),
            "worst_page": float(np.min(per_page)) if per_page else float("nan")}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=None, help="L3S-GN1 folder (default: found as run.py finds it)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    args = parser.parse_args(argv)
    root = Path(args.root) if args.root else L3SGN1(download=False).locate()
    r = agreement(root, args.limit)
    print(f"L3S-GN1 aligner validity: {r['agree']}/{r['blocks']} blocks agree = {100 * r['agreement']:.2f} % "
          f"over {r['pages']} pages (worst page {100 * r['worst_page']:.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
