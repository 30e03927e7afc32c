"""The one aligner: turns a text (gold, or an extractor's output) into labels over blocks.

The page's block token stream is aligned to the text's token stream with an optimal LCS
alignment (:func:`boilerbench.lcs.lcs_alignment`), and a block is content
(1) when more than ``threshold`` (default 2/3) of its normalised tokens are matched. Web2Text
used 2/3 of characters; tokens are what the CleanEval score counts, so a block labelled
content is one whose words the metric credits. A block with no normalised token (only
punctuation) is labelled 0. The text is tokenized with the page's tokenizer (the blocks').
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import chain

import numpy as np

from boilerbench.datasets.blocks import Blocks
from boilerbench.lcs import lcs_alignment
from boilerbench.tokenizer import normalise_tokens


def matched_tokens(source: Sequence[str], target: Sequence[str], split_above: int | None = None) -> np.ndarray:
    """Boolean mask over ``source``: True where the token is part of an optimal LCS with ``target``
    (a common subsequence within ``split_above`` bits when given: :func:`~boilerbench.lcs.lcs_alignment`)."""
    return lcs_alignment(source, target, split_above) >= 0


def align_labels(blocks: Blocks, text: str, threshold: float = 2 / 3, split_above: int | None = None) -> np.ndarray:
    """Labels (int8, 1 = content) over ``blocks`` for the content described by ``text``; with
    ``split_above``, the alignment's memory bounded (:func:`~boilerbench.lcs.lcs_alignment`)."""
    n = len(blocks)
    labels = np.zeros(n, dtype=np.int8)
    if n == 0:
        return labels
    per_block = blocks.tokens
    counts = np.fromiter(map(len, per_block), dtype=np.int64, count=n)
    tokens = list(chain.from_iterable(per_block))
    mask = matched_tokens(tokens, normalise_tokens(text, blocks.tokenizer), split_above)
    matched_before = np.concatenate(([0], np.cumsum(mask)))
    ends = np.cumsum(counts)
    hits = matched_before[ends] - matched_before[ends - counts]
    ratio = Fraction(threshold).limit_denominator(1000)  # exact: 2 of 3 tokens is not "more than 2/3"
    labels[(counts > 0) & (hits * ratio.denominator > ratio.numerator * counts)] = 1
    return labels
