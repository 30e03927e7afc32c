"""BTE, Body Text Extraction (Finn, Kushmerick, Smyth 2001).

The page is a sequence of tokens: tags (B_n = 1) and words (B_n = 0). BTE chooses i <= j
maximising ``T(i, j) = sum_{n<i} B_n + sum_{i<=n<=j} (1 - B_n) + sum_{n>j} B_n``: the span with
many words and few tags. Since ``T(i, j)`` is a constant plus the sum of +1 per word and -1 per
tag inside the span, this is a maximum-sum subarray, solved in one linear pass instead of the
paper's O(N^2) search. An optimal span starts at a word and ends at a word, so it is a run of
whole blocks (text nodes): the blocks' word counts and the tag counts between them
(``Blocks.tags_before``) are the whole input. Tags are every start and end tag under
``<body>``, those of skipped elements (``script``, ``img``, ...) included; their content is not
counted. Only one contiguous region can be returned: BTE's known weakness.
"""

from __future__ import annotations

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.extractors.base import BaseExtractor, Extraction


def bte_span(words: np.ndarray, tags_before: np.ndarray) -> tuple[int, int]:
    """Blocks [i, j] (inclusive) of the maximum-sum span; (0, -1) when there are no blocks.

    With W the prefix sums of words and G those of tags (G[k] = tags before block k,
    counted from the first block), a span of blocks i..j scores
    ``W[j] - W[i-1] - (G[j] - G[i])``; for each j the best i minimises ``W[i-1] - G[i]``.
    """
    n = len(words)
    if n == 0:
        return 0, -1
    w = np.cumsum(words)
    g = np.cumsum(tags_before)
    end_value = w - g
    start_cost = np.concatenate(([0], w[:-1])) - g
    best_start_cost = np.minimum.accumulate(start_cost)
    j = int(np.argmax(end_value - best_start_cost))
    i = int(np.flatnonzero(start_cost[: j + 1] == best_start_cost[j])[-1])
    return i, j


class BTE(BaseExtractor):
    """Body Text Extraction: the contiguous run of blocks with the most words minus tags."""

    def extract(self, page: Page) -> Extraction:
        blocks = page.blocks
        i, j = bte_span(blocks.word_counts, blocks.tags_before)
        labels = np.zeros(len(blocks), dtype=np.int8)
        labels[i : j + 1] = 1
        return Extraction.from_labels(page, labels)
