"""The WCC line heuristic (ISLA, Universiteit van Amsterdam; CleanEval 2007 score 74.2 %,
papers/002's "WCC – heur. algoritmus").

The page is read as rendered lines of text. A line longer than ``min_line_chars`` characters
with more than ``min_words`` words whose average length exceeds ``min_avg_word_length`` is a
paragraph and kept. Any other line of more than ``min_line_chars`` characters becomes the
*possible title*; when a paragraph follows it within fewer than ``title_lines`` lines, the
title is kept too (as its header). Lists are not treated specially, as in the original.

Lines are runs of canonical blocks between line breaks (a block-level tag or ``<br>`` before
a block starts a new line), so the labels map back onto the blocks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.extractors.base import Extraction, HeuristicExtractor
from boilerbench.extractors.cleaneval2007.lines import block_lines, line_texts


def wcc_lines(
    lines: Sequence[str],
    min_words: int = 10,
    min_avg_word_length: float = 3.0,
    min_line_chars: int = 3,
    title_lines: int = 3,
) -> np.ndarray:
    """Which lines the heuristic keeps (paragraphs and the titles just before them)."""
    keep = np.zeros(len(lines), dtype=bool)
    title, since = -1, 0
    for k, line in enumerate(lines):
        since += 1
        if len(line) <= min_line_chars:
            continue
        words = line.split()
        if len(words) > min_words and sum(map(len, words)) / len(words) > min_avg_word_length:
            if title >= 0 and since < title_lines:
                keep[title] = True
            title = -1
            keep[k] = True
        else:
            title, since = k, 0
    return keep


class WCC(HeuristicExtractor):
    """The WCC line heuristic; thresholds as published (more than 10 words of average length above 3)."""

    def __init__(
        self, min_words: int = 10, min_avg_word_length: float = 3.0, min_line_chars: int = 3, title_lines: int = 3
    ) -> None:
        self.min_words = min_words
        self.min_avg_word_length = min_avg_word_length
        self.min_line_chars = min_line_chars
        self.title_lines = title_lines

    def extract(self, page: Page) -> Extraction:
        blocks = page.blocks
        line_of = block_lines(blocks)
        lines = line_texts(blocks, line_of)
        keep = wcc_lines(lines, self.min_words, self.min_avg_word_length, self.min_line_chars, self.title_lines)
        return Extraction.from_labels(page, keep[line_of].astype(np.int8) if lines else np.zeros(0, np.int8))
