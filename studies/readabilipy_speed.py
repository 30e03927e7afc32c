"""ReadabiliPy through node, before and after: one node process per page (ReadabiliPy's own
``simple_json_from_html_string(use_readability=True)``) against one node process for all pages
(boilerbench's engine, ``readability_server.js``), on the same pages in one run; the number of
pages on which the two give a different text (expected: none) is printed with the times.

Wall time per page (node runs in a child process, so the parent's CPU time would miss it).

    BOILERBENCH_DATA=../shared/datasets python -m studies.readabilipy_speed [--datasets cleaneval,wcxb] [--pages 40]
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import run_main
from benchmarks.dataset_speed import load
from boilerbench.extractors.references.readabilipy import ReadabiliPy


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="cleaneval,wcxb")
    parser.add_argument("--pages", type=int, default=40, help="pages per dataset (the first ones of its test part)")
    args = parser.parse_args(argv)
    extractor = ReadabiliPy(engine="node")
    lib = extractor._lib
    header = ("dataset", "pages", "per page (ms)", "one server (ms)", "speed-up", "texts differ")
    print("{:<12} {:>5} {:>14} {:>16} {:>9} {:>13}".format(*header))
    for name in args.datasets.split(","):
        split, _ = load(name)
        pages = [p for p in split.test if not p.load_error and p.html.strip()][: args.pages]
        start = time.perf_counter()
        before = [lib.simple_json_from_html_string(p.html, use_readability=True).get("plain_text") or [] for p in pages]
        per_page = 1000 * (time.perf_counter() - start) / len(pages)
        extractor.node_blocks("<p>warm-up: node and jsdom loaded before the clock starts</p>")
        start = time.perf_counter()
        after = [extractor.node_blocks(p.html) for p in pages]
        server = 1000 * (time.perf_counter() - start) / len(pages)
        differ = sum(a != b for a, b in zip(before, after, strict=True))
        print(f"{name:<12} {len(pages):>5} {per_page:>14.1f} {server:>16.1f} {per_page / server:>8.2f}x {differ:>13}")
    return 0


if __name__ == "__main__":
    run_main(main)
