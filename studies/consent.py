"""What the stack's consent rule (:mod:`boilerbench.extractors.stack.consent`) would drop on the
training mixture's training and validation pages: per dataset, the pages with a consent
container, the words inside, and the gold words among them (the rule's cost; it should be 0).
No test page is read.

    BOILERBENCH_DATA=../shared/datasets python -m studies.consent
"""

from __future__ import annotations

import argparse

from benchmarks.common import run_main
from boilerbench.experiments.runner import build
from boilerbench.extractors.stack.consent import consent_mask
from studies.stack_validation import mixture_datasets


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    print("| dataset | part | pages | with a dialog | words inside | gold words inside |")
    print("|---|---|---|---|---|---|")
    for dataset, node in mixture_datasets().items():
        split = build(node).load()
        for part, pages in (("train", split.train), ("validation", split.validation)):
            counts = [0, 0, 0, 0]
            for page in pages:
                if page.load_error:
                    continue
                mask = consent_mask(page.blocks)
                words = page.blocks.word_counts
                counts[0] += 1
                counts[1] += int(mask.any())
                counts[2] += int(words[mask].sum())
                counts[3] += int(words[mask & (page.gold_labels > 0)].sum())
                page.release()
            print(f"| {dataset} | {part} | " + " | ".join(map(str, counts)) + " |")
    return 0


if __name__ == "__main__":
    run_main(main)
