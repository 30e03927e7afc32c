"""The figures of a run's ``summary.json`` as functions of per-page column sums, for intervals
and paired tests over pages.

Each figure is computed from the run's page rows (``pages.csv``, or the runner's rows before it
writes them): a mean over pages is ``sum(value) / sum(present)``; a pooled (micro) figure such as
block F1 is recomputed from the pooled counts, as the runner pools them, so that resampling
pages resamples the figure the paper tables report. :func:`add_intervals` puts a seeded
page-level bootstrap 95 % interval (``<name>_ci95: [lo, hi]``) beside every figure of a
``metrics`` section that it can recompute exactly from the rows; the check that the recomputed
value equals the reported one guards the mapping from figures to columns.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from boilerbench.evaluation.classification import prf_arrays
from boilerbench.evaluation.stats import Statistic, Sums, bootstrap_intervals

log = logging.getLogger(__name__)

#: Suffix of an interval's key beside its figure (``f1`` -> ``f1_ci95``).
CI_SUFFIX = "_ci95"
CI_LEVEL = 0.95
#: The prefix of a column's presence indicator (1 where the page has a value).
PRESENT = "has:"


@dataclass(frozen=True)
class Figure:
    """A figure of the run: the page columns it needs and how it follows from their sums."""

    columns: tuple[str, ...]
    compute: Statistic
    higher_is_better: bool = True


def mean_of(column: str, higher_is_better: bool = True) -> Figure:
    """The mean of ``column`` over the pages that have a value."""

    def compute(s: Sums) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(s[column] / s[PRESENT + column], dtype=float)

    return Figure((column, PRESENT + column), compute, higher_is_better)


def _block_accuracy(s: Sums) -> np.ndarray:
    correct = s["n_blocks"] - s["n_pred_blocks"] - s["n_gold_blocks"] + 2 * s["n_tp_blocks"]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s["n_blocks"] > 0, correct / s["n_blocks"], np.nan)


def _block_prf(index: int) -> Statistic:
    return lambda s: prf_arrays(s["n_tp_blocks"], s["n_pred_blocks"], s["n_gold_blocks"])[index]


def _cleaneval_micro(s: Sums) -> np.ndarray:
    total = s["n_pred_tokens"] + s["n_gold_tokens"] - s["n_lcs_tokens"]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, 100.0 * s["n_lcs_tokens"] / total, 100.0)


_BLOCK_COUNTS = ("n_blocks", "n_pred_blocks", "n_gold_blocks", "n_tp_blocks")

#: (group, name) of ``summary["metrics"]`` -> the figure. A figure not listed here is taken to
#: be the mean of the page column ``<group>_<name>`` when there is one (``token_f1``).
FIGURES: dict[tuple[str, str], Figure] = {
    ("cleaneval", "mean"): mean_of("cleaneval"),
    ("cleaneval", "markup_mean"): mean_of("cleaneval_markup"),
    ("cleaneval", "mean_2007"): mean_of("cleaneval_2007"),
    ("cleaneval", "micro"): Figure(("n_lcs_tokens", "n_pred_tokens", "n_gold_tokens"), _cleaneval_micro),
    ("lcs_error", "mean"): mean_of("lcs_error", higher_is_better=False),
    ("lcs_error", "wrong_rate"): mean_of("lcs_wrong", higher_is_better=False),
    ("block", "accuracy"): Figure(_BLOCK_COUNTS, _block_accuracy),
    ("block", "precision"): Figure(_BLOCK_COUNTS, _block_prf(0)),
    ("block", "recall"): Figure(_BLOCK_COUNTS, _block_prf(1)),
    ("block", "f1"): Figure(_BLOCK_COUNTS, _block_prf(2)),
    ("block", "macro_f1"): mean_of("block_f1"),
    ("rouge_lsum", "precision"): mean_of("rouge_precision"),
    ("rouge_lsum", "recall"): mean_of("rouge_recall"),
    ("rouge_lsum", "f1"): mean_of("rouge_f1"),
    ("snippets", "with_found"): mean_of("snippet_with_found"),
    ("snippets", "without_absent"): mean_of("snippet_without_absent"),
    ("snippets", "f1"): mean_of("snippet_f1"),
}


def figure_for(group: str, name: str) -> Figure:
    """The figure ``metrics.<group>.<name>``: listed in :data:`FIGURES`, else the mean of the
    page column ``<group>_<name>``."""
    return FIGURES.get((group, name)) or mean_of(f"{group}_{name}")


def numeric(column: pd.Series) -> np.ndarray:
    """A page column as floats: booleans (also as ``True``/``False`` text, as ``pages.csv`` is
    read back) as 0/1, anything else that is not a number (an empty cell) as NaN."""
    if column.dtype == object:
        column = column.replace({"True": 1.0, "False": 0.0, "true": 1.0, "false": 0.0})
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)


def page_matrix(pages: pd.DataFrame, columns: Iterable[str]) -> tuple[np.ndarray, list[str]]:
    """The (pages x columns) matrix of the value columns ``columns`` (missing values as 0) and
    of their presence indicators (``has:<column>``), and the names of its columns. A column the
    rows do not have is a ``KeyError``."""
    names: list[str] = []
    parts = []
    for column in dict.fromkeys(c.removeprefix(PRESENT) for c in columns):
        values = numeric(pages[column])
        present = np.isfinite(values)
        parts += [np.where(present, values, 0.0), present.astype(float)]
        names += [column, PRESENT + column]
    matrix = np.column_stack(parts) if parts else np.zeros((len(pages), 0))
    return matrix, names


def point_value(figure: Figure, pages: pd.DataFrame) -> float:
    """The figure over all of ``pages`` (what the run reports). Each column is summed over the
    pages that have a value, in page order, so that a mean is exactly what ``numpy.mean`` of
    those values gives."""
    sums: dict[str, np.ndarray] = {}
    for column in dict.fromkeys(c.removeprefix(PRESENT) for c in figure.columns):
        values = numeric(pages[column])
        present = np.isfinite(values)
        sums[column], sums[PRESENT + column] = np.asarray(values[present].sum()), np.asarray(float(present.sum()))
    return float(figure.compute(sums))


def add_intervals(metrics: dict, pages: pd.DataFrame, resamples: int = 1000, seed: int = 0) -> dict:
    """``metrics`` (a ``summary.json`` metrics section: group -> name -> value) with
    ``<name>_ci95: [lo, hi]`` beside each figure, a percentile interval over ``resamples``
    page-level bootstrap resamples (one seeded draw for all figures). A figure whose page
    columns are missing, or whose value the rows do not reproduce, gets none (and a warning
    for the latter). ``resamples=0`` adds nothing."""
    if resamples <= 0 or pages.empty:
        return metrics
    statistics: dict[tuple[str, str], Statistic] = {}
    columns: dict[str, None] = {}
    for group, values in metrics.items():
        if not isinstance(values, Mapping):
            continue
        for name, value in values.items():
            if name.endswith(CI_SUFFIX) or not isinstance(value, int | float) or not np.isfinite(value):
                continue
            figure = figure_for(group, name)
            if any(c.removeprefix(PRESENT) not in pages.columns for c in figure.columns):
                continue
            recomputed = point_value(figure, pages)
            if not np.isclose(recomputed, value, rtol=1e-9, atol=1e-12):
                log.warning("metrics.%s.%s = %r but the page rows give %r: no interval", group, name, value, recomputed)
                continue
            statistics[(group, name)] = figure.compute
            columns.update(dict.fromkeys(figure.columns))
    matrix, names = page_matrix(pages, columns)
    intervals = bootstrap_intervals(matrix, names, statistics, resamples=resamples, seed=seed, level=CI_LEVEL)
    out: dict = {}
    for group, values in metrics.items():
        if not isinstance(values, Mapping):
            out[group] = values
            continue
        out[group] = {}
        for name, value in values.items():  # each interval right after its figure
            out[group][name] = value
            if (group, name) in intervals:
                out[group][name + CI_SUFFIX] = list(intervals[(group, name)])
    return out
