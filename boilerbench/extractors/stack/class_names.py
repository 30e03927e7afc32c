"""Container names: what the page's own class and id names say about each block's container.

A site names its comment section ``comments``, its teaser rail ``related-posts``, its share bar
``social-share`` and its article ``entry-content``; Readability reads these names (its
``unlikelyCandidates`` and ``positive`` patterns) and that is much of why it drops reader
comments that the block features keep. The names are read here as six families of words
(:data:`FAMILIES`), matched against the words of each class token and of the id (split at
``-``, ``_``, digits and camelCase: ``ads`` is a word of ``top-ads`` but not of ``uploads``, and
``headline`` is not ``header``).

For each block and family the feature is the share of the page's text (characters of its blocks)
inside the nearest ancestor-or-self element whose names hold a word of that family, 0 where there
is none. A share, not a flag, so that a wrapper holding the whole page (``<div id="comments_page_wrapper">``
around an article) reads differently from a comment section holding a tenth of it.

The same name means boilerplate on an article and the posts themselves on a thread (on the
mixture's training pages, 2 % of the words in ``comment`` containers are gold on articles and 54 %
on forums: ``python -m studies.container_names``), so the columns are read through the stack's
page-type classifier (:mod:`boilerbench.extractors.stack.page_types`): times P(article) and, in a
second set, times P(forum) (:func:`gated_shares`), by the second stage only: the stack reads them
with ``class_names`` (which needs ``type_features``).
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
from lxml import etree

from boilerbench.datasets.blocks import Blocks

#: The families of container words, each a set of whole words of a class token or id.
FAMILIES: dict[str, frozenset[str]] = {
    "comment": frozenset(
        ("comment", "comments", "commentlist", "disqus", "reply", "replies", "respond", "discussion", "reactions")
    ),
    "related": frozenset(
        (
            "related",
            "recommended",
            "recommendations",
            "popular",
            "trending",
            "teaser",
            "teasers",
            "promo",
            "outbrain",
            "taboola",
            "more",
        )
    ),
    "navigation": frozenset(
        ("nav", "navbar", "navigation", "menu", "breadcrumb", "breadcrumbs", "pagination", "pager", "tags", "tag")
    ),
    "chrome": frozenset(
        (
            "header",
            "footer",
            "sidebar",
            "aside",
            "masthead",
            "banner",
            "ad",
            "ads",
            "advert",
            "advertisement",
            "sponsor",
            "sponsored",
            "widget",
            "newsletter",
            "subscribe",
            "popup",
            "modal",
            "copyright",
        )
    ),
    "sharing": frozenset(
        ("share", "sharing", "social", "facebook", "twitter", "whatsapp", "pinterest", "linkedin", "print", "email")
    ),
    "body": frozenset(("article", "content", "main", "post", "entry", "story", "body", "text", "prose")),
}
#: The families in column order.
FAMILY_NAMES = tuple(FAMILIES)

#: Word boundaries inside a name: separators and digits, and a lower-case letter before an upper-case one.
_SPLIT = re.compile(r"[^A-Za-z]+|(?<=[a-z])(?=[A-Z])")


@lru_cache(maxsize=65536)
def name_families(name: str) -> int:
    """The families (a bit per :data:`FAMILY_NAMES` entry) whose words are words of ``name``."""
    words = {w.lower() for w in _SPLIT.split(name) if w}
    return sum(1 << k for k, family in enumerate(FAMILIES.values()) if words & family)


def element_families(element: etree._Element) -> int:
    """The families named by ``element``'s class tokens and id (0 for ``html`` and ``body``,
    whose names describe the whole page, and for comments and processing instructions)."""
    tag = element.tag
    if not isinstance(tag, str) or tag.lower() in ("html", "body"):
        return 0
    classes, element_id = element.get("class"), element.get("id")
    return names_families(classes, element_id) if classes or element_id else 0


@lru_cache(maxsize=65536)
def names_families(classes: str | None, element_id: str | None) -> int:
    """The families named by a ``class`` attribute's tokens and an id (a page repeats a few class
    values on many elements, so each pair is read once)."""
    bits = 0
    for name in (*(classes or "").split(), element_id or ""):
        if name:
            bits |= name_families(name)
    return bits


def container_shares(blocks: Blocks) -> np.ndarray:
    """A ``(len(blocks), len(FAMILIES))`` array: per block and family, the share of the page's
    characters inside the nearest ancestor-or-self element that the family names, else 0.

    One walk up from each block, stopping at an element already seen: each element keeps the
    named elements above it (or itself) and, per family, the nearest of them; each named element's
    characters are then summed over the blocks below it."""
    n, width = len(blocks), len(FAMILIES)
    if n == 0:
        return np.zeros((n, width))
    named: dict[int, int] = {}  # id of a named element -> its number
    seen: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}  # id -> (named above, nearest per family)
    alive: list[etree._Element] = []  # the visited elements, so that their ids stay theirs
    nothing = (-1,) * width
    block_state = []
    for i in range(n):
        owner = element = blocks.owner(i)
        pending = []
        while element is not None and id(element) not in seen:
            pending.append(element)
            element = element.getparent()
        above, nearest = seen[id(element)] if element is not None else ((), nothing)
        for visited in reversed(pending):
            bits = element_families(visited)
            if bits:
                number = named.setdefault(id(visited), len(named))
                above = (*above, number)
                nearest = tuple(number if bits >> k & 1 else nearest[k] for k in range(width))
            seen[id(visited)] = (above, nearest)
        alive.extend(pending)
        block_state.append(seen[id(owner)])
    chars = np.array([len(t) for t in blocks.texts], dtype=np.float64)
    lengths = [len(above) for above, _ in block_state]
    total = np.zeros(len(named) + 1)  # the last one, read for "no such container", stays 0
    np.add.at(total, np.fromiter((k for above, _ in block_state for k in above), np.int64), np.repeat(chars, lengths))
    return total[np.array([nearest for _, nearest in block_state])] / (chars.sum() or 1.0)


def gated_shares(shares: np.ndarray, p_article: float, p_forum: float) -> np.ndarray:
    """The columns the stack's second stage reads: ``shares`` times the page's P(article), then
    ``shares`` times its P(forum), so that a page taken for a thread does not read its posts'
    ``comment`` containers as an article's comments."""
    return np.hstack([shares * p_article, shares * p_forum])


def gated_share_names() -> list[str]:
    """The names of :func:`gated_shares`' columns."""
    return [f"names.{family}.{gate}" for gate in ("article", "forum") for family in FAMILY_NAMES]
