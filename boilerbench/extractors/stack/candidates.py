"""Readability's main-content candidate as block features: which blocks lie in the element that
Arc90's Readability (as readability-lxml scores it) would take for the article.

The stack's block features judge each block with its parent, grandparent and the page; the item
features judge it with its repeated kin. Neither says where the page's one article container is,
which is what Readability decides first and why it wins on short news articles beside a long list
of teasers (a few sentences under a headline, then "latest news" with a summary each: the
teasers' text looks like content block by block). Readability's scoring, over the page's blocks:

- a paragraph is an element holding at least 25 characters of block text directly; its score is
  1, plus its commas (``,``, and the full-width, ideographic and Arabic commas), plus one per 100
  characters up to 3;
- its parent gains the score and its grandparent half of it; each such candidate starts from its
  tag's weight (``div`` 5; ``pre``, ``td``, ``blockquote`` 3; lists, ``form``, ``address`` -3;
  headings and ``th`` -5) and its class's and id's (25 for article-like words, -25 for
  sidebar-like ones: readability-lxml's two patterns);
- a candidate's final score is that times one minus its link density; the best is the top candidate,
  and the article is the top candidate with those of its siblings that score at least a fifth of
  it (and 10), or are ``p`` elements of more than 80 characters and link density below 0.25.

Columns (:data:`CANDIDATE_FEATURES`): whether the block is in the top candidate, whether it is in
the article, the best final score of a candidate holding it over the top candidate's, and the
top candidate's score (``log1p``). A page without candidates has zeros. Readability-lxml itself
is a member of the full stack; these columns give its decision's structure to the fast stack,
which runs no member but Resiliparse, at the cost of one pass over the page's walk.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from boilerbench.datasets.blocks import Blocks
from boilerbench.extractors.dom_stats import dom_stats, dom_walk, subtree_mask

CANDIDATE_FEATURES = ("in_top", "in_article", "best_share", "log_top_score")
#: readability-lxml's class and id patterns (``unlikelyCandidates`` aside: the stack sees every block).
POSITIVE = re.compile(r"article|body|content|entry|hentry|main|page|pagination|post|text|blog|story", re.I)
NEGATIVE = re.compile(
    r"combx|comment|com-|contact|foot|footer|footnote|masthead|media|meta|outbrain|promo|related|"
    r"scroll|shoutbox|sidebar|sponsor|shopping|tags|tool|widget",
    re.I,
)
TAG_WEIGHTS = {
    "div": 5,
    "pre": 3,
    "td": 3,
    "blockquote": 3,
    **dict.fromkeys(("address", "ol", "ul", "dl", "dd", "dt", "li", "form"), -3),
    **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6", "th"), -5),
}
#: Commas of Latin, Chinese and Japanese (full-width, ideographic) and Arabic text.
COMMAS = re.compile("[,\uff0c\u3001\u060c]")
MIN_PARAGRAPH = 25


@lru_cache(maxsize=4096)
def _class_weight(class_: str | None, id_: str | None) -> int:
    """readability-lxml's ``class_weight``: 25 per article-like and -25 per sidebar-like class or id."""
    weight = 0
    for value in (class_, id_):
        if value:
            weight += 25 * (bool(POSITIVE.search(value)) - bool(NEGATIVE.search(value)))
    return weight


def candidate_features(blocks: Blocks) -> np.ndarray:
    """The :data:`CANDIDATE_FEATURES` of each block (see the module docstring)."""
    n = len(blocks)
    out = np.zeros((n, len(CANDIDATE_FEATURES)))
    walk = dom_walk(blocks) if n else None
    stats = dom_stats(blocks, link_tags=("a",)) if walk is not None else None
    if walk is None or stats is None:
        return out
    size = len(walk.tags)
    owner = walk.block_owner
    valid = owner >= 0
    chars = np.fromiter((len(t) for t in blocks.texts), dtype=np.float64, count=n)
    commas = np.fromiter((len(COMMAS.findall(t)) for t in blocks.texts), dtype=np.float64, count=n)
    own_chars = np.bincount(owner[valid], weights=chars[valid], minlength=size)
    own_commas = np.bincount(owner[valid], weights=commas[valid], minlength=size)
    paragraphs = np.flatnonzero((own_chars >= MIN_PARAGRAPH) & ~stats.removed)
    points = 1 + own_commas[paragraphs] + np.minimum(own_chars[paragraphs] // 100, 3)
    parent = walk.parent[paragraphs]
    grandparent = np.where(parent >= 0, walk.parent[np.maximum(parent, 0)], -1)
    score = np.zeros(size)
    np.add.at(score, parent[parent >= 0], points[parent >= 0])
    np.add.at(score, grandparent[grandparent >= 0], points[grandparent >= 0] / 2)
    candidates = np.unique(np.concatenate([parent[parent >= 0], grandparent[grandparent >= 0]]))
    if not len(candidates):
        return out
    start = np.array(
        [
            TAG_WEIGHTS.get(walk.tags[i], 0) + _class_weight(walk.elements[i].get("class"), walk.elements[i].get("id"))
            for i in candidates.tolist()
        ],
        np.float64,
    )
    link_density = np.divide(stats.LC, stats.C, out=np.zeros(size), where=stats.C > 0)
    final = (score[candidates] + start) * (1 - link_density[candidates])
    top = int(candidates[np.argmax(final)])
    top_score = float(final.max())
    threshold = max(10.0, top_score * 0.2)
    final_of = dict(zip(candidates.tolist(), final.tolist(), strict=True))
    siblings = np.flatnonzero(walk.parent == walk.parent[top]) if top > 0 else np.array([top])
    article = [
        int(s)
        for s in siblings.tolist()
        if s == top
        or final_of.get(s, -np.inf) >= threshold
        or (walk.tags[s] == "p" and stats.C[s] > 80 and link_density[s] < 0.25)
    ]
    best = np.full(size, -np.inf)
    for i in np.argsort(final, kind="stable").tolist():  # the best holder paints last
        best[candidates[i] : walk.end[candidates[i]]] = final[i]
    where = owner[valid]
    out[valid, 0] = subtree_mask(np.array([top]), walk.end)[where]
    out[valid, 1] = subtree_mask(np.array(article, dtype=np.int64), walk.end)[where]
    if top_score > 0:
        out[valid, 2] = np.clip(np.where(np.isfinite(best[where]), best[where], 0.0) / top_score, -1.0, 1.0)
    out[:, 3] = np.log1p(max(top_score, 0.0))
    return out
