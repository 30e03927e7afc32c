"""Block-level classification metrics of the content class over canonical blocks.

Per page: true positives, predicted and gold positives, and block count; aggregated micro
(pooled over every block of every test page, as Web2Text reports) and macro (mean of the
per-page F1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from boilerbench.evaluation.classification import prf_from_counts


@dataclass(frozen=True)
class BlockCounts:
    """Confusion counts of one page: tp, predicted positives, gold positives, blocks."""

    tp: int
    n_pred: int
    n_gold: int
    n_blocks: int

    @property
    def correct(self) -> int:
        """Blocks labelled right (true positives plus true negatives)."""
        return self.n_blocks - self.n_pred - self.n_gold + 2 * self.tp


def block_counts(pred: np.ndarray, gold: np.ndarray) -> BlockCounts:
    """Counts of one page's predicted labels against its gold labels (1 = content)."""
    pred = np.asarray(pred).astype(bool)
    gold = np.asarray(gold).astype(bool)
    if pred.shape != gold.shape:
        raise ValueError(f"label arrays differ in length: {pred.shape} vs {gold.shape}")
    return BlockCounts(int(np.sum(pred & gold)), int(pred.sum()), int(gold.sum()), int(pred.size))


def block_page_metrics(c: BlockCounts) -> dict[str, float]:
    """Accuracy, precision, recall, F1 of one page."""
    prf = prf_from_counts(c.tp, c.n_pred, c.n_gold)
    accuracy = c.correct / c.n_blocks if c.n_blocks else 1.0
    return {"accuracy": accuracy, "precision": prf.precision, "recall": prf.recall, "f1": prf.f1}


def block_metrics(counts: Iterable[BlockCounts]) -> dict[str, float]:
    """Micro accuracy / precision / recall / F1 over all blocks, and the macro (per-page mean) F1."""
    counts = list(counts)
    tp = sum(c.tp for c in counts)
    n_pred = sum(c.n_pred for c in counts)
    n_gold = sum(c.n_gold for c in counts)
    n_blocks = sum(c.n_blocks for c in counts)
    correct = sum(c.correct for c in counts)
    prf = prf_from_counts(tp, n_pred, n_gold)
    macro = float(np.mean([block_page_metrics(c)["f1"] for c in counts])) if counts else float("nan")
    return {
        "accuracy": correct / n_blocks if n_blocks else float("nan"),
        "precision": prf.precision,
        "recall": prf.recall,
        "f1": prf.f1,
        "macro_f1": macro,
    }
