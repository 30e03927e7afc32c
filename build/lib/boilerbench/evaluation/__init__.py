"""Metrics: pure functions of (prediction, gold)."""

from boilerbench.evaluation.block import BlockCounts, block_counts, block_metrics, block_page_metrics
from boilerbench.evaluation.classification import PRF, prf_from_counts
from boilerbench.evaluation.cleaneval_score import (
    CleanEvalCounts,
    cleaneval_counts,
    cleaneval_markup_score,
    cleaneval_micro,
    cleaneval_score,
    cleaneval_tokens,
    has_markup,
    markup_edit_counts,
    markup_tokens,
    segment_validity,
    text_only_markup,
)
from boilerbench.evaluation.lcs_error import WRONG_THRESHOLD, is_wrong, lcs_error, lcs_error_from_counts
from boilerbench.evaluation.rouge import rouge_lsum
from boilerbench.evaluation.snippets import SnippetCounts, snippet_counts, snippet_summary
from boilerbench.evaluation.token import token_prf, word_prf

__all__ = [
    "PRF",
    "WRONG_THRESHOLD",
    "BlockCounts",
    "CleanEvalCounts",
    "SnippetCounts",
    "block_counts",
    "block_metrics",
    "block_page_metrics",
    "cleaneval_counts",
    "cleaneval_markup_score",
    "cleaneval_micro",
    "cleaneval_score",
    "cleaneval_tokens",
    "has_markup",
    "markup_edit_counts",
    "markup_tokens",
    "segment_validity",
    "text_only_markup",
    "is_wrong",
    "lcs_error",
    "lcs_error_from_counts",
    "prf_from_counts",
    "rouge_lsum",
    "snippet_counts",
    "snippet_summary",
    "token_prf",
    "word_prf",
]
