"""Headless-Chromium render time per page (FIASCO's visual features), cold and from the cache.

Renders the first ``--limit`` CleanEval test pages with :func:`boilerbench.render.page_layout`
into a fresh temporary cache: the first pass starts the browser once and lays every page out
(the time FIASCO pays once per page), the second reads the cached layouts. Prints mean, median
and p95 milliseconds per page for both, the browser's start-up time, and how many pages could
not be rendered.

    BOILERBENCH_DATA=../shared/datasets PYTHONPATH=. python benchmarks/render.py [--limit 100]
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
from cli import run_main

from boilerbench.cache import set_cache_dir
from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.render import RenderError, page_layout, renderer


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="cleaneval")
    parser.add_argument("--limit", type=int, default=100)
    args = parser.parse_args(argv)
    pages = CleanEval(split=args.split).load().test[: args.limit]
    roots = [page.blocks.root for page in pages]
    r = renderer()
    print(r.version())
    start = time.perf_counter()
    page_layout(roots[0].makeelement("html"))  # starts the browser; a one-element page
    print(f"browser start and first (empty) page: {1000 * (time.perf_counter() - start):.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        set_cache_dir(tmp)
        for label in ("render", "cached"):
            ms, failed = [], 0
            for root in roots:
                t = time.perf_counter()
                try:
                    page_layout(root)
                except RenderError:
                    failed += 1
                ms.append(1000 * (time.perf_counter() - t))
            a = np.array(ms)
            print(
                f"{label:<7} {len(a)} pages: mean {a.mean():7.1f} ms  median {np.median(a):7.1f}  "
                f"p95 {np.percentile(a, 95):7.1f}  not rendered {failed}"
            )
        set_cache_dir(None)
    return 0


if __name__ == "__main__":
    run_main(main)
