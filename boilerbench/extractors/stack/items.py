"""Item groups: a page's repeated sibling subtrees (a thread's posts, a listing's items, a
collection's cards), so that the stack can judge an item with its group rather than block by block.

The stack-decoding study found the blocks of a thread's replies or a listing's items scored at 0.2
to 0.45 by the second stage while the oracle keeps them: each block is judged alone, where the
page's structure says that they are one repeated unit. Repeated structure as the unit of a page's
records is the idea of MDR (Liu, Grossman and Zhai, KDD 2003: data records as repeated sibling
subtrees under one parent) and of DEPTA (Zhai and Liu, WWW 2005).

An *item* is an element that has at least :data:`MIN_ITEMS` - 1 siblings (children of the same
parent) with the same signature (tag and class names, digits dropped: ``post-123`` and ``post-456``
are one class) and each holding text; those siblings are the item *group*. A block lies in the
items of its ancestors; its *inner* item is the nearest one, its *outer* item the farthest (a
post's paragraphs inside a thread's posts inside a page's layout rows). Per block and per level,
:func:`item_features` gives the group's shape (number of items, share of the page's words, words
per item, link density, position, regularity) and what the first stage of trees thinks of it: the
group's mean probability, the share of its items it keeps, the block's item's mean, and the mean
over the group's blocks with the block's tag path (the same role in every item: a post's body, a
card's title). The last one also makes the group's keep/drop decision (:func:`pool_by_items`).
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from boilerbench.datasets.blocks import Blocks
from boilerbench.extractors.dom_stats import dom_walk, subtree_mask

#: A group has at least this many items (the issue's "repeated three times or more").
MIN_ITEMS = 3
#: Formatting tags never taken as items (three bold words in a sentence are no listing).
INLINE_TAGS = frozenset("b strong em i u s font small big code abbr sup sub mark time q cite label tt kbd var".split())
LEVELS = ("inner", "outer")
#: The columns of :func:`item_features`, per level.
ITEM_FEATURES = (
    "in_group",
    "log_items",
    "page_share",
    "log_words_per_item",
    "link_density",
    "position",
    "regularity",
    "item_share",
    "group_p",
    "items_kept",
    "item_p",
    "column_p",
)
#: Columns of :func:`item_layout`: inner item, inner group, outer item, outer group (-1 = none), in a link (0/1).
LAYOUT_COLUMNS = 5
_DIGITS = re.compile(r"\d+")


@lru_cache(maxsize=1 << 16)
def _signature(tag: str, classes: str) -> str:
    """A tag and its sorted ``class`` names with their digits dropped (a page repeats a few of
    them many times)."""
    names = sorted({_DIGITS.sub("", c) for c in classes.split()})
    return f"{tag.lower()}.{' '.join(names)}"


def item_layout(blocks: Blocks) -> np.ndarray:
    """Per block (rows): its inner item and group, its outer item and group (ids over the page,
    -1 where the block lies in no item) and whether it lies in a link (``a``), as int32.

    Read off the page's shared walk (:func:`~boilerbench.extractors.dom_stats.dom_walk`) by element
    index: the elements that hold a block or contain one, up to the root (which has no siblings),
    are grouped by parent and signature in the order the blocks' ancestor chains first meet them;
    an item's subtree is an index range of the pre-order, so the nearest and farthest items over
    each element are painted range by range."""
    n = len(blocks)
    out = np.full((n, LAYOUT_COLUMNS), -1, dtype=np.int32)
    walk = dom_walk(blocks)
    if not n or walk is None:
        return out
    body = walk.elements[0]
    # body's ancestors below the root (none on a normal page, whose body's parent is the root)
    # come first in the pre-order, from the top down, each containing everything after it
    above = [a for a in body.iterancestors() if a.getparent() is not None][::-1]
    offset, size = len(above), len(above) + len(walk.elements)
    elements = [*above, *walk.elements]
    tags = [*((a.tag.lower() if isinstance(a.tag, str) else "") for a in above), *walk.tags]
    parent = np.concatenate([np.arange(-1, offset - 1), np.where(walk.parent >= 0, walk.parent + offset, offset - 1)])
    end = np.concatenate([np.full(offset, size), walk.end + offset])
    root = 0 if body.getparent() is None else -1  # body itself when it is the root: in no chain
    owners = walk.block_owner + offset
    members: dict[tuple[int, str], list[int]] = {}
    parents = parent.tolist()
    seen = [False] * size
    for owner in owners.tolist():
        element = owner
        # an element met before was met with its ancestors: the rest of this chain is known
        while element >= 0 and element != root and not seen[element]:
            seen[element] = True
            tag = tags[element]
            if tag and tag not in INLINE_TAGS:
                node = elements[element]  # a tag, so its signature's arguments directly
                key = (parents[element], _signature(node.tag, node.get("class") or ""))
                members.setdefault(key, []).append(element)
            element = parents[element]
    items: list[tuple[int, int, int]] = []  # (element, item, group)
    for g, group in enumerate(m for m in members.values() if len(m) >= MIN_ITEMS):
        items += [(element, len(items) + k, g) for k, element in enumerate(group)]
    inner = np.full((size, 2), -1, dtype=np.int64)
    outer = np.full((size, 2), -1, dtype=np.int64)
    for element, item, g in sorted(items):  # deeper items paint over the ones around them
        inner[element : end[element]] = item, g
    for element, item, g in sorted(items, reverse=True):  # the outermost paints last
        outer[element : end[element]] = item, g
    link = subtree_mask(np.array([k for k, tag in enumerate(tags) if tag == "a" and k != root], np.int64), end)
    out[:, 0:2] = inner[owners]
    out[:, 2:4] = outer[owners]
    out[:, 4] = link[owners]
    return out


def _group_means(key: np.ndarray, values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per block with ``key`` >= 0: the ``weights``-weighted mean of ``values`` over the blocks with
    its key (NaN elsewhere)."""
    out = np.full(len(key), np.nan)
    inside = key >= 0
    if inside.any():
        _, index = np.unique(key[inside], return_inverse=True)
        total = np.bincount(index, weights=weights[inside])
        mean = np.bincount(index, weights=weights[inside] * values[inside]) / np.maximum(total, 1e-12)
        out[inside] = mean[index]
    return out


def column_key(layout: np.ndarray, paths: list[str], level: int) -> np.ndarray:
    """Per block: an id of (its group at ``level``, its tag path), -1 outside any group: the blocks
    holding the same role in every item of a group."""
    group = layout[:, 2 * level + 1].astype(np.int64)
    if not len(group):
        return group
    _, path_id = np.unique(np.asarray(paths, dtype=object), return_inverse=True)
    return np.where(group >= 0, group * (len(paths) + 1) + path_id, -1)


def item_features(layout: np.ndarray, paths: list[str], words: np.ndarray, p: np.ndarray) -> np.ndarray:
    """:data:`ITEM_FEATURES` of each block, for the inner then the outer level (NaN where the block
    lies in no item), from its page's :func:`item_layout`, tag paths, word counts and first-stage
    probabilities ``p``."""
    n = len(p)
    columns = len(ITEM_FEATURES)
    out = np.full((n, columns * len(LEVELS)), np.nan)
    if not n:
        return out
    w = np.maximum(words, 1).astype(np.float64)
    total = float(w.sum())
    link = layout[:, 4].astype(np.float64)
    position = np.arange(n) / max(n - 1, 1)
    _, path_id = np.unique(np.asarray(paths, dtype=object), return_inverse=True)
    for level in range(len(LEVELS)):
        item, group = layout[:, 2 * level].astype(np.int64), layout[:, 2 * level + 1].astype(np.int64)
        inside = group >= 0
        block = out[:, level * columns : (level + 1) * columns]
        block[:, 0] = inside
        if not inside.any():
            continue
        g = np.where(inside, group, 0)
        n_groups = int(g.max()) + 1
        group_words = np.bincount(g, weights=w * inside, minlength=n_groups)
        # an item lies in one group: per group, its distinct items, and of those the ones kept
        _, first_of_item = np.unique(item[inside], return_index=True)
        group_of_item = g[inside][first_of_item]
        n_items = np.bincount(group_of_item, minlength=n_groups).astype(np.float64)
        first = np.full(n_groups, np.inf)
        np.minimum.at(first, g[inside], position[inside])
        item_p = _group_means(item, p, w)
        kept = np.bincount(group_of_item, weights=item_p[inside][first_of_item] >= 0.5, minlength=n_groups)
        item_kept = np.divide(kept, n_items, out=np.zeros(n_groups), where=n_items > 0)
        # regularity: the share of the group's tag paths found in at least half of its items
        pairs = np.unique(np.column_stack([g[inside], path_id[inside], item[inside]]), axis=0)
        paths_of, items_per_path = np.unique(pairs[:, :2], axis=0, return_counts=True)
        regular = items_per_path >= n_items[paths_of[:, 0]] / 2
        n_paths = np.bincount(paths_of[:, 0], minlength=n_groups)
        regularity = np.divide(
            np.bincount(paths_of[:, 0], weights=regular, minlength=n_groups),
            n_paths,
            out=np.zeros(n_groups),
            where=n_paths > 0,
        )
        item_words = np.bincount(np.where(inside, item, 0), weights=w * inside)
        block[inside, 1] = np.log(n_items[g[inside]])
        block[inside, 2] = group_words[g[inside]] / total
        block[inside, 3] = np.log(group_words[g[inside]] / n_items[g[inside]])
        block[inside, 4] = _group_means(group, link, w)[inside]
        block[inside, 5] = first[g[inside]]
        block[inside, 6] = regularity[g[inside]]
        block[inside, 7] = item_words[item[inside]] / group_words[g[inside]]
        block[inside, 8] = _group_means(group, p, w)[inside]
        block[inside, 9] = item_kept[g[inside]]
        block[inside, 10] = item_p[inside]
        block[inside, 11] = _group_means(column_key(layout, paths, level), p, w)[inside]
    return out


def item_feature_names() -> list[str]:
    """The names of :func:`item_features`' columns."""
    return [f"items.{level}.{f}" for level in LEVELS for f in ITEM_FEATURES]


def pool_by_items(
    p: np.ndarray, layout: np.ndarray, paths: list[str], words: np.ndarray, weight: float, level: str
) -> np.ndarray:
    """The group's decision: each block's probability moved ``weight`` of the way to the
    word-weighted mean over the blocks of its group (at ``level``) with its tag path, so that a
    role repeated in every item (a post's body, a card's title) is kept or dropped as one; blocks
    in no item keep theirs. ``weight`` 0 is the block's own decision, 1 the group's."""
    if weight == 0 or not len(p):
        return p
    mean = _group_means(column_key(layout, paths, LEVELS.index(level)), p, np.maximum(words, 1).astype(np.float64))
    return np.where(np.isnan(mean), p, (1 - weight) * p + weight * np.nan_to_num(mean))


#: The columns of :func:`page_structure`.
STRUCTURE_NAMES = ("log_groups", "log_max_items", "grouped_share", "largest_group_share", "link_share")


def page_structure(layout: np.ndarray, words: np.ndarray) -> np.ndarray:
    """A page's :data:`STRUCTURE_NAMES` (for the page-type classifier): ``log1p`` of its number of
    outer item groups and of the most items in one, the share of its words in a group and in the
    largest group, and the share of its words in links."""
    w = np.maximum(words, 1).astype(np.float64)
    total = float(w.sum()) if len(w) else 1.0
    group, item = layout[:, 3].astype(np.int64), layout[:, 2].astype(np.int64)
    inside = group >= 0
    if not inside.any():
        return np.array([0.0, 0.0, 0.0, 0.0, float(w @ layout[:, 4]) / total if len(w) else 0.0])
    by_group = np.bincount(group[inside], weights=w[inside])
    items = max(len(np.unique(item[group == g])) for g in np.unique(group[inside]))
    return np.array(
        [
            np.log1p(len(np.unique(group[inside]))),
            np.log1p(items),
            float(w[inside].sum()) / total,
            float(by_group.max()) / total,
            float(w @ layout[:, 4]) / total,
        ]
    )
