"""Headless-Chromium render time per page (FIASCO's visual features), cold and from the cache.

Renders the first ``--limit`` CleanEval test pages with :func:`boilerbench.render.page_layout`
into a fresh temporary cache: the first pass starts the browser once and lays every page out
(the time FIASCO pays once per page), the second reads the cached layouts. Prints mean, median
and p95 milliseconds per page for both, the browser's start-up time, and how many pages could
not be rendered.

    BOILERBENCH_DATA=../shared/datasets python -m benchmarks.render [--limit 100]
"""

from __future__ import annotations

import argparse
import tempfile

import numpy as np

from benchmarks.common import record, run_main, timed
from boilerbench.cache import set_cache_dir
from boilerbench.datasets.cleaneval import CleanEval
from boilerbench.errors import MissingDependencyError
from boilerbench.render import RenderError, page_layout, renderer

#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--limit", "5"]
FULL: list[str] = []


def layout_or_none(root):
    """The page's layout, or None where Chromium cannot render it."""
    try:
        return page_layout(root)
    except RenderError:
        return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="cleaneval")
    parser.add_argument("--limit", type=int, default=100)
    args = parser.parse_args(argv)
    pages = CleanEval(split=args.split).load().test[: args.limit]
    roots = [page.blocks.root for page in pages]
    r = renderer()
    print(r.version())
    try:  # starts the browser; a one-element page
        start_s = timed(lambda: page_layout(roots[0].makeelement("html")))[1]
    except RenderError as err:
        raise MissingDependencyError(f"headless Chromium does not run here: {err}") from err
    print(f"browser start and first (empty) page: {1000 * start_s:.0f} ms")
    record("browser_start_ms", 1000 * start_s)
    with tempfile.TemporaryDirectory() as tmp:
        set_cache_dir(tmp)
        for label in ("render", "cached"):
            rendered, seconds = zip(*(timed(lambda root=root: layout_or_none(root)) for root in roots), strict=True)
            a = 1000 * np.array(seconds)
            failed = sum(layout is None for layout in rendered)
            record(f"{label}_ms", a.mean())
            print(
                f"{label:<7} {len(a)} pages: mean {a.mean():7.1f} ms  median {np.median(a):7.1f}  "
                f"p95 {np.percentile(a, 95):7.1f}  not rendered {failed}"
            )
        set_cache_dir(None)
    return 0


if __name__ == "__main__":
    run_main(main)
