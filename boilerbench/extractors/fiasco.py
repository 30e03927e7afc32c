"""FIASCO, Filtering the Internet by Automatic Subtree Classification (Bauer et al., Osnabrueck;
CleanEval 2007 score 63.5 %, papers/002 "FIASCO").

1. **Target nodes.** The slides' criterion: a DOM node is marked when 100 % of its text lies in
   its immediate successors, which "works well for paragraph-level text blocks". Read with the
   preprocessing FIASCO did first (formatting tags folded into the text), a target node here
   is a *maximal element whose subtree holds no block-level element*: a ``p``, ``li``,
   ``td``, ``h2`` or ``div`` whose text is all in its own text nodes and inline children
   (``a``, ``b``, ``span``, ...). Text that a container holds beside block-level children
   (loose text in a ``div`` that also has ``p`` children) forms one unit of that container.
   A unit ends at every line break inside its node (the ``<br>`` -> ``<p>`` preprocessing):
   without that cut, pages whose whole text is one ``td`` of ``<br>``-separated paragraphs
   were one unit as tall as the page, unlike any clean unit in training, and lost everything.
   Every canonical block belongs to exactly one unit, so unit decisions map onto blocks.
2. **Features** per unit (the slides' three groups):
   - linguistic: characters, words and word types of the unit's text, sentences and mean
     sentence length (sentences end at ``. ! ?``), the share of words from a list of
     ``n_keywords`` words typical of clean text and from a list typical of boilerplate (both
     learned in ``fit``: the words with the highest smoothed log-odds of occurring in content
     and in boilerplate units of the training pages), and, for the part-of-speech
     distribution (FIASCO ran a tagger; no English tagger ships here), the shares of function
     words, capitalised words, numbers and punctuation tokens;
   - structural: depth of the node, is it a heading (``h1``-``h6``), is it a paragraph
     (``p``), number of ``a`` and ``img`` in its subtree;
   - visual (``visual=true``), from a real rendering in headless Chromium
     (:mod:`boilerbench.render`, the ``render`` extra; FIASCO used a modified Firefox):
     solidity 1 (area of the node's line boxes over the area of its bounding rectangle: how
     rectangular the text is), solidity 2 (the number of line boxes, standing for the
     outline's vertices), solidity 3 (mean distance of the line boxes' corners from the
     centre, over the half diagonal), width relative to the widest element and height
     relative to the page, and whether it is rendered at all.
3. **SVM**: an RBF-kernel SVM (scikit-learn's libsvm, as FIASCO used LIBSVM) on standardised
   features, ``C`` and ``gamma`` as parameters ("set empirically"), trained on the units of the
   training pages; a unit is clean when most of its tokens are in blocks the aligner labels
   content. Units the SVM calls clean are kept; headings become ``<h>``, list items ``<l>``,
   the rest ``<p>``.

A page that Chromium cannot render is extracted without visual evidence (its visual features
set to the training mean) and the reason is recorded in its row (``render_warning``), never an
error. ``visual=false`` never starts a browser. The results name the variant: the run's config
records ``visual``, and every row has ``visual`` (1 when the page's layout was used).
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from lxml import etree

from boilerbench.datasets.blocks import BLOCK_TAGS, Blocks
from boilerbench.datasets.page import Page
from boilerbench.errors import ConfigError, TrainingDataError
from boilerbench.extractors.base import BaseExtractor, Extraction, Tags, require_fitted
from boilerbench.tokenizer import normalise_tokens

log = logging.getLogger(__name__)

#: English function words for the part-of-speech proxy (articles, pronouns, prepositions,
#: conjunctions, auxiliaries)
FUNCTION_WORDS = frozenset(
    "a an the and or but if of to in on at by for with from as into about over after before under "
    "i you he she it we they me him her us them my your his its our their this that these those "
    "is are was were be been being am have has had do does did will would can could shall should may might must "
    "not no so than then there here who whom which what when where why how all any each some such".split()
)
_SENTENCE = re.compile(r"[.!?]+(?:\s|$)")
_NUMBER = re.compile(r"^\W*\d[\d.,:/-]*\W*$")
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_CONTAINER_BLOCKS = BLOCK_TAGS - {
    "br",
    "hr",
    "img",
    "input",
    "select",
    "textarea",
    "option",
    "iframe",
    "video",
    "canvas",
}
LINGUISTIC = (
    "chars_log",
    "words_log",
    "types_log",
    "sentences",
    "sentence_length",
    "clean_keywords",
    "dirty_keywords",
    "function_words",
    "capitalised",
    "numbers",
    "punctuation",
)
STRUCTURAL = ("depth", "is_heading", "is_paragraph", "links", "images")
VISUAL = ("solidity1", "solidity2", "solidity3", "rel_width", "rel_height", "rendered")


def target_units(blocks: Blocks) -> tuple[np.ndarray, list[etree._Element]]:
    """The unit of every block and each unit's target node: the nearest block-level element at
    or above the element holding the block's text (inline elements are folded into it; text
    directly under ``body`` keeps its own element), cut at every line break inside it (FIASCO's
    ``<br>`` -> ``<p>``: a ``td`` of ``<br>``-separated paragraphs is several units)."""
    targets: list[etree._Element] = []
    unit = np.zeros(len(blocks), dtype=np.int64)
    previous = None
    for i in range(len(blocks)):
        node = blocks.owner(i)
        while not _is_block(node):
            parent = node.getparent()
            if parent is None or _tag(parent) in ("body", "html"):
                break
            node = parent
        if node is not previous or blocks.seps[i] == "\n":
            targets.append(node)
            previous = node
        unit[i] = len(targets) - 1
    return unit, targets


def _tag(el: etree._Element) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _is_block(el: etree._Element) -> bool:
    return _tag(el) in _CONTAINER_BLOCKS


def keyword_lists(units: list[list[str]], labels: np.ndarray, n: int) -> tuple[list[str], list[str]]:
    """The ``n`` words most typical of clean and of dirty units (add-one smoothed log-odds of
    the word's unit frequency in each class; words seen in fewer than 3 units are skipped)."""
    clean: Counter = Counter()
    dirty: Counter = Counter()
    for tokens, label in zip(units, labels, strict=True):
        (clean if label else dirty).update(set(tokens))
    n_clean, n_dirty = max(int(labels.sum()), 1), max(int(len(labels) - labels.sum()), 1)
    scores = {
        w: math.log((clean[w] + 1) / (n_clean + 2)) - math.log((dirty[w] + 1) / (n_dirty + 2))
        for w in set(clean) | set(dirty)
        if clean[w] + dirty[w] >= 3
    }
    ranked = sorted(scores, key=lambda w: (scores[w], w))
    return sorted(ranked[::-1][:n]), sorted(ranked[:n])


class FIASCO(BaseExtractor):
    """FIASCO: target nodes classified by an SVM over linguistic, structural and (``visual``) rendered features."""

    def __boilerbench_tags__(self) -> Tags:
        return replace(super().__boilerbench_tags__(), learns=True)

    def __init__(
        self,
        visual: bool = True,
        C: float = 1.0,
        gamma: str | float = "scale",
        n_keywords: int = 30,
        render_timeout_s: float = 30.0,
        chromium: str = "/usr/bin/chromium",
    ) -> None:
        if C <= 0 or n_keywords < 0 or render_timeout_s <= 0:
            raise ConfigError(
                f"need C > 0, n_keywords >= 0 and render_timeout_s > 0, got {C}, {n_keywords}, {render_timeout_s}"
            )
        self.visual = visual
        self.C = C
        self.gamma = gamma
        self.n_keywords = n_keywords
        self.render_timeout_s = render_timeout_s
        self.chromium = chromium

    # --------------------------------------------------------------- features
    def _layout(self, page: Page) -> tuple[np.ndarray | None, str]:
        """The page's rendered layout, or None and the reason it could not be had."""
        if not self.visual:
            return None, ""
        from boilerbench.render import RenderError, page_layout

        try:
            return page_layout(page.blocks.root, self.chromium, self.render_timeout_s), ""
        except RenderError as err:
            log.warning("page %s not rendered, no visual features: %s", page.id, err)
            return None, str(err)[:300]

    def unit_features(self, page: Page) -> tuple[np.ndarray, list[list[str]], np.ndarray, list[etree._Element], str]:
        """Features (without keywords filled in) and tokens per unit, the unit of every block,
        the target elements, and the render warning (empty when rendered or not asked)."""
        blocks = page.blocks
        unit, targets = target_units(blocks)
        n = len(targets)
        texts: list[list[str]] = [[] for _ in range(n)]
        for i, u in enumerate(unit):
            texts[u].append(blocks.texts[i])
        joined = [" ".join(t) for t in texts]
        tokens = [normalise_tokens(t, blocks.tokenizer) for t in joined]
        width = len(LINGUISTIC) + len(STRUCTURAL) + (len(VISUAL) if self.visual else 0)
        x = np.zeros((n, width))
        for k, (text, toks, el) in enumerate(zip(joined, tokens, targets, strict=True)):
            raw = text.split()
            words = max(len(raw), 1)
            sentences = max(len(_SENTENCE.findall(text)), 1)
            tag = el.tag.lower() if isinstance(el.tag, str) else ""
            x[k, : len(LINGUISTIC)] = (
                math.log1p(len(text)),
                math.log1p(len(raw)),
                math.log1p(len(set(toks))),
                sentences,
                len(raw) / sentences,
                0.0,  # clean keywords: filled in once the lists are known
                0.0,  # dirty keywords
                sum(t in FUNCTION_WORDS for t in toks) / words,
                sum(w[:1].isupper() for w in raw) / words,
                sum(bool(_NUMBER.match(w)) for w in raw) / words,
                sum(not any(c.isalnum() for c in w) for w in raw) / words,
            )
            s = len(LINGUISTIC)
            x[k, s : s + len(STRUCTURAL)] = (
                sum(1 for _ in el.iterancestors()),
                tag in _HEADINGS,
                tag == "p",
                sum(1 for _ in el.iter("a")),
                sum(1 for _ in el.iter("img")),
            )
        warning = ""
        if self.visual:
            layout, warning = self._layout(page)
            if layout is not None:
                x[:, -len(VISUAL) :] = self._visual(layout, blocks.root, targets)
            else:
                x[:, -len(VISUAL) :] = np.nan  # imputed with the training means
        return x, tokens, unit, targets, warning

    @staticmethod
    def _visual(layout: np.ndarray, root: etree._Element, targets: list[etree._Element]) -> np.ndarray:
        """Solidity 1-3, relative width and height, rendered flag of every target node."""
        row_of = {el: k for k, el in enumerate(root.iter())}
        rows = layout[[row_of[el] for el in targets]]
        shown = np.nan_to_num(layout[:, 6]) > 0
        widest = max(float(np.nanmax(layout[shown, 2])) if shown.any() else 1.0, 1.0)
        bottom = layout[shown, 1] + layout[shown, 3]
        page_height = max(float(np.nanmax(bottom)) if shown.any() else 1.0, 1.0)
        x, y, w, h = (np.nan_to_num(rows[:, c]) for c in range(4))
        area = np.maximum(w * h, 1.0)
        half_diagonal = np.maximum(np.hypot(w, h) / 2, 1.0)
        rendered = np.nan_to_num(rows[:, 6])
        return np.column_stack(
            [
                np.clip(np.nan_to_num(rows[:, 7]) / area, 0, 1),
                np.log1p(np.nan_to_num(rows[:, 8])),
                np.clip(np.nan_to_num(rows[:, 9]) / half_diagonal, 0, 2),
                w / widest,
                h / page_height,
                rendered,
            ]
        )

    def _fill_keywords(self, x: np.ndarray, tokens: list[list[str]]) -> np.ndarray:
        clean, dirty = set(self.clean_keywords_), set(self.dirty_keywords_)
        for k, toks in enumerate(tokens):
            n = max(len(toks), 1)
            x[k, 5] = sum(t in clean for t in toks) / n
            x[k, 6] = sum(t in dirty for t in toks) / n
        return x

    # ----------------------------------------------------------------- fitting
    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> FIASCO:
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVC

        xs, all_tokens, ys = [], [], []
        for page in train:
            if not len(page.blocks):
                continue
            x, tokens, unit, _, _ = self.unit_features(page)
            per_block = np.fromiter(map(len, page.blocks.tokens), dtype=np.int64, count=len(page.blocks))
            labels = page.gold_labels
            content = np.bincount(unit, weights=per_block * (labels == 1), minlength=len(tokens))
            other = np.bincount(unit, weights=per_block * (labels != 1), minlength=len(tokens))
            xs.append(x)
            all_tokens.extend(tokens)
            ys.append((content > other).astype(int))
        if not xs:
            raise TrainingDataError("FIASCO needs training pages with text")
        y = np.concatenate(ys)
        if len(set(y.tolist())) < 2:
            raise TrainingDataError("FIASCO needs clean and dirty units in its training pages")
        self.clean_keywords_, self.dirty_keywords_ = keyword_lists(all_tokens, y, self.n_keywords)
        x = self._fill_keywords(np.vstack(xs), all_tokens)
        self.means_ = np.nanmean(x, axis=0)
        x = np.where(np.isnan(x), self.means_, x)
        self.scaler_ = StandardScaler().fit(x)
        self.svm_ = SVC(C=self.C, gamma=self.gamma, kernel="rbf", random_state=0).fit(self.scaler_.transform(x), y)
        return self

    def extract(self, page: Page) -> Extraction:
        require_fitted(self, "svm_")
        blocks = page.blocks
        if len(blocks) == 0:
            return Extraction(text="", labels=np.zeros(0, np.int8), markup="", info={"visual": 0})
        x, tokens, unit, targets, warning = self.unit_features(page)
        x = self._fill_keywords(x, tokens)
        x = np.where(np.isnan(x), self.means_, x)
        clean = self.svm_.predict(self.scaler_.transform(x)).astype(bool)
        labels = clean[unit].astype(np.int8)
        kinds = [""] * len(blocks)
        seen: set[int] = set()
        for i, u in enumerate(unit):
            if u not in seen:
                seen.add(int(u))
                tag = targets[u].tag.lower() if isinstance(targets[u].tag, str) else ""
                kinds[i] = "h" if tag in _HEADINGS else "l" if tag == "li" else "p"
        info: dict[str, int | str] = {"visual": int(self.visual and not warning)}
        if warning:
            info["render_warning"] = warning
        return Extraction.from_labels(page, labels, kinds=kinds, **info)
