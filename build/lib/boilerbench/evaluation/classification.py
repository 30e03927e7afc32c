"""Precision, recall and F1 from counts, with one convention for empty cases.

When a ratio's denominator is zero the ratio is 1.0 if the other side is empty too (nothing
to find and nothing found is a perfect answer) and 0.0 otherwise (as scikit-learn's
``zero_division=0``); F1 of zero precision and recall is 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 of the positive class."""

    precision: float
    recall: float
    f1: float


def prf_from_counts(tp: int, n_pred: int, n_gold: int) -> PRF:
    """P/R/F1 from true positives, predicted positives and gold positives."""
    if n_pred == 0 and n_gold == 0:
        return PRF(1.0, 1.0, 1.0)
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


def prf_arrays(tp: np.ndarray, n_pred: np.ndarray, n_gold: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`prf_from_counts` element-wise over arrays of counts (e.g. one entry per bootstrap
    resample), with the same empty-case convention."""
    tp, n_pred, n_gold = (np.asarray(a, dtype=float) for a in (tp, n_pred, n_gold))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(n_pred > 0, tp / n_pred, 0.0)
        recall = np.where(n_gold > 0, tp / n_gold, 0.0)
        total = precision + recall
        f1 = np.where(total > 0, 2 * precision * recall / total, 0.0)
    empty = (n_pred == 0) & (n_gold == 0)
    return (np.where(empty, 1.0, precision), np.where(empty, 1.0, recall), np.where(empty, 1.0, f1))
