"""Speed of the statistics: the summary's bootstrap intervals (every figure, 1,000 resamples) and
a paired comparison (bootstrap interval and 10,000-shuffle approximate randomization, every
figure) on synthetic page rows shaped like a run's ``pages.csv``.

    python -m benchmarks.bootstrap_speed [--pages 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from benchmarks.common import record, run_main, timed
from boilerbench.evaluation.aggregates import add_intervals, figure_for, point_value
from boilerbench.reports.significance import compare_pair

#: The harness's sizes (``python -m benchmarks [--full]``).
QUICK = ["--pages", "500", "--repeats", "1"]
FULL = ["--pages", "2000", "--repeats", "3"]

GROUPS = {
    "cleaneval": ("mean", "micro"),
    "lcs_error": ("mean", "wrong_rate"),
    "block": ("accuracy", "precision", "recall", "f1", "macro_f1"),
    "token": ("precision", "recall", "f1"),
}


def synthetic_pages(n: int, seed: int) -> pd.DataFrame:
    """Page rows with the columns the figures need, random but consistent (tp <= predicted, gold)."""
    rng = np.random.default_rng(seed)
    blocks = rng.integers(5, 400, n)
    gold = (blocks * rng.uniform(0.1, 0.9, n)).astype(int)
    pred = (blocks * rng.uniform(0.1, 0.9, n)).astype(int)
    tp = np.minimum(gold, pred) * rng.uniform(0.5, 1.0, n)
    tokens_gold, tokens_pred = rng.integers(10, 3000, n), rng.integers(10, 3000, n)
    lcs = (np.minimum(tokens_gold, tokens_pred) * rng.uniform(0.3, 1.0, n)).astype(int)
    frame = pd.DataFrame(
        {
            "page_id": [str(i) for i in range(n)],
            "cleaneval": 100 * lcs / (tokens_gold + tokens_pred - lcs),
            "lcs_error": 1 - lcs / tokens_pred,
            "n_blocks": blocks,
            "n_gold_blocks": gold,
            "n_pred_blocks": pred,
            "n_tp_blocks": tp.astype(int),
            "n_pred_tokens": tokens_pred,
            "n_gold_tokens": tokens_gold,
            "n_lcs_tokens": lcs,
        }
    )
    frame["lcs_wrong"] = frame["lcs_error"] > 0.2
    for name in ("precision", "recall", "f1"):
        frame[f"token_{name}"] = rng.uniform(0, 1, n)
    frame["block_f1"] = rng.uniform(0, 1, n)
    return frame


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3, help="best of N")
    args = parser.parse_args(argv)
    a, b = synthetic_pages(args.pages, 0), synthetic_pages(args.pages, 1)
    metrics = {g: {n: point_value(figure_for(g, n), a) for n in names} for g, names in GROUPS.items()}
    n_figures = sum(map(len, GROUPS.values()))
    best = min(timed(lambda: add_intervals(metrics, a, resamples=1000))[1] for _ in range(args.repeats))
    print(f"summary intervals: {n_figures} figures x 1,000 resamples on {args.pages:,} pages: {best:.3f} s")
    record("intervals_s", best)
    names = [f"{g}.{n}" for g, ns in GROUPS.items() for n in ns]
    best = min(timed(lambda: compare_pair(a, b, names))[1] for _ in range(args.repeats))
    record("paired_comparison_s", best)
    print(
        f"paired comparison: {n_figures} figures, 1,000 bootstrap resamples + 10,000 shuffles on "
        f"{args.pages:,} pages: {best:.3f} s"
    )
    return 0


if __name__ == "__main__":
    run_main(main)
