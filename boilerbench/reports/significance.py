"""Paired comparisons of runs over the same pages: differences with bootstrap intervals and
approximate-randomization p-values, and the best-cell / not-significantly-worse marks of the
report tables.

The statistics are :mod:`boilerbench.evaluation.stats` (pure numpy/scipy functions) applied to
the figures of :mod:`boilerbench.evaluation.aggregates`, recomputed from each run's
``pages.csv``: reports still reads result files only; these two modules are leaf helpers that
import nothing of the extractors or the runner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from boilerbench.evaluation.aggregates import Figure, figure_for, page_matrix, point_value
from boilerbench.evaluation.stats import holm, paired_bootstrap, paired_randomization

#: Significance level of the table marks (after Holm's correction).
ALPHA = 0.05
#: Shuffles of the approximate-randomization test (p-values resolve to 1 / (R + 1)).
PERMUTATIONS = 10_000
RESAMPLES = 1000
#: Rows that bound the task rather than attempt it (the gold labels, every block): shown with
#: their intervals but never the best of a column, nor compared with it.
BOUNDS = frozenset({"oracle", "all_text"})


class PageSetMismatch(Exception):
    """Runs that a paired comparison needs on the same pages cover different pages."""


def figure_key(metric: str) -> Figure:
    """The figure of a dotted metric name (``block.f1``)."""
    group, name = metric.split(".", 1)
    return figure_for(group, name)


def has_columns(pages: pd.DataFrame, figure: Figure) -> bool:
    return all(c.removeprefix("has:") in pages.columns for c in figure.columns)


def align(frames: Sequence[pd.DataFrame], names: Sequence[str]) -> list[pd.DataFrame]:
    """The runs' page rows in one page order; runs over different page sets are a
    :class:`PageSetMismatch` naming the pages that differ."""
    ids = [list(f["page_id"].astype(str)) for f in frames]
    for frame_ids, name in zip(ids, names, strict=True):
        if len(set(frame_ids)) != len(frame_ids):
            raise PageSetMismatch(f"{name} lists some pages more than once")
    reference = set(ids[0])
    problems = []
    for frame_ids, name in zip(ids[1:], names[1:], strict=True):
        other = set(frame_ids)
        if other != reference:
            only_ref, only_other = sorted(reference - other), sorted(other - reference)
            problems.append(
                f"{names[0]} ({len(reference)} pages) and {name} ({len(other)} pages) cover different pages: "
                f"{len(only_ref)} only in {names[0]}{_listing(only_ref)}, "
                f"{len(only_other)} only in {name}{_listing(only_other)}"
            )
    if problems:
        raise PageSetMismatch("; ".join(problems) + ". Paired comparisons need runs on the same pages.")
    order = ids[0]
    return [f.assign(page_id=f["page_id"].astype(str)).set_index("page_id").loc[order].reset_index() for f in frames]


def seed_mean(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The page rows of runs over the same pages (one per seed), aligned, with every numeric
    column averaged over the runs: a mean over pages of the result is the mean over the seeds of
    each run's mean."""
    aligned = align(frames, [f"seed run {k}" for k in range(len(frames))])
    numeric = aligned[0].select_dtypes("number").columns
    mean = aligned[0].copy()
    mean[numeric] = sum(frame[numeric] for frame in aligned) / len(aligned)
    return mean


def _listing(ids: list[str], shown: int = 8) -> str:
    if not ids:
        return ""
    return " (" + ", ".join(ids[:shown]) + (f", ... {len(ids) - shown} more" if len(ids) > shown else "") + ")"


@dataclass(frozen=True)
class Difference:
    """One metric of ``a - b`` over the same pages."""

    metric: str
    a: float
    b: float
    difference: float
    lo: float
    hi: float
    pvalue: float


def cluster_rows(matrix: np.ndarray, clusters: Sequence[str]) -> np.ndarray:
    """``matrix``'s page rows summed per cluster (one row per distinct cluster, in sorted order).

    Every figure is a function of column sums (:mod:`boilerbench.evaluation.aggregates`), so a
    cluster's summed row stands for its pages: resampling these rows is the cluster bootstrap
    (Field & Welsh 2007; Cameron & Miller 2015, sec. VI), a mean over pages becoming the ratio of
    the drawn clusters' sums, and swapping them is approximate randomization by cluster."""
    if len(clusters) != len(matrix):
        raise ValueError(f"{len(clusters)} cluster labels for {len(matrix)} page rows")
    names, index = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)
    out = np.zeros((len(names), matrix.shape[1]))
    np.add.at(out, index, matrix)
    return out


def compare_pair(
    a: pd.DataFrame,
    b: pd.DataFrame,
    metrics: Sequence[str],
    resamples: int = RESAMPLES,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
    clusters: Sequence[str] | None = None,
) -> list[Difference]:
    """Per metric: both runs' figures, their difference, its paired bootstrap 95 % interval and
    its paired approximate-randomization p-value. ``a`` and ``b`` must be aligned (:func:`align`).

    ``clusters`` (one label per page row, e.g. its web site) resamples and swaps whole clusters
    instead of pages (:func:`cluster_rows`): pages of one site share its template, so their
    errors are not independent and a page-level interval is too narrow when a few sites hold
    most pages. The figures and the difference are the same either way."""
    figures = {m: figure_key(m) for m in metrics}
    columns = list(dict.fromkeys(c for f in figures.values() for c in f.columns))
    matrix_a, names = page_matrix(a, columns)
    matrix_b, _ = page_matrix(b, columns)
    if clusters is not None:
        matrix_a, matrix_b = cluster_rows(matrix_a, clusters), cluster_rows(matrix_b, clusters)
    statistics = {m: f.compute for m, f in figures.items()}
    intervals = paired_bootstrap(matrix_a, matrix_b, names, statistics, resamples=resamples, seed=seed)
    pvalues = paired_randomization(matrix_a, matrix_b, names, statistics, permutations=permutations, seed=seed)
    out = []
    for metric, figure in figures.items():
        value_a, value_b = point_value(figure, a), point_value(figure, b)
        lo, hi = intervals[metric]
        out.append(Difference(metric, value_a, value_b, value_a - value_b, lo, hi, pvalues[metric]))
    return out


@dataclass(frozen=True)
class Mark:
    """A table cell's standing in its column: the best, or not significantly worse than it."""

    value: float
    best: bool
    tied: bool
    pvalue: float


def marks(
    frames: Sequence[pd.DataFrame], metric: str, permutations: int = PERMUTATIONS, seed: int = 0, alpha: float = ALPHA
) -> list[Mark]:
    """For runs over the same pages (aligned), each one's figure, whether it is the best (bold),
    and whether it is not significantly worse than the best: the Holm-corrected paired
    approximate-randomization p-value of its difference to the best is at least ``alpha``."""
    figure = figure_key(metric)
    values = np.array([point_value(figure, f) for f in frames])
    if not np.isfinite(values).any():
        return [Mark(float(v), False, False, float("nan")) for v in values]
    signed = np.where(np.isfinite(values), values if figure.higher_is_better else -values, -np.inf)
    best = int(np.argmax(signed))
    others = [i for i in range(len(frames)) if i != best and np.isfinite(values[i])]
    matrix_best, names = page_matrix(frames[best], figure.columns)
    raw = []
    for i in others:
        matrix_other, _ = page_matrix(frames[i], figure.columns)
        result = paired_randomization(matrix_best, matrix_other, names, {metric: figure.compute}, permutations, seed)
        raw.append(result[metric])
    adjusted = dict(zip(others, holm(raw), strict=True))
    out = []
    for i, value in enumerate(values):
        is_best = bool(np.isfinite(value) and np.isclose(value, values[best], rtol=0, atol=1e-12))
        p = 1.0 if i == best else adjusted.get(i, float("nan"))
        out.append(Mark(float(value), is_best, bool(not is_best and p >= alpha), float(p)))
    return out
