"""Viterbi decoding of a block label sequence (shared by Web2Text and the stacked extractor)."""

from __future__ import annotations

import numpy as np


def viterbi(unary: np.ndarray, pairwise: np.ndarray, weight: float) -> np.ndarray:
    """The label sequence maximising ``sum_i unary[i, l_i] + weight * sum_i pairwise[i, l_i, l_{i+1}]``.

    ``unary`` is (n, K) and ``pairwise`` (n - 1, K, K) log-probabilities; one max-plus step per
    block, vectorised over the K x K label pairs, so linear in n.
    """
    n, k = unary.shape
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    score = unary[0].astype(np.float64)
    back = np.zeros((max(n - 1, 0), k), dtype=np.int64)
    steps = weight * pairwise
    for i in range(1, n):
        candidates = score[:, None] + steps[i - 1]
        back[i - 1] = candidates.argmax(axis=0)
        score = candidates.max(axis=0) + unary[i]
    labels = np.zeros(n, dtype=np.int64)
    labels[-1] = int(score.argmax())
    for i in range(n - 2, -1, -1):
        labels[i] = back[i, labels[i + 1]]
    return labels
