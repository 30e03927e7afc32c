"""Bootstrap intervals, paired tests, Holm, Friedman / Nemenyi, and the summary intervals, on
small hand-made data with hand-computed (or published) expectations."""

import logging

import numpy as np
import pandas as pd
import pytest

from boilerbench.evaluation import BlockCounts, block_metrics
from boilerbench.evaluation.aggregates import FIGURES, add_intervals, mean_of, page_matrix, point_value
from boilerbench.evaluation.classification import prf_arrays, prf_from_counts
from boilerbench.evaluation.stats import (
    average_ranks,
    bootstrap_intervals,
    friedman,
    holm,
    nemenyi_critical_difference,
    paired_bootstrap,
    paired_randomization,
    resample_counts,
)

MEAN = {"m": mean_of("x").compute}


def _columns(values):
    matrix, names = page_matrix(pd.DataFrame({"x": values}), ["x"])
    return matrix, names


def test_resamples_draw_every_page_count_times_and_are_seeded():
    counts = resample_counts(50, 200, np.random.default_rng(3))
    assert counts.shape == (200, 50) and (counts.sum(axis=1) == 50).all()
    assert (counts == resample_counts(50, 200, np.random.default_rng(3))).all()
    # each page is drawn once per resample on average
    assert counts.mean() == pytest.approx(1.0)


def test_interval_of_a_constant_is_the_constant_and_a_mean_matches_the_normal_theory():
    matrix, names = _columns([0.7] * 30)
    assert bootstrap_intervals(matrix, names, MEAN)["m"] == pytest.approx((0.7, 0.7))
    values = np.random.default_rng(0).normal(0.5, 0.2, 2000)
    lo, hi = bootstrap_intervals(*_columns(values), MEAN, resamples=2000)["m"]
    half = 1.96 * values.std() / np.sqrt(len(values))  # about 0.0088
    assert lo < values.mean() < hi
    assert (hi - lo) / 2 == pytest.approx(half, rel=0.1)


def test_pooled_figures_recompute_the_runners_micro_block_metrics():
    rng = np.random.default_rng(1)
    counts = []
    for _ in range(40):
        n = int(rng.integers(1, 30))
        pred, gold = rng.integers(0, 2, n), rng.integers(0, 2, n)
        counts.append(BlockCounts(int((pred & gold).sum()), int(pred.sum()), int(gold.sum()), n))
    rows = pd.DataFrame(
        {
            "n_tp_blocks": [c.tp for c in counts],
            "n_pred_blocks": [c.n_pred for c in counts],
            "n_gold_blocks": [c.n_gold for c in counts],
            "n_blocks": [c.n_blocks for c in counts],
        }
    )
    expected = block_metrics(counts)
    for name in ("accuracy", "precision", "recall", "f1"):
        assert point_value(FIGURES[("block", name)], rows) == pytest.approx(expected[name], abs=1e-12)


def test_vectorised_prf_keeps_the_empty_case_convention():
    cases = [(0, 0, 0), (0, 3, 0), (0, 0, 4), (2, 3, 4), (0, 2, 5)]
    p, r, f = prf_arrays(*map(np.array, zip(*cases, strict=True)))
    for i, case in enumerate(cases):
        assert (p[i], r[i], f[i]) == pytest.approx(tuple(vars(prf_from_counts(*case)).values()))


def test_identical_runs_differ_by_zero_with_p_one():
    values = np.random.default_rng(2).uniform(size=100)
    matrix, names = _columns(values)
    assert paired_randomization(matrix, matrix.copy(), names, MEAN, permutations=2000)["m"] == 1.0
    assert paired_bootstrap(matrix, matrix.copy(), names, MEAN)["m"] == (0.0, 0.0)


def test_a_planted_large_difference_is_significant():
    rng = np.random.default_rng(4)
    base = rng.uniform(0.3, 0.9, 60)
    better, _ = _columns(base + 0.1 + rng.normal(0, 0.05, 60))
    worse, names = _columns(base)
    p = paired_randomization(better, worse, names, MEAN, permutations=5000)["m"]
    assert p < 0.01 and p == pytest.approx(1 / 5001)  # no shuffle reaches it
    lo, hi = paired_bootstrap(better, worse, names, MEAN)["m"]
    assert 0.08 < lo < 0.1 < hi < 0.12


def test_a_difference_on_one_page_of_two_is_not_significant():
    # every shuffle gives |d| = 0.5 again (swapping page 1 flips the sign): p = 1
    a, names = _columns([1.0, 0.5])
    b, _ = _columns([0.0, 0.5])
    assert paired_randomization(a, b, names, MEAN, permutations=4000)["m"] == 1.0


def test_holm_step_down():
    # sorted: 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 = 0.04 -> monotone 0.03, 0.06, 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_nemenyi_critical_difference_matches_demsar():
    # Demšar 2006, table 5(a): q_0.05 = 1.960 (k = 2), 2.343 (3), 2.728 (5), 3.164 (10)
    for k, q in ((2, 1.960), (3, 2.343), (5, 2.728), (10, 3.164)):
        assert nemenyi_critical_difference(k, 6) == pytest.approx(q * np.sqrt(k * (k + 1) / 36), abs=2e-3)
    # his worked example: four classifiers on 14 data sets, CD = 1.25
    assert nemenyi_critical_difference(4, 14) == pytest.approx(1.25, abs=0.01)


def test_friedman_on_a_consistent_order():
    # 5 datasets, 3 methods always ranked 1, 2, 3: chi2 = 12 N / (k (k + 1)) * (sum R^2 - k (k + 1)^2 / 4) = 10
    scores = np.array([[0.9, 0.8, 0.7]] * 5) + np.arange(5)[:, None] * 0.01
    result = friedman(scores)
    assert result.statistic == pytest.approx(10.0) and result.pvalue == pytest.approx(np.exp(-5))
    assert average_ranks(scores) == pytest.approx([1, 2, 3])
    assert average_ranks(np.array([[0.5, 0.5, 0.1]])) == pytest.approx([1.5, 1.5, 3])
    with pytest.raises(ValueError, match="3 methods"):
        friedman(scores[:, :2])


def _rows():
    return pd.DataFrame(
        {
            "page_id": ["a", "b", "c", "d"],
            "cleaneval": [100.0, 50.0, 0.0, 80.0],
            "token_f1": [1.0, 0.5, 0.0, 0.8],
            "block_f1": [1.0, 0.5, np.nan, 0.8],  # page c: not segmented
            "n_blocks": [4, 3, np.nan, 5],
            "n_tp_blocks": [1, 1, np.nan, 2],
            "n_pred_blocks": [1, 2, np.nan, 3],
            "n_gold_blocks": [1, 2, np.nan, 2],
        }
    )


def test_summary_intervals_beside_every_figure_the_rows_reproduce(caplog):
    rows = _rows()
    metrics = {
        "cleaneval": {"mean": 57.5},
        "token": {"f1": 0.575},
        # pooled over pages a, b, d: tp 4, predicted 6, gold 5 -> P 2/3, R 4/5; macro over 3 pages
        "block": {"precision": 4 / 6, "recall": 0.8, "f1": 8 / 11, "macro_f1": 2.3 / 3},
        "other": {"mean": 1.0},  # no page column: no interval
    }
    with caplog.at_level(logging.WARNING):
        out = add_intervals({**metrics, "lcs_error": {"mean": 0.3}}, rows.assign(lcs_error=0.1), resamples=500)
    # 0.3 is not the rows' 0.1: a wrong mapping gets no interval, and a warning
    assert "metrics.lcs_error.mean" in caplog.text and "mean_ci95" not in out["lcs_error"]
    assert "mean_ci95" not in out["other"]
    for group in ("cleaneval", "token", "block"):
        for name, value in metrics[group].items():
            lo, hi = out[group][f"{name}_ci95"]
            assert lo <= value <= hi
    assert out["token"]["f1_ci95"][0] >= 0.0 and out["token"]["f1_ci95"][1] <= 1.0
    # seeded: the same intervals twice; another seed, other intervals
    assert add_intervals(metrics, rows, resamples=500) == add_intervals(metrics, rows, resamples=500)
    assert add_intervals(metrics, rows, resamples=30, seed=1) != add_intervals(metrics, rows, resamples=30)
    assert add_intervals(metrics, rows, resamples=0) == metrics
