"""Metrics: pure functions of (prediction, gold)."""

from boilerbench.evaluation.block import BlockCounts, block_counts, block_metrics, block_page_metrics
from boilerbench.evaluation.classification import PRF, prf_from_counts
from boilerbench.evaluation.cleaneval_score import (
    CleanEvalCounts,
    cleaneval_counts,
    cleaneval_micro,
    cleaneval_score,
    cleaneval_tokens,
)
from boilerbench.evaluation.token import token_prf

__all__ = [
    "PRF",
    "BlockCounts",
    "CleanEvalCounts",
    "block_counts",
    "block_metrics",
    "block_page_metrics",
    "cleaneval_counts",
    "cleaneval_micro",
    "cleaneval_score",
    "cleaneval_tokens",
    "prf_from_counts",
    "token_prf",
]
