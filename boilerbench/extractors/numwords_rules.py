"""Shallow text features: a block's words and link density, and its neighbours' (Kohlschütter,
Fankhauser and Nejdl, "Boilerplate Detection using Shallow Text Features", WSDM 2010, sec. 4:
the decision tree over number of words and link density; boilerpipe's
``NumWordsRulesClassifier``).

The paper's text blocks are runs of text between block-level tags: here, the page's lines (the
canonical blocks between two line breaks, :func:`~boilerbench.extractors.cleaneval2007.lines.block_lines`).
A line's link density is the share of its words inside ``<a>`` elements. A line is content when
its link density is at most ``max_link_density`` (one third in the paper, six decimals in
boilerpipe) and, by the paper's thresholds on the words of the line, of the previous and of the
next one (a missing neighbour has no words and no links):

- after a line with link density at most five ninths: content unless it has at most 16 words, the
  next line at most 15 and the previous one at most 4;
- after a more linked line (a menu): content when it has over 40 words or the next line over 17.

Every canonical block takes its line's label.
"""

from __future__ import annotations

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.base import BaseExtractor, Extraction
from boilerbench.extractors.cleaneval2007.lines import block_lines, in_link


def line_features(page: Page) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each block's line, and each line's words and link density."""
    blocks = page.blocks
    line_of = block_lines(blocks)
    n_lines = int(line_of[-1]) + 1 if len(line_of) else 0
    words = np.bincount(line_of, weights=blocks.word_counts, minlength=n_lines)
    linked = np.bincount(line_of, weights=blocks.word_counts * in_link(blocks), minlength=n_lines)
    density = np.divide(linked, words, out=np.zeros(n_lines), where=words > 0)
    return line_of, words, density


def numwords_rules(words: np.ndarray, density: np.ndarray, max_link_density: float) -> np.ndarray:
    """The paper's decision for each line (1 content, 0 boilerplate) from the lines' words and
    link densities, in document order."""
    previous_words = np.concatenate(([0.0], words[:-1]))
    previous_density = np.concatenate(([0.0], density[:-1]))
    next_words = np.concatenate((words[1:], [0.0]))
    after_text = ~((words <= 16) & (next_words <= 15) & (previous_words <= 4))
    after_links = (words > 40) | (next_words > 17)
    content = np.where(previous_density <= 0.555556, after_text, after_links) & (density <= max_link_density)
    return content.astype(np.int8)


class NumWordsRules(BaseExtractor):
    """Kohlschütter et al.'s shallow-feature rules: lines with few links, and enough words around them."""

    def __init__(self, max_link_density: float = 0.333333) -> None:
        if not 0.0 < max_link_density <= 1.0:
            raise ConfigError(f"extractor.max_link_density={max_link_density} must be in (0, 1]")
        self.max_link_density = max_link_density

    def extract(self, page: Page) -> Extraction:
        line_of, words, density = line_features(page)
        labels = numwords_rules(words, density, self.max_link_density)[line_of]
        return Extraction.from_labels(page, labels.astype(np.int8))
