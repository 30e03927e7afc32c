"""The LCS behind the CleanEval score and the aligner, with and without the exact reductions of
:mod:`boilerbench.lcs` (tokens the other side lacks dropped, common prefix and suffix matched),
on the longest pages of a dataset and on a synthetic page of ``--units`` repeated article
blocks (the bad-input test's gigantic page, smaller), measured in one run (ratios, not absolute
times).

Two workloads per page: the score of the all-text extraction (every block's tokens) against the
gold (``lcs_length``), and the gold labels' alignment of the block tokens to the gold tokens
(``lcs_alignment``, reductions forced on). Both paths must give the same LCS length.

    BOILERBENCH_DATA=../shared/datasets python -m benchmarks.lcs_speed [--dataset cleaneval] [--pages 50]
        [--units 2000]
"""

from __future__ import annotations

import argparse
from itertools import chain

import numpy as np
from rapidfuzz.distance import LCSseq

from benchmarks.common import record, run_main, timed
from benchmarks.dataset_speed import load
from boilerbench import lcs
from boilerbench.datasets.page import Page
from boilerbench.tokenizer import normalise_tokens

#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--pages", "5", "--units", "300"]
FULL = ["--pages", "50", "--units", "2000"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="cleaneval")
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--units", type=int, default=2000)
    args = parser.parse_args(argv)
    split, _ = load(args.dataset)
    pages = sorted([*split.train, *split.validation, *split.test], key=lambda p: -len(p.html))[: args.pages]
    lcs.REDUCE_ABOVE_CELLS = 0  # the reductions on every page, to compare them with the full streams
    report(f"{len(pages)} largest pages of {args.dataset}", pages, "dataset")
    sentence = "The council said on Monday that the old stone bridge will close for repairs all summer."
    unit = f"<div><a href='/'>Home</a> | <a href='/news'>News</a><p>{sentence}</p></div>"
    html = f"<html><body>{unit * args.units}</body></html>"
    big = Page("big", html, " ".join([sentence] * args.units))
    report(f"synthetic page of {args.units:,} units", [big], "synthetic")
    return 0


def report(what: str, pages: list[Page], workload: str) -> None:
    """Time both paths on ``pages`` and print (and record, as ``workload``) ms per page and the speed-up."""
    times = {"score full": 0.0, "score reduced": 0.0, "align full": 0.0, "align reduced": 0.0}
    sizes = []
    for page in pages:
        blocks = list(chain.from_iterable(page.blocks.tokens))
        gold = normalise_tokens(page.gold_text, page.tokenizer)
        sizes.append(len(blocks))
        full, t_full = timed(lambda b=blocks, g=gold: int(LCSseq.similarity(b, g)))
        reduced, t_red = timed(lambda b=blocks, g=gold: lcs.lcs_length(b, g))
        match_full, a_full = timed(lambda b=blocks, g=gold: lcs._matching(b, g))
        match_red, a_red = timed(lambda b=blocks, g=gold: lcs.lcs_alignment(b, g))
        assert full == reduced == int((np.asarray(match_full) >= 0).sum()) == int((np.asarray(match_red) >= 0).sum())
        times["score full"] += t_full
        times["score reduced"] += t_red
        times["align full"] += a_full
        times["align reduced"] += a_red
        page.release()
    print(f"{what}: {int(np.median(sizes)):,} block tokens (median)")
    print(f"{'step':<16} {'full ms/page':>13} {'reduced ms/page':>16} {'speed-up':>9}")
    for step in ("score", "align"):
        full, red = times[f"{step} full"], times[f"{step} reduced"]
        print(f"{step:<16} {1000 * full / len(pages):>13.1f} {1000 * red / len(pages):>16.1f} {full / red:>8.2f}x")
        record(f"{workload}_{step}_full_ms", 1000 * full / len(pages))
        record(f"{workload}_{step}_reduced_ms", 1000 * red / len(pages))
    print("same LCS length on every page: True")


if __name__ == "__main__":
    run_main(main)
