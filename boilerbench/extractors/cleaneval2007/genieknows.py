"""GenieKnows' web page cleaning system (CleanEval 2007 score 73.6 %, papers/002 "GenieKnows"):
the page cut into semantic blocks, each block's importance a weighted value of its features,
blocks of low importance removed, the rest re-tagged.

- **Blocks**: "neither too long nor too short", from the DOM tree: the units of FIASCO's
  target nodes (the nearest block-level element holding a text, inline elements folded in;
  :func:`boilerbench.extractors.fiasco.target_units`).
- **Features** (the slides' list; GenieKnows also looked at the rendering, here everything
  comes from the markup): position of the block in the page (relative index), font size
  from markup (the browser's default sizes of ``h1``-``h6``, ``<font size=1..7>``,
  ``big``/``small`` and inline ``font-size`` styles along the block's ancestors, relative to
  the page's most common size), text length relative to the document, links relative to the
  document's links, the share of link text in the block, sentences (ending in ``. , ! ?``, as
  the slides count them) relative to the document's, and whether the block holds a form or an
  image.
- **Relations**: the slides' block distance, horizontal indentation and equal width, read
  from the markup: the importance of the previous and the next block, whether each shares the
  block's tag path (same indentation and width in a rendering of the same template), and the
  distance in blocks to the nearest block of the first stage's top quartile.
- **Weights**: "importance is a weighted value of the features"; the weights are learned
  (logistic regression, scikit-learn) on the training pages' blocks, a block being important
  when most of its tokens are content. Stage one weighs the block's own features; stage two
  adds the relations, which use stage one's importances. A block is kept when its stage-two
  importance reaches ``threshold``: 0.4 by default, under one half, because GenieKnows put
  "keeping important content before removing useless text".
- **Tags**: ``h1``-``h6`` become ``<h>``, a short block wholly in ``b``/``strong`` that stands
  as its own paragraph becomes ``<h>``, list items and table cells ``<l>``, the rest ``<p>``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from lxml import etree

from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, TrainingDataError
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.extractors.cleaneval2007.lines import in_link
from boilerbench.extractors.fiasco import target_units

#: browsers' default font sizes (px) of headings and of ``<font size=1..7>``
HEADING_PX = {"h1": 32.0, "h2": 24.0, "h3": 18.72, "h4": 16.0, "h5": 13.28, "h6": 10.72}
FONT_SIZE_PX = (10.0, 13.0, 16.0, 18.0, 24.0, 32.0, 48.0)
_STYLE_SIZE = re.compile(r"font-size\s*:\s*([\d.]+)\s*(px|pt|em|%)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.,!?](?:\s|$)")
OWN_FEATURES = (
    "position",
    "font_size",
    "rel_length",
    "rel_links",
    "link_text",
    "rel_sentences",
    "has_form",
    "has_image",
    "log_words",
)


def font_size(el: etree._Element) -> float:
    """The font size (px) of ``el``'s text as the markup sets it (16 px when nothing does)."""
    chain = [el, *el.iterancestors()]
    scale = 1.0
    for node in chain:
        tag = node.tag.lower() if isinstance(node.tag, str) else ""
        style = node.get("style") or ""
        match = _STYLE_SIZE.search(style)
        if match:
            value, unit = float(match.group(1)), match.group(2).lower()
            if unit == "px":
                return value * scale
            if unit == "pt":
                return value * 4 / 3 * scale
            scale *= value if unit == "em" else value / 100
            continue
        if tag in HEADING_PX:
            return HEADING_PX[tag] * scale
        if tag == "font" and (size := (node.get("size") or "").strip()):
            try:
                level = int(size) + 3 if size[0] in "+-" else int(size)
            except ValueError:
                continue
            return FONT_SIZE_PX[min(max(level, 1), 7) - 1] * scale
        if tag == "big":
            scale *= 1.2
        elif tag == "small":
            scale *= 0.83
    return 16.0 * scale


class GenieKnows(BaseExtractor):
    """GenieKnows: learned block importance from position, font, length, links, sentences, forms,
    images and neighbouring blocks."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True)

    def __init__(self, threshold: float = 0.4, C: float = 1.0) -> None:
        if not 0 < threshold < 1 or C <= 0:
            raise ConfigError(f"need 0 < threshold < 1 and C > 0, got {threshold}, {C}")
        self.threshold = threshold
        self.C = C

    def block_features(self, page: Page) -> tuple[np.ndarray, np.ndarray, list[etree._Element], list[str]]:
        """The own features of every unit, the unit of each canonical block, the unit
        elements, and each unit's tag path."""
        blocks = page.blocks
        unit, targets = target_units(blocks)
        n = len(targets)
        chars = np.zeros(n)
        link_chars = np.zeros(n)
        words = np.zeros(n)
        sentences = np.zeros(n)
        linked = in_link(blocks)
        for i, u in enumerate(unit):
            text = blocks.texts[i]
            chars[u] += len(text)
            words[u] += len(text.split())
            sentences[u] += len(_SENTENCE_END.findall(text + " "))
            if linked[i]:
                link_chars[u] += len(text)
        links = np.array([sum(1 for _ in el.iter("a")) for el in targets], dtype=float)
        sizes = np.array([font_size(el) for el in targets])
        common = Counter(np.round(sizes, 1).tolist()).most_common(1)[0][0] if n else 16.0
        x = np.column_stack(
            [
                np.arange(n) / max(n - 1, 1),
                sizes / max(common, 1.0),
                chars / max(chars.sum(), 1.0),
                links / max(links.sum(), 1.0),
                link_chars / np.maximum(chars, 1.0),
                sentences / max(sentences.sum(), 1.0),
                [any(True for _ in el.iter("form", "input", "select", "textarea")) for el in targets],
                [any(True for _ in el.iter("img")) for el in targets],
                np.log1p(words),
            ]
        ).astype(float)
        first = np.flatnonzero(np.r_[True, unit[1:] != unit[:-1]])  # units are runs of blocks
        paths = [blocks.paths[int(i)] for i in first]
        return x, unit, targets, paths

    @staticmethod
    def relation_features(importance: np.ndarray, paths: list[str]) -> np.ndarray:
        """Previous and next block's importance, whether each shares the block's tag path, and
        the distance (in blocks, log) to the nearest block in the top quartile of importance."""
        n = len(importance)
        prev_imp = np.r_[0.0, importance[:-1]] if n else importance
        next_imp = np.r_[importance[1:], 0.0] if n else importance
        same_prev = np.array([k > 0 and paths[k] == paths[k - 1] for k in range(n)], dtype=float)
        same_next = np.array([k < n - 1 and paths[k] == paths[k + 1] for k in range(n)], dtype=float)
        distance = np.full(n, float(n))
        if n:
            top = np.flatnonzero(importance >= np.quantile(importance, 0.75))
            at = np.searchsorted(top, np.arange(n))
            after = np.abs(top[np.minimum(at, len(top) - 1)] - np.arange(n))
            before = np.abs(np.arange(n) - top[np.maximum(at - 1, 0)])
            distance = np.minimum(after, before).astype(float)
        return np.column_stack([prev_imp, next_imp, same_prev, same_next, np.log1p(distance)])

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> GenieKnows:
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        own, paths, ys = [], [], []
        for page in train:
            if not len(page.blocks):
                continue
            x, unit, _, unit_paths = self.block_features(page)
            per_block = np.fromiter(map(len, page.blocks.tokens), dtype=np.int64, count=len(page.blocks))
            labels = page.gold_labels
            content = np.bincount(unit, weights=per_block * (labels == 1), minlength=len(x))
            other = np.bincount(unit, weights=per_block * (labels != 1), minlength=len(x))
            own.append(x)
            paths.append(unit_paths)
            ys.append((content > other).astype(int))
        y = np.concatenate(ys) if ys else np.zeros(0, int)
        if len(set(y.tolist())) < 2:
            raise TrainingDataError("GenieKnows needs important and unimportant blocks in its training pages")
        self.scaler1_ = StandardScaler().fit(np.vstack(own))
        self.stage1_ = LogisticRegression(C=self.C, max_iter=1000).fit(self.scaler1_.transform(np.vstack(own)), y)
        both = [
            np.hstack([x, self.relation_features(self.stage1_.predict_proba(self.scaler1_.transform(x))[:, 1], p)])
            for x, p in zip(own, paths, strict=True)
        ]
        self.scaler2_ = StandardScaler().fit(np.vstack(both))
        self.stage2_ = LogisticRegression(C=self.C, max_iter=1000).fit(self.scaler2_.transform(np.vstack(both)), y)
        return self

    def importance(self, page: Page) -> tuple[np.ndarray, np.ndarray, list[etree._Element]]:
        """Stage-two importance of every unit, the unit of each block, and the unit elements."""
        require_fitted(self, "stage2_")
        x, unit, targets, paths = self.block_features(page)
        first = self.stage1_.predict_proba(self.scaler1_.transform(x))[:, 1]
        both = np.hstack([x, self.relation_features(first, paths)])
        return self.stage2_.predict_proba(self.scaler2_.transform(both))[:, 1], unit, targets

    def extract(self, page: Page) -> Extraction:
        blocks = page.blocks
        if len(blocks) == 0:
            return Extraction(text="", labels=np.zeros(0, np.int8), markup="")
        importance, unit, targets = self.importance(page)
        keep = importance >= self.threshold
        kinds = [""] * len(blocks)
        seen: set[int] = set()
        for i, u in enumerate(map(int, unit)):
            if u not in seen:
                seen.add(u)
                kinds[i] = _kind(targets[u], blocks.texts[i])
        return Extraction.from_labels(page, keep[unit].astype(np.int8), kinds=kinds)


def _kind(el: etree._Element, text: str) -> str:
    """The CleanEval tag of a kept block (the slides' Perl rules)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag in HEADING_PX:
        return "h"
    if tag in ("li", "td", "dd", "dt"):
        return "l"
    inner = [c for c in el if isinstance(c.tag, str)]
    bold = len(inner) == 1 and inner[0].tag.lower() in ("b", "strong") and not (el.text or "").strip()
    if bold and len(text.split()) <= 12:
        return "h"
    return "p"
