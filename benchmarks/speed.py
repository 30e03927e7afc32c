"""Per-page speed of the hot path on the CleanEval test split (676 pages), one process, one core.

Prints mean and p95 milliseconds per page for: loading (read + decode), segmentation (lxml
parse + canonical blocks), gold labelling (token LCS alignment), and BTE end to end (parse,
segment and the span search, as a user calls it on raw HTML), and, when it is installed,
trafilatura's ``extract`` on the same HTML strings, with the ratio, in the same run.

    BOILERBENCH_DATA=../shared/datasets python benchmarks/speed.py [--split cleaneval] [--limit N]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from boilerbench.errors import BoilerbenchError
from boilerbench.datasets.align import align_labels
from boilerbench.datasets.blocks import segment
from boilerbench.datasets.cleaneval import CleanEval, read_page_id
from boilerbench.datasets.page import Page
from boilerbench.extractors.bte import BTE


def time_each(items: Sequence, fn: Callable) -> np.ndarray:
    """Milliseconds of ``fn(item)`` for each item."""
    out = np.empty(len(items))
    for k, item in enumerate(items):
        start = time.perf_counter()
        fn(item)
        out[k] = 1000 * (time.perf_counter() - start)
    return out


def report(name: str, ms: np.ndarray) -> None:
    print(f"  {name:<34} mean {ms.mean():7.2f} ms   p95 {np.percentile(ms, 95):7.2f} ms   total {ms.sum() / 1000:6.2f} s")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="cleaneval")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)

    dataset = CleanEval(split=args.split, download=False)
    root = dataset.locate()
    ids = [int(p.id) for p in dataset.load_split(root, args.split).test][: args.limit]
    print(f"CleanEval split {args.split}, test pages: {len(ids)}")

    pages: list[Page] = []
    load_ms = time_each(ids, lambda i: pages.append(read_page_id(root, i)))
    blocks = []
    segment_ms = time_each(pages, lambda p: blocks.append(segment(p.html)))
    label_ms = time_each(range(len(pages)), lambda k: align_labels(blocks[k], pages[k].gold_text))
    bte = BTE()
    bte_ms = time_each(pages, lambda p: bte.extract(Page(p.id, p.html, "")))

    report("load (read + decode)", load_ms)
    report("segment (parse + blocks)", segment_ms)
    report("gold labels (alignment)", label_ms)
    report("segment + gold labels", segment_ms + label_ms)
    report("BTE (parse + segment + span)", bte_ms)

    if importlib.util.find_spec("trafilatura") is None:
        print("  trafilatura not installed (pip install -e '.[refs]'): no comparison")
        return 0
    import trafilatura

    trafilatura_ms = time_each(pages, lambda p: trafilatura.extract(p.html))
    report(f"trafilatura {trafilatura.__version__} extract", trafilatura_ms)
    print(f"  trafilatura / BTE time ratio: {trafilatura_ms.mean() / bte_ms.mean():.1f}x (mean per page)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BoilerbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
