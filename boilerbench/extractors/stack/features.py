"""The stacked extractor's block features: what the heuristics see, and what each member decides.

Per block (rows in block order):

- *block features*: Web2Text's 128 block features (:mod:`boilerbench.extractors.web2text.features`:
  text statistics of the block, its parent, grandparent and the page, tag one-hots, duplicates,
  relative position); CETD's text density and composite text density (Sun et al. 2011) of the
  element holding the block and of its parent, log-scaled; Victor's CRF features
  (:mod:`boilerbench.extractors.crf.features`), one column per feature name seen in training;
- *votes*: per member, its vote on the block (aligned as the runner scores it), its votes on the
  previous and next blocks, the share of the five blocks around it that it keeps, and its
  page-level keep rate (share of the page's blocks and of its words it keeps); a member that
  failed on the page votes 0 everywhere and its ``failed`` column is 1; then the share of
  members that keep the block;
- *position*: the block's index over the page's number of blocks, and log of that number;
- *context* (the optional second stage, :func:`context_features`): what a first stage of trees
  thinks of the block's structural kin: the mean and the maximum of its probabilities over the
  blocks with the same tag path (a listing's items, a forum's posts and a menu's links each
  share one), their number, the mean over the five blocks around it, and the page's
  word-weighted mean; and the block's own first-stage probability.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from boilerbench.datasets.page import Page
from boilerbench.extractors.cetd import densities
from boilerbench.extractors.crf import features as crf_features
from boilerbench.extractors.dom_stats import dom_stats
from boilerbench.extractors.members import FAILED
from boilerbench.extractors.sharing import shared
from boilerbench.extractors.web2text.features import BLOCK_FEATURES, WEB2TEXT_RULES, language_rules, page_features

#: Feature groups a stack can use (the ablation: ``blocks``, ``votes`` or ``all``).
FEATURE_GROUPS = ("all", "blocks", "votes")
#: The text features' words and stopwords: Web2Text's English ones, or those of the page's
#: identified language (:func:`boilerbench.extractors.web2text.features.language_rules`).
TEXT_RULES = ("multilingual", "web2text")
DENSITY_FEATURES = ("log_td", "log_ctd", "log_parent_td", "log_parent_ctd")
POSITION_FEATURES = ("position", "log_n_blocks")
CONTEXT_FEATURES = ("p", "path_mean", "path_max", "log_path_blocks", "window5_mean", "page_mean")
VOTE_FEATURES = ("vote", "vote_prev", "vote_next", "vote_window5", "keep_rate_blocks", "keep_rate_words", "failed")


def density_features(page: Page) -> np.ndarray:
    """CETD's TD and CTD of each block's holding element and of that element's parent, ``log1p``."""
    n = len(page.blocks)
    out = np.zeros((n, len(DENSITY_FEATURES)))
    stats = dom_stats(page.blocks) if n else None
    if stats is None:
        return out
    owner = stats.block_owner
    valid = owner >= 0
    parent = np.where(valid, stats.parent[np.maximum(owner, 0)], -1)
    parent = np.where(parent >= 0, parent, owner)
    for k, kind in enumerate(("td", "ctd")):
        values = np.log1p(np.maximum(densities(stats, kind), 0.0))
        out[valid, k] = values[owner[valid]]
        out[valid, k + 2] = values[parent[valid]]
    return out


def crf_vocabulary(pages: Sequence[Page]) -> list[str]:
    """The CRF feature names seen on ``pages``, sorted: the columns of :func:`crf_matrix`."""
    names: set[str] = set()
    for page in {id(p): p for p in pages}.values():  # each distinct page once, released after
        for block in crf_features.page_features(page):
            names.update(block)
        page.release()
    return sorted(names)


def crf_matrix(page: Page, vocabulary: Sequence[str]) -> np.ndarray:
    """The CRF features of ``page`` as a dense (n_blocks, len(vocabulary)) matrix (absent = 0);
    none computed for an empty vocabulary (a stack without CRF features)."""
    if not vocabulary:
        return np.zeros((len(page.blocks), 0))
    column = {name: j for j, name in enumerate(vocabulary)}
    dicts = crf_features.page_features(page)
    out = np.zeros((len(dicts), len(vocabulary)))
    for i, block in enumerate(dicts):
        for name, value in block.items():
            j = column.get(name)
            if j is not None:
                out[i, j] = value
    return out


def vote_features(votes: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Per-member vote features (:data:`VOTE_FEATURES`, member by member) and the share of
    members keeping each block, from the (n_blocks, n_members) vote matrix (-1 = failed)."""
    n, m = votes.shape
    failed = (votes == FAILED).any(axis=0) if n else np.zeros(m, dtype=bool)
    kept = (votes == 1).astype(np.float64)
    padded = np.pad(kept, ((1, 1), (0, 0)))
    window = np.pad(kept, ((2, 2), (0, 0)))
    window5 = np.stack([window[k : k + n] for k in range(5)]).sum(axis=0) / 5.0
    total_words = max(float(words.sum()), 1.0)
    columns = []
    for j in range(m):
        rate_blocks = kept[:, j].mean() if n else 0.0
        rate_words = float(kept[:, j] @ words) / total_words
        columns += [
            kept[:, j],
            padded[:-2, j],
            padded[2:, j],
            window5[:, j],
            np.full(n, rate_blocks),
            np.full(n, rate_words),
            np.full(n, float(failed[j])),
        ]
    columns.append(kept.mean(axis=1) if m else np.zeros(n))
    return np.column_stack(columns) if columns else np.zeros((n, 0))


def context_features(paths: Sequence[str], words: np.ndarray, p: np.ndarray) -> np.ndarray:
    """:data:`CONTEXT_FEATURES` of each block from the first stage's probabilities ``p`` of a
    page's blocks (``paths``: their tag paths; ``words``: their word counts)."""
    n = len(p)
    if n == 0:
        return np.zeros((0, len(CONTEXT_FEATURES)))
    _, group = np.unique(np.asarray(paths, dtype=object), return_inverse=True)
    size = np.bincount(group).astype(np.float64)
    path_mean = np.bincount(group, weights=p) / size
    path_max = np.full(len(size), -np.inf)
    np.maximum.at(path_max, group, p)
    padded = np.pad(p, 2)
    window5 = np.stack([padded[k : k + n] for k in range(5)]).sum(axis=0) / 5.0
    page_mean = float(p @ words / words.sum()) if words.sum() > 0 else float(p.mean())
    return np.column_stack([p, path_mean[group], path_max[group], np.log(size[group]), window5, np.full(n, page_mean)])


def position_features(n: int) -> np.ndarray:
    """Each block's relative position and log of the page's number of blocks."""
    return np.column_stack([np.arange(n) / max(n - 1, 1), np.full(n, np.log1p(n))])


def feature_names(group: str, members: Sequence[str], vocabulary: Sequence[str]) -> list[str]:
    """The column names of :func:`page_matrix`'s rows for a feature ``group``."""
    names = [f"position.{f}" for f in POSITION_FEATURES]
    if group in ("all", "blocks"):
        names += [f"web2text.{f}" for f in BLOCK_FEATURES]
        names += [f"cetd.{f}" for f in DENSITY_FEATURES]
        names += [f"crf.{f}" for f in vocabulary]
    if group in ("all", "votes"):
        names += [f"member.{m}.{f}" for m in members for f in VOTE_FEATURES] + ["members.keep_share"]
    return names


def page_matrix(
    page: Page, group: str, votes: np.ndarray | None, vocabulary: Sequence[str], text_rules: str = "web2text"
) -> np.ndarray:
    """The feature rows (float32, one per block) of ``page`` for a feature ``group``; ``votes``
    is the members' vote matrix (needed unless ``group`` is ``blocks``); ``text_rules``: the
    words and stopwords of the text features (:data:`TEXT_RULES`). The block features are shared
    inside :func:`~boilerbench.extractors.sharing.sharing` (a cascade's two stages compute them
    once)."""
    blocks = page.blocks
    n = len(blocks)
    parts = [position_features(n)]
    if group in ("all", "blocks"):
        rules = language_rules(blocks.detected_language) if text_rules == "multilingual" else WEB2TEXT_RULES
        block = shared(
            page,
            f"stack block features ({text_rules})",
            lambda: page_features(blocks, page.html, rules, edges=False)[0],
        )
        parts += [block, density_features(page), crf_matrix(page, vocabulary)]
    if group in ("all", "votes"):
        assert votes is not None
        parts.append(vote_features(votes, blocks.word_counts.astype(np.float64)))
    return np.column_stack(parts).astype(np.float32) if n else np.zeros((0, sum(p.shape[1] for p in parts)), np.float32)
