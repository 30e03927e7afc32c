"""What the page's container names (:mod:`boilerbench.extractors.stack.class_names`) say about
gold content on the training mixture's training and validation pages: per family and page type,
the words of the blocks inside a container so named and the share of them that is gold. The
same family that marks boilerplate on articles marks the posts on forums (``comment``), which is
why the stack reads the names through the page type. No test page is read.

    BOILERBENCH_DATA=../shared/datasets python -m studies.container_names
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from benchmarks.common import run_main
from boilerbench.experiments.runner import build
from boilerbench.extractors.stack.class_names import FAMILY_NAMES, container_shares
from studies.stack_validation import mixture_datasets


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    inside: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])  # (family, type): words, gold
    pages: dict[str, int] = defaultdict(int)
    for node in mixture_datasets().values():
        split = build(node).load()
        for page in (*split.train, *split.validation):
            if page.load_error:
                continue
            kind = str(page.page_type or "untyped")
            pages[kind] += 1
            shares = container_shares(page.blocks)
            words = page.blocks.word_counts.astype(np.float64)
            gold = page.gold_labels > 0
            for k, family in enumerate(FAMILY_NAMES):
                named = shares[:, k] > 0
                counts = inside[family, kind]
                counts[0] += words[named].sum()
                counts[1] += words[named & gold].sum()
            page.release()
    kinds = sorted(pages, key=lambda kind: -pages[kind])
    print("| family | " + " | ".join(f"{kind} ({pages[kind]} pages): words, gold share" for kind in kinds) + " |")
    print("|---|" + "---|" * len(kinds))
    for family in FAMILY_NAMES:
        cells = []
        for kind in kinds:
            words, gold = inside[family, kind]
            cells.append(f"{words:,.0f}, {gold / words:.3f}" if words else "0, -")
        print(f"| {family} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    run_main(main)
