"""Kimatu (CleanEval 2007 score 74.3 %, papers/002): block ratios, then duplicate and quotation
removal by longest common subsequence.

papers/002 gives the steps, not the constants, so this is a reconstruction:

1. *Blocks*: a Kimatu block is a run of neighbouring HTML elements with the same properties.
   Each text node belongs to its nearest block-level element (its *container*); consecutive
   containers with the same tag, the same ``class`` and the same parent element (the ``<p>``
   of one article, the ``<li>`` of one menu) form one block.
2. *Ratios*, each relative to the page's largest value: the block's length in characters, its
   average length per container, and its punctuation count; their mean, times the share of
   the block's characters outside links, is the block's ratio. Blocks whose ratio is at least
   ``candidate_ratio`` are candidates.
3. *Functional blocks*: short blocks (at most ``small_block_words`` words) whose text occurs
   more than once on the page (``posted by X``, ``reply``) are removed.
4. *Quotations*: a short block after a candidate whose longest common word subsequence with
   the candidate covers at least ``lcs_share`` of its words repeats the candidate (a quotation,
   a teaser, a caption) and is removed. Only the next ``lcs_window`` blocks are compared, which
   bounds the quadratic cost on gigantic pages (the largest CleanEval and L3S-GN1 pages have
   fewer blocks, so there every following block is compared).
5. *Neighbours*: a remaining block next to a kept block whose ratio is at least
   ``neighbour_ratio`` and whose text is mostly outside links is kept too (repeated until
   nothing changes), and so is a heading (``h1``-``h6``) just before a kept block, which has a
   low ratio but belongs to the content.

The defaults were chosen on the 61 CleanEval development pages (``candidate_ratio`` from 0.1,
0.15, 0.2, 0.3, 0.5; ``neighbour_ratio`` from 0.02, 0.05, 0.1), never on test pages.
"""

from __future__ import annotations

import numpy as np
from rapidfuzz.distance import LCSseq

from boilerbench.datasets.blocks import BLOCK_TAGS, Blocks
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError
from boilerbench.extractors.base import BaseExtractor, Extraction
from boilerbench.extractors.cleaneval2007.lines import in_link

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
PUNCTUATION = ".,;:!?"


def kimatu_blocks(blocks: Blocks) -> tuple[np.ndarray, list[str]]:
    """The Kimatu block of every canonical block, and each Kimatu block's container tag."""
    group = np.zeros(len(blocks), dtype=np.int64)
    tags: list[str] = []
    previous_container, previous_signature = None, None
    for i in range(len(blocks)):
        container = blocks.owner(i)
        while container is not None and not (isinstance(container.tag, str) and container.tag.lower() in BLOCK_TAGS):
            container = container.getparent()
        tag = container.tag.lower() if container is not None else ""
        signature = (
            tag,
            container.get("class") if container is not None else None,
            container.getparent() if container is not None else None,
        )
        # a new block at a new container of other properties; two headings in a row stay apart
        if i == 0 or (container is not previous_container and (signature != previous_signature or tag in HEADINGS)):
            tags.append(tag)
        group[i] = len(tags) - 1
        previous_container, previous_signature = container, signature
    return group, tags


def block_ratios(blocks: Blocks, group: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Each Kimatu block's ratio and its share of characters inside links."""
    chars = np.fromiter(map(len, blocks.texts), dtype=np.float64, count=len(blocks))
    punct = np.fromiter((sum(map(t.count, PUNCTUATION)) for t in blocks.texts), dtype=np.float64, count=len(blocks))
    length = np.bincount(group, weights=chars, minlength=n_groups)
    link = np.bincount(group, weights=chars * in_link(blocks), minlength=n_groups)
    punctuation = np.bincount(group, weights=punct, minlength=n_groups)
    # the number of containers of a block: a new container starts at a line break
    new_container = np.fromiter(
        (i == 0 or s == "\n" for i, s in enumerate(blocks.seps)), dtype=np.float64, count=len(blocks)
    )
    containers = np.maximum(np.bincount(group, weights=new_container, minlength=n_groups), 1)
    average = length / containers

    def relative(x: np.ndarray) -> np.ndarray:
        return x / x.max() if len(x) and x.max() > 0 else np.zeros_like(x)

    link_share = np.divide(link, length, out=np.zeros(n_groups), where=length > 0)
    ratio = (relative(length) + relative(average) + relative(punctuation)) / 3 * (1 - link_share)
    return ratio, link_share


class Kimatu(BaseExtractor):
    """Kimatu's candidate blocks by ratio, duplicate and quotation removal by LCS, neighbours."""

    def __init__(
        self,
        candidate_ratio: float = 0.15,
        neighbour_ratio: float = 0.02,
        small_block_words: int = 30,
        lcs_share: float = 0.8,
        max_link_share: float = 0.5,
        lcs_window: int = 2000,
    ) -> None:
        for name, value in (
            ("candidate_ratio", candidate_ratio),
            ("neighbour_ratio", neighbour_ratio),
            ("lcs_share", lcs_share),
            ("max_link_share", max_link_share),
        ):
            if not 0 <= value <= 1:
                raise ConfigError(f"extractor.{name} must lie in [0, 1], got {value}")
        if lcs_window < 0:
            raise ConfigError(f"extractor.lcs_window must be at least 0, got {lcs_window}")
        self.candidate_ratio = candidate_ratio
        self.neighbour_ratio = neighbour_ratio
        self.small_block_words = small_block_words
        self.lcs_share = lcs_share
        self.max_link_share = max_link_share
        self.lcs_window = lcs_window

    def select(self, blocks: Blocks) -> np.ndarray:
        """Which Kimatu blocks are kept (and the canonical blocks' Kimatu blocks)."""
        group, tags = kimatu_blocks(blocks)
        n = len(tags)
        ratio, link_share = block_ratios(blocks, group, n)
        words: list[list[str]] = [[] for _ in range(n)]
        for g, tokens in zip(group, blocks.tokens, strict=True):
            words[g].extend(tokens)
        small = np.array([len(w) <= self.small_block_words for w in words], dtype=bool)

        removed = np.zeros(n, dtype=bool)
        seen: dict[tuple[str, ...], int] = {}
        for g, w in enumerate(words):
            key = tuple(w)
            if small[g] and key and key in seen:
                removed[g] = removed[seen[key]] = True
            seen.setdefault(key, g)

        keep = (ratio >= self.candidate_ratio) & ~removed
        for c in map(int, np.flatnonzero(keep)):
            for b in range(c + 1, min(n, c + 1 + self.lcs_window)):
                if (
                    small[b]
                    and words[b]
                    and not removed[b]
                    and (LCSseq.similarity(words[c], words[b]) >= self.lcs_share * len(words[b]))
                ):
                    removed[b] = True
        keep &= ~removed

        addable = ~removed & (ratio >= self.neighbour_ratio) & (link_share <= self.max_link_share)
        changed = True
        while changed:
            beside = np.zeros(n, dtype=bool)
            beside[1:] |= keep[:-1]
            beside[:-1] |= keep[1:]
            grown = keep | (beside & addable)
            changed = bool((grown != keep).any())
            keep = grown
        heading = np.array([t in HEADINGS for t in tags], dtype=bool)
        keep[:-1] |= heading[:-1] & keep[1:] & ~removed[:-1]
        return keep[group] if n else np.zeros(0, dtype=bool)

    def extract(self, page: Page) -> Extraction:
        return Extraction.from_labels(page, self.select(page.blocks).astype(np.int8))
