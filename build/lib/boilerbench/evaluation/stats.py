"""Statistics for comparing extractors: page-level bootstrap intervals, paired tests, ranks.

Pure functions of arrays (numpy; scipy for the reference distributions). Pages are the unit
of resampling: a run's figures are functions of per-page values, and every figure we report
(a mean over pages, or a pooled ratio such as micro block F1) is a function of per-page
column *sums* (see :mod:`boilerbench.evaluation.aggregates`). Resampling pages is therefore a
weighted sum: a (resamples x pages) matrix of how often each page is drawn times the
(pages x columns) matrix of page values, one matrix product for all figures at once.

- Bootstrap percentile interval (Efron & Tibshirani 1993, ch. 13), pages drawn with
  replacement; a pooled figure is recomputed from the pooled counts of the drawn pages.
- Paired bootstrap interval of a difference (Koehn 2004): the same draw for both systems.
- Paired approximate randomization (Noreen 1989; Riezler & Maxwell 2005): under the null
  hypothesis the two systems' outputs on a page are exchangeable, so each page's pair is
  swapped with probability 1/2; ``p = (1 + #{|d*| >= |d|}) / (1 + R)`` (two-sided).
- Holm's (1979) step-down correction for several comparisons.
- Friedman test over datasets and the Nemenyi critical difference of average ranks
  (Demšar 2006, JMLR 7, sec. 3.2.2), with scipy's chi-square and studentized-range
  distributions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from scipy import stats as sps

#: Resampled column sums by column name; each value has one entry per resample (or is a scalar).
Sums = Mapping[str, np.ndarray]
#: A figure as a function of column sums (vectorised over resamples).
Statistic = Callable[[Sums], np.ndarray]

#: The key naming each statistic (a metric name, or a (group, name) pair).
K = TypeVar("K")

#: Rows of the resampling matrices generated at a time (bounds memory for large page sets).
_CHUNK = 1000


def resample_counts(n_pages: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """How often each page is drawn in each bootstrap resample: ``(resamples, n_pages)`` counts,
    each row summing to ``n_pages`` (pages drawn uniformly with replacement)."""
    draws = rng.integers(0, n_pages, size=(resamples, n_pages))
    offsets = np.arange(resamples)[:, None] * n_pages
    return np.bincount((draws + offsets).ravel(), minlength=resamples * n_pages).reshape(resamples, n_pages)


def _sums(totals: np.ndarray, names: Sequence[str]) -> dict[str, np.ndarray]:
    return {name: totals[..., j] for j, name in enumerate(names)}


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The central ``level`` percentile interval of bootstrap samples (NaN samples ignored)."""
    samples = np.asarray(samples, dtype=float)
    if not np.isfinite(samples).any():
        return (float("nan"), float("nan"))
    tail = 100 * (1 - level) / 2
    lo, hi = np.nanpercentile(samples, [tail, 100 - tail])
    return (float(lo), float(hi))


def bootstrap_intervals(
    values: np.ndarray,
    names: Sequence[str],
    statistics: Mapping[K, Statistic],
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[K, tuple[float, float]]:
    """Percentile bootstrap interval of each statistic over ``values`` (pages x columns named
    ``names``), pages resampled with replacement ``resamples`` times with one seeded draw shared
    by all statistics."""
    values = np.asarray(values, dtype=float)
    counts = resample_counts(len(values), resamples, np.random.default_rng(seed))
    sums = _sums(counts @ values, names)
    return {key: percentile_interval(f(sums), level) for key, f in statistics.items()}


def paired_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    names: Sequence[str],
    statistics: Mapping[K, Statistic],
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[K, tuple[float, float]]:
    """Percentile bootstrap interval of ``statistic(a) - statistic(b)``, the two runs' page
    rows (aligned: row i of ``a`` and ``b`` is the same page) resampled together."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired runs differ in shape: {a.shape} vs {b.shape}")
    counts = resample_counts(len(a), resamples, np.random.default_rng(seed))
    sums_a, sums_b = _sums(counts @ a, names), _sums(counts @ b, names)
    return {key: percentile_interval(f(sums_a) - f(sums_b), level) for key, f in statistics.items()}


def paired_randomization(
    a: np.ndarray,
    b: np.ndarray,
    names: Sequence[str],
    statistics: Mapping[K, Statistic],
    permutations: int = 10_000,
    seed: int = 0,
) -> dict[K, float]:
    """Two-sided approximate-randomization p-value of ``statistic(a) - statistic(b)`` for each
    statistic: each page's two rows are swapped with probability 1/2, ``permutations`` times.

    Identical runs give p = 1 (every shuffle reproduces the observed difference of 0)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired runs differ in shape: {a.shape} vs {b.shape}")
    total_a, total_b = a.sum(axis=0), b.sum(axis=0)
    observed = {key: float(f(_sums(total_a, names)) - f(_sums(total_b, names))) for key, f in statistics.items()}
    delta = b - a
    at_least = dict.fromkeys(statistics, 0)
    rng = np.random.default_rng(seed)
    for start in range(0, permutations, _CHUNK):
        swaps = rng.integers(0, 2, size=(min(_CHUNK, permutations - start), len(a))).astype(float)
        shift = swaps @ delta  # moving page i's row from a to b and back changes the sums by delta_i
        sums_a, sums_b = _sums(total_a + shift, names), _sums(total_b - shift, names)
        for key, f in statistics.items():
            diff = np.abs(f(sums_a) - f(sums_b))
            bar = abs(observed[key])
            # a shuffle as extreme as the observation, up to rounding in the sums
            at_least[key] += int(np.sum(diff >= bar - 1e-12 * (1.0 + bar)))
    return {key: (at_least[key] + 1) / (permutations + 1) for key in statistics}


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979): the i-th smallest of m p-values is
    multiplied by m - i + 1, made monotone, and capped at 1."""
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    if m == 0:
        return p
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    adjusted = np.empty(m)
    adjusted[order] = scaled
    return adjusted


def average_ranks(scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Mean rank of each method (columns) over datasets (rows), rank 1 the best, ties averaged."""
    scores = np.asarray(scores, dtype=float)
    ranks = sps.rankdata(-scores if higher_is_better else scores, axis=1)
    return ranks.mean(axis=0)


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test of k methods on N datasets and the Nemenyi critical difference."""

    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float
    critical_difference: float
    n_datasets: int
    n_methods: int


def nemenyi_critical_difference(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Demšar's critical difference of average ranks: ``q_alpha * sqrt(k (k + 1) / (6 N))``, with
    ``q_alpha`` the studentized range quantile over sqrt(2) (1.960 for k = 2, 3.164 for k = 10)."""
    q = sps.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets)))


def friedman(scores: np.ndarray, alpha: float = 0.05) -> FriedmanResult:
    """Friedman's test that k methods (columns, k >= 3) perform alike over N datasets (rows),
    with Iman and Davenport's F correction (Demšar sec. 3.2.2) and the Nemenyi critical difference."""
    scores = np.asarray(scores, dtype=float)
    n, k = scores.shape
    if k < 3 or n < 2:
        raise ValueError(f"Friedman's test needs at least 3 methods and 2 datasets (got {k} and {n})")
    chi2, p = sps.friedmanchisquare(*scores.T)
    denominator = n * (k - 1) - chi2
    f_stat = (n - 1) * chi2 / denominator if denominator > 0 else float("inf")
    f_p = float(sps.f.sf(f_stat, k - 1, (k - 1) * (n - 1))) if np.isfinite(f_stat) else 0.0
    return FriedmanResult(float(chi2), float(p), float(f_stat), f_p, nemenyi_critical_difference(k, n, alpha), n, k)
