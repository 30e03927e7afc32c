"""SCEDD, Short Content Extraction via Depth of DOM tree, with its short-page classifier
(Xi, Guo, Li et al., Journal of Chinese Information Processing 30(1), 2016; papers/004).

Classifier (sec. 2.2): a coarse extraction takes the single element of largest text density
(TD = characters / tags below, on the page as parsed); when its text is under
``short_threshold_bytes`` (UTF-8 bytes; 450 in sec. 4.2) the page is *short* and goes to SCEDD,
else *long* and goes to CETD unchanged (the density method the paper uses for long pages).

SCEDD (sec. 3.2), step by step:

1. node weights: characters inside links count ``link_weight`` (the paper says only that
   link tags weigh less; 0.5 is our choice);
2. form elements (``input``, ``noembed``, ``noscript``, ...) are removed; so are elements
   hidden with inline ``display:none``;
3. each element's line is the number of block-level tags before it; ``line_sum`` the total;
4. the title is the first heading (else the first element) whose text matches the page's
   ``<title>`` (see :func:`find_title`); everything before it and the subtitle (a heading
   right after it) are dropped from the search; the title's text is part of the output
   (``keep_title``), as a news extractor's output is title plus text;
5. text density per element: weighted characters over tags below it (TD, T = 0 read as 1);
6. the candidate A is the element of largest text density (not DensitySum). If its line is
   above ``line_sum * top_coef`` (header noise) it is dropped and the search goes on after
   its subtree; below ``line_sum * bottom_coef`` (copyright footer), before it. At most
   ``max_tries`` candidates are tried; the last one is kept;
7. the threshold is the smallest density on the path from A up to the root;
8. the content is A's subtree (sec. 3.1: "the text of the subtree rooted at that node"),
   walking down from A through elements whose density reaches the threshold.

``mode`` forces one branch (``short``: SCEDD on every page, ``long``: CETD) so that each part
can be evaluated alone; every extraction records the classifier's verdict (``page_class``),
the branch that ran (``branch``) and the coarse extraction's size (``coarse_bytes``).
"""

from __future__ import annotations

import re

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, check_choice
from boilerbench.extractors.base import BaseExtractor, Extraction
from boilerbench.extractors.cetd import DENSITIES, SELECTIONS, cetd_content, text_density, threshold_walk
from boilerbench.extractors.dom_stats import DomStats, dom_stats
from boilerbench.text import collapse_whitespace

MODES = ("auto", "short", "long")
#: Form controls and fallback content that SCEDD removes (step 2).
FORM_TAGS = frozenset("input textarea select option optgroup button label noembed noscript datalist output".split())
HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
#: Separators between a headline and the site name in ``<title>`` ("Headline | Site").
_TITLE_SEPARATORS = re.compile(r"\s+[|\-\u2013\u2014:\u00bb\u00ab\u00b7]+\s+|\s*\|\s*")


def weighted_text_density(stats: DomStats, link_weight: float) -> np.ndarray:
    """SCEDD's text density: characters (link characters weighted) over tags below, 0 when removed."""
    chars = stats.C - (1.0 - link_weight) * stats.LC
    return np.where(stats.removed, 0.0, chars / np.maximum(stats.T, 1))


def subtree_text(stats: DomStats, texts: list[str], i: int) -> str:
    """The text of element i's subtree (its blocks joined by spaces)."""
    return " ".join(texts[stats.block_start[i] : stats.block_end[i]])


def coarse_bytes(stats: DomStats, texts: list[str], density: np.ndarray) -> int:
    """UTF-8 size of the text of the element with the largest density (the classifier, sec. 2.2)."""
    if len(stats) == 0 or stats.C[0] == 0:
        return 0
    best = int(np.argmax(density))
    return len(subtree_text(stats, texts, best).encode("utf-8"))


def find_title(stats: DomStats, texts: list[str], title: str) -> int | None:
    """The element holding the page's headline, matched against ``<title>``, or ``None``.

    The core of the title is its longest part between separators (``"Headline | Site"`` gives
    ``Headline``). An element matches when its text contains the core and is at most three times
    its length, or is a part of the title at least 60 % as long as the core. Headings are tried
    first, then any element; the first match in document order wins (the outermost of a chain).
    Without a ``<title>`` (or no match) the first ``h1`` is the title.
    """
    title = collapse_whitespace(title).lower()
    parts = [p for p in _TITLE_SEPARATORS.split(title) if p]
    core = max(parts, key=len) if parts else ""
    kept = ~stats.removed & (stats.C > 0)
    kept[0] = False
    if len(core) >= 3:
        limit = 3 * len(core)
        for headings_only in (True, False):
            for i in map(int, np.flatnonzero(kept & (stats.C <= max(limit, len(title))))):
                if headings_only and stats.tags[i] not in HEADINGS:
                    continue
                text = collapse_whitespace(subtree_text(stats, texts, i)).lower()
                if (core in text and len(text) <= limit) or (text in title and len(text) >= 0.6 * len(core)):
                    return i
    for i in map(int, np.flatnonzero(kept)):
        if stats.tags[i] == "h1":
            return int(i)
    return None


def locate_candidate(
    stats: DomStats, density: np.ndarray, start: int, top_coef: float, bottom_coef: float, max_tries: int
) -> int | None:
    """Step 6: the largest-density element at a legal height, searched from ``start`` on."""
    n = len(stats)
    index = np.arange(n)
    searchable = ~stats.removed & (stats.C > 0) & (index >= 1)
    lo, hi = start, n
    candidate = None
    for _ in range(max_tries):
        valid = searchable & (index >= lo) & (stats.end <= hi)
        if not valid.any():
            break
        candidate = int(np.argmax(np.where(valid, density, -np.inf)))
        line = stats.line[candidate]
        if line < stats.n_lines * top_coef:
            lo = int(stats.end[candidate])
        elif line > stats.n_lines * bottom_coef:
            hi = candidate
        else:
            break
    return candidate


class SCEDD(BaseExtractor):
    """Short-page classifier routing short pages to SCEDD and long pages to CETD."""

    def __init__(
        self,
        mode: str = "auto",
        short_threshold_bytes: int = 450,
        top_coef: float = 0.05,
        bottom_coef: float = 0.95,
        max_tries: int = 5,
        link_weight: float = 0.5,
        keep_title: bool = True,
        long_density: str = "ctd",
        long_selection: str = "densitysum",
    ) -> None:
        check_choice("extractor.mode", mode, MODES)
        check_choice("extractor.long_density", long_density, DENSITIES)
        check_choice("extractor.long_selection", long_selection, SELECTIONS)
        if not 0.0 <= top_coef <= bottom_coef <= 1.0:
            raise ConfigError(f"need 0 <= top_coef <= bottom_coef <= 1, got {top_coef} and {bottom_coef}")
        if max_tries < 1:
            raise ConfigError(f"extractor.max_tries must be at least 1, got {max_tries}")
        self.mode = mode
        self.short_threshold_bytes = short_threshold_bytes
        self.top_coef = top_coef
        self.bottom_coef = bottom_coef
        self.max_tries = max_tries
        self.link_weight = link_weight
        self.keep_title = keep_title
        self.long_density = long_density
        self.long_selection = long_selection

    def extract(self, page: Page) -> Extraction:
        blocks = page.blocks
        stats = dom_stats(blocks)
        if stats is None or stats.C[0] == 0:
            empty = np.zeros(len(blocks), dtype=np.int8)
            return Extraction.from_labels(page, empty, page_class="short", branch=self._branch("short"), coarse_bytes=0)
        size = coarse_bytes(stats, blocks.texts, text_density(stats))
        page_class = "short" if size < self.short_threshold_bytes else "long"
        branch = self._branch(page_class)
        if branch == "long":
            labels = stats.block_labels(cetd_content(stats, self.long_density, self.long_selection))
        else:
            short_stats = dom_stats(blocks, removed_tags=FORM_TAGS)
            assert short_stats is not None  # the page has text: dom_stats returned stats above
            labels = short_stats.block_labels(self._short_content(short_stats, page))
        return Extraction.from_labels(page, labels, page_class=page_class, branch=branch, coarse_bytes=size)

    def _branch(self, page_class: str) -> str:
        return page_class if self.mode == "auto" else self.mode

    def _short_content(self, stats: DomStats, page: Page) -> np.ndarray:
        """Steps 3 to 8 of SCEDD: the elements whose directly held text is the content."""
        texts = page.blocks.texts
        density = weighted_text_density(stats, self.link_weight)
        title_node = page.blocks.root.find(".//title") if page.blocks.root is not None else None
        title_text = (title_node.text or "") if title_node is not None else ""
        title = find_title(stats, texts, title_text)
        start = 1
        content = np.zeros(len(stats), dtype=bool)
        if title is not None:
            start = int(stats.end[title])
            following = start if start < len(stats) and stats.parent[start] == stats.parent[title] else None
            if following is not None and stats.tags[following] in HEADINGS:
                start = int(stats.end[following])
            if self.keep_title:
                content |= stats.subtree_mask([title])
        candidate = locate_candidate(stats, density, start, self.top_coef, self.bottom_coef, self.max_tries)
        if candidate is None:
            return content
        threshold = float(density[stats.path_to_body(candidate)].min())
        return content | threshold_walk(stats, density, threshold, root=candidate)
