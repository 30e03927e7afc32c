"""Victor's five training labels from the gold text (papers/002, "WPC"; ALGORITHMS.md).

A block that the gold covers (the shared aligner's label, so training and scoring agree) is
labelled by the gold paragraph it starts: when its first matched gold token opens a ``<h>``,
``<p>`` or ``<l>`` paragraph it is ``header``, ``paragraph`` or ``list``; when it starts inside
one it is ``continuation``. Uncovered blocks are ``other`` (boilerplate). Gold without markers
(L3S-GN1) gives ``paragraph`` for every covered block: content against other.
"""

from __future__ import annotations

import re

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.lcs import lcs_alignment
from boilerbench.text import CLEANEVAL_MARKER, CLEANEVAL_URL_LINE
from boilerbench.tokenizer import normalise_tokens

LABELS = ("header", "paragraph", "list", "continuation", "other")
_KIND = {"h": "header", "p": "paragraph", "l": "list"}


def gold_paragraphs(markup: str, tokenizer: str | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Gold tokens, the paragraph kind of each token, and whether it opens its paragraph."""
    text = CLEANEVAL_URL_LINE.sub("", markup.lstrip("\ufeff"), count=1)
    pieces = CLEANEVAL_MARKER.split(text)  # [before, kind, text, kind, text, ...]
    tokens: list[str] = []
    kinds: list[str] = []
    opens: list[bool] = []
    for kind, piece in [("p", pieces[0]), *zip(pieces[1::2], pieces[2::2], strict=True)]:
        words = normalise_tokens(piece, tokenizer)
        tokens.extend(words)
        kinds.extend([_KIND[kind.lower()]] * len(words))
        opens.extend([True] + [False] * (len(words) - 1) if words else [])
    return tokens, np.asarray(kinds, dtype=object), np.asarray(opens, dtype=bool)


def crf_labels(page: Page) -> list[str]:
    """One of :data:`LABELS` per block of ``page``."""
    blocks = page.blocks
    content = page.gold_labels.astype(bool)
    markup = page.meta.get("gold_markup")
    if markup is None or not re.search(CLEANEVAL_MARKER, markup):
        return ["paragraph" if c else "other" for c in content]
    tokens, kinds, opens = gold_paragraphs(markup, page.tokenizer)
    per_block = blocks.tokens
    flat = [t for words in per_block for t in words]
    match = lcs_alignment(flat, tokens)
    labels = []
    start = 0
    for i, words in enumerate(per_block):
        hits = match[start : start + len(words)]
        start += len(words)
        hits = hits[hits >= 0]
        if not content[i] or len(hits) == 0:
            labels.append("other")
        else:
            first = int(hits[0])
            labels.append(kinds[first] if opens[first] else "continuation")
    return labels
