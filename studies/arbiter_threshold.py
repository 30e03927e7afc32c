"""How far the arbiter's threshold moves with its inner folds alone, and a rule that moves less.

The arbiter picks its threshold from the candidates (:data:`~boilerbench.extractors.arbiter.THRESHOLDS`)
as the one whose out-of-fold choices gain most on average
(:func:`~boilerbench.extractors.arbiter.choose_threshold`: two folds cut by site, and the selector
seeded with the arbiter's seed). Refitted with another seed, the headline arbiters' thresholds
moved from 0.5 to 0.75 and back, and the pages sent to Readability with them. This study holds one
fit's rows fixed (``studies.arbiter_rows --headline``: the fast arbiter's headline fit) and redraws
only the inner folds and the selector's seed, seeds 0 to N-1. It prints, per seed, the mean gain
at each candidate, the candidate the shipped rule picks, and the one a one-standard-error rule
picks (the highest candidate within one site-clustered standard error of the best: it sends a
page on only where the evidence for doing so clears the noise). Then it prints the candidate of
the curve averaged over the seeds, from each half of the seeds apart, to show how far that rule moves.

    python -m studies.arbiter_rows --headline --out ../runs/arbiter_headline
    python -m studies.arbiter_threshold --rows ../runs/arbiter_headline --seeds 10
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.common import run_main
from boilerbench.extractors.arbiter import THRESHOLDS
from studies.arbiter_sources import (
    VARIANTS,
    Training,
    curve_threshold,
    gain_curve,
    one_se_threshold,
    out_of_fold,
    read_rows,
    training,
)


def seed_curves(rows: Training, seeds: int) -> list[tuple[np.ndarray, float]]:
    """The shipped selector's out-of-fold gain curve for each seed of the inner folds, with the
    one-standard-error rule's pick from the same probabilities."""
    found = []
    for seed in range(seeds):
        probability = out_of_fold(VARIANTS["shipped"], rows, seed)
        found.append((gain_curve(probability, rows[1]), one_se_threshold(probability, rows[1], rows[2])))
    return found


def report(rows: Training, seeds: int) -> None:
    """The table of the module's docstring."""
    found = seed_curves(rows, seeds)
    curves = [curve for curve, _ in found]
    print(f"{'seed':>5} {'picked':>6} {'one SE':>6}  " + " ".join(f"{t:>7}" for t in THRESHOLDS))
    for seed, (curve, one_se) in enumerate(found):
        print(f"{seed:5d} {curve_threshold(curve):6} {one_se:6}  " + " ".join(f"{g:+.4f}" for g in curve))
    half = seeds // 2
    mean = np.mean(curves, axis=0)
    print(f"{'mean':>5} {curve_threshold(mean):6} {'':6}  " + " ".join(f"{g:+.4f}" for g in mean))
    print(f"the shipped rule's picks over the seeds: {sorted(curve_threshold(c) for c in curves)}")
    print(f"the one-standard-error rule's picks: {sorted(one_se for _, one_se in found)}")
    print(
        "the averaged curve's pick from seeds 0 to "
        f"{half - 1}: {curve_threshold(np.mean(curves[:half], axis=0))}; "
        f"from seeds {half} to {seeds - 1}: {curve_threshold(np.mean(curves[half:], axis=0))}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=Path, required=True, help="the folder studies.arbiter_rows --headline wrote")
    parser.add_argument("--seeds", type=int, default=10, help="seeds of the inner folds and the selector (0 to N-1)")
    args = parser.parse_args(argv)
    rows = [r for r in read_rows(args.rows) if r["part"] != "test"]
    report(training(rows, VARIANTS["shipped"]), args.seeds)
    return 0


if __name__ == "__main__":
    run_main(main)
