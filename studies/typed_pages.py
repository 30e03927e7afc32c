"""How many pages of the mixture's other datasets get a page type from unambiguous evidence.

Three training datasets carry page types from their makers: WCXB (seven types), magic-html-bench
(article or forum) and DANIEL (news articles by the corpus' design, :mod:`boilerbench.datasets.daniel`).
The issue asks for more typed pages without hand labels and without held-out data: a page of
CleanEval or Dragnet (their training and validation pages only) whose schema.org data or URL names
one type alone (:func:`boilerbench.extractors.stack.structured.evident_type`). This prints the
counts per dataset and type; where a dataset's pages carry a type, also how often the evident type
agrees with it (the rule's precision there).

    BOILERBENCH_DATA=../shared/datasets python -m studies.typed_pages
"""

from __future__ import annotations

from collections import Counter

from benchmarks.common import run_main
from boilerbench.datasets.base import Dataset
from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.datasets.daniel import Daniel
from boilerbench.datasets.dragnet import Dragnet
from boilerbench.datasets.magic_html import MagicHTML
from boilerbench.datasets.wcxb import WCXB
from boilerbench.extractors.stack.structured import evident_type

DATASETS: tuple[type[Dataset], ...] = (WCXB, CleanEval, Dragnet, Daniel, MagicHTML)


def count(dataset: Dataset) -> tuple[Counter, Counter]:
    """Evident types of the split's training and validation pages, and (gold, evident) pairs where pages are typed."""
    split = dataset.load()
    evident: Counter = Counter()
    pairs: Counter = Counter()
    for page in (*split.train, *split.validation):
        if page.load_error:
            continue
        found = evident_type(page.blocks, page.url)
        evident[found] += 1
        if page.page_type is not None and found is not None:
            pairs[(str(page.page_type), found)] += 1
        page.release()
    return evident, pairs


def main(argv: list[str]) -> int:
    for cls in DATASETS:
        evident, pairs = count(cls())
        total = sum(evident.values())
        typed = {t: n for t, n in sorted(evident.items(), key=lambda kv: str(kv[0])) if t is not None}
        print(f"{cls.name}: {total} training/validation pages, {total - evident[None]} typed: {typed}")
        if pairs:
            agree = sum(n for (g, e), n in pairs.items() if g == e)
            print(
                f"  agreement with the dataset's types: {agree} / {sum(pairs.values())}; {dict(pairs.most_common(8))}"
            )
    return 0


if __name__ == "__main__":
    run_main(main)
