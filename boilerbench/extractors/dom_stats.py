"""Per-element text statistics of a page's DOM, shared by the density methods (CETD, SCEDD).

Elements under ``<body>`` (body included) are numbered in pre-order, so the subtree of element
``i`` is the index range ``[i, end[i])`` and every subtree sum is a difference of prefix sums.
Text is counted on the canonical blocks (``page.blocks``): an element's *own* characters are
those of the blocks it contains directly (its ``.text`` and its children's tails), so C counts
rendered text only (no script or style content) with whitespace collapsed, and separators
between blocks are not counted. "Removed" elements (``display:none``, or tags a method drops
such as SCEDD's form controls) count neither as tags nor as text, nor does anything inside them,
as if they had been deleted from the tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from weakref import WeakKeyDictionary

import numpy as np
from lxml import etree

from boilerbench.datasets.blocks import BLOCK_TAGS, Blocks
from boilerbench.html_tree import body_of

#: Tags whose text counts as link text (CETD, sec. 3.2; the authors' code: A, BUTTON, SELECT).
LINK_TAGS = frozenset({"a", "button", "select"})

_DISPLAY_NONE = re.compile(r"display\s*:\s*none", re.IGNORECASE)


def is_hidden(el: etree._Element) -> bool:
    """Inline ``display:none`` or the ``hidden`` attribute (CETD removes such elements first).

    Without a CSS engine, style sheets cannot be applied; inline styles are what we can see.
    """
    style = el.get("style")
    return el.get("hidden") is not None or (style is not None and _DISPLAY_NONE.search(style) is not None)


@dataclass(eq=False)
class DomStats:
    """Arrays over the elements of ``<body>`` in pre-order (index 0 is body), and the block map.

    ``C`` characters of text in the subtree, ``T`` tags in the subtree (the element excluded),
    ``LC`` characters inside link tags, ``LT`` link tags (CETD's counts, sec. 3.2); ``own``
    characters held directly; ``line`` the number of block-level tags before the element
    (SCEDD's line estimate); ``block_owner[b]`` the element holding block b directly and
    ``block_chars[b]`` its length; ``block_start[i]:block_end[i]`` the blocks of i's subtree.
    """

    tags: list[str]
    parent: np.ndarray
    end: np.ndarray
    removed: np.ndarray
    own: np.ndarray
    C: np.ndarray
    T: np.ndarray
    LC: np.ndarray
    LT: np.ndarray
    line: np.ndarray
    n_lines: int
    block_owner: np.ndarray
    block_chars: np.ndarray
    block_start: np.ndarray
    block_end: np.ndarray

    def __len__(self) -> int:
        return len(self.tags)

    def path_to_body(self, i: int) -> list[int]:
        """Element i and its ancestors up to body (index 0)."""
        path = [i]
        while path[-1] > 0:
            path.append(int(self.parent[path[-1]]))
        return path

    def block_labels(self, elements: np.ndarray) -> np.ndarray:
        """Labels over the blocks: 1 for a block held directly by a selected, kept element."""
        labels = np.zeros(len(self.block_owner), dtype=np.int8)
        valid = self.block_owner >= 0
        owners = self.block_owner[valid]
        labels[valid] = elements[owners] & ~self.removed[owners]
        return labels

    def subtree_mask(self, roots: Iterable[int]) -> np.ndarray:
        """Elements inside the subtrees of ``roots`` (roots included)."""
        return subtree_mask(np.fromiter(roots, dtype=np.int64), self.end)


@dataclass(eq=False)
class DomWalk:
    """What :func:`dom_stats` reads from the tree whatever its options: the elements of ``<body>``
    in pre-order (``elements[0]`` is body) with their lower-case tags (``""`` for comments and
    processing instructions), parents (-1 for body), subtree ends, whether each is hidden
    (:func:`is_hidden`), and each block's position in the walk's event stream and owner."""

    elements: list
    tags: list[str]
    parent: np.ndarray
    end: np.ndarray
    hidden: np.ndarray
    start_event: np.ndarray
    end_event: np.ndarray
    block_owner: np.ndarray
    block_key: np.ndarray


#: Each segmented page's walk, made once and shared by every :func:`dom_stats` call on it (the
#: stack's density features and Web2Text's features each need one, with other link tags); gone
#: with the page's blocks.
_WALKS: WeakKeyDictionary[Blocks, DomWalk | None] = WeakKeyDictionary()


def dom_walk(blocks: Blocks) -> DomWalk | None:
    """The page's :class:`DomWalk` (None when it has no body), made on first use."""
    if blocks not in _WALKS:
        _WALKS[blocks] = _walk(blocks)
    return _WALKS[blocks]


def _walk(blocks: Blocks) -> DomWalk | None:
    body = body_of(blocks.root)
    if body is None:
        return None
    elements: list = []
    tags: list[str] = []
    parent: list[int] = []
    hidden: list[bool] = []
    start_event: list[int] = []
    end_list: list[int] = []
    end_event: list[int] = []
    index: dict = {}
    stack: list[int] = []
    event = 0
    for kind, el in etree.iterwalk(body, events=("start", "end")):
        event += 1
        if kind == "end":
            i = stack.pop()
            end_list[i] = len(tags)
            end_event[i] = event
            continue
        i = len(tags)
        index[el] = i
        elements.append(el)
        tags.append(el.tag.lower() if isinstance(el.tag, str) else "")
        parent.append(stack[-1] if stack else -1)
        hidden.append(is_hidden(el))
        start_event.append(event)
        end_list.append(0)
        end_event.append(0)
        stack.append(i)
    parent_a = np.asarray(parent, dtype=np.int64)
    # Blocks: owner element, and position in the event stream (text inside its anchor's
    # start event, a tail just after its anchor's end event), which orders blocks like the
    # document does and locates each subtree's blocks by binary search.
    nb = len(blocks)
    owner = np.full(nb, -1, dtype=np.int64)
    key = np.zeros(nb, dtype=np.float64)
    for b in range(nb):
        anchor = index.get(blocks.anchors[b])
        if anchor is None:
            continue
        if blocks.is_tail[b]:
            key[b] = end_event[anchor] + 0.5
            owner[b] = parent_a[anchor] if anchor > 0 else -1
        else:
            key[b] = start_event[anchor] + 0.5
            owner[b] = anchor
    return DomWalk(
        elements=elements,
        tags=tags,
        parent=parent_a,
        end=np.asarray(end_list, dtype=np.int64),
        hidden=np.asarray(hidden, dtype=bool),
        start_event=np.asarray(start_event, dtype=np.float64),
        end_event=np.asarray(end_event, dtype=np.float64),
        block_owner=owner,
        block_key=key,
    )


def _among(tags: list[str], names: frozenset[str]) -> np.ndarray:
    """Which of ``tags`` are in ``names``."""
    return np.fromiter((tag in names for tag in tags), dtype=bool, count=len(tags))


def subtree_mask(roots: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The elements of a pre-order walk (subtree of ``i``: ``i`` to ``end[i]``) inside the
    subtrees of the elements ``roots`` (indices, them included): the count of roots open at each
    element (a difference array's running sum; subtrees nest) is positive."""
    n = len(end)
    roots = np.unique(roots)
    opened = np.bincount(roots, minlength=n + 1) - np.bincount(end[roots], minlength=n + 1)
    return np.cumsum(opened[:n]) > 0


#: Each page's :class:`DomStats` by options, made once per page and options (the stack's
#: Web2Text features and its Readability candidate read the same ones); gone with the page's
#: blocks. Their arrays are read-only, being shared.
_STATS: WeakKeyDictionary[Blocks, dict[tuple[frozenset[str], frozenset[str]], DomStats | None]] = WeakKeyDictionary()


def dom_stats(
    blocks: Blocks, removed_tags: Iterable[str] = (), link_tags: Iterable[str] = LINK_TAGS
) -> DomStats | None:
    """The :class:`DomStats` of a segmented page (None when it has no body), computed on the
    first call with these options."""
    options = (frozenset(removed_tags), frozenset(link_tags))
    made = _STATS.setdefault(blocks, {})
    if options not in made:
        made[options] = _dom_stats(blocks, *options)
    return made[options]


def _dom_stats(blocks: Blocks, removed_tags: frozenset[str], link_tags: frozenset[str]) -> DomStats | None:
    walk = dom_walk(blocks)
    if walk is None:
        return None
    tags, parent_a, end = walk.tags, walk.parent, walk.end
    n = len(tags)
    removed_a = subtree_mask(np.flatnonzero(walk.hidden | _among(tags, removed_tags)), end)
    is_link = _among(tags, link_tags)
    in_link = subtree_mask(np.flatnonzero(is_link), end)
    is_block = _among(tags, BLOCK_TAGS) & ~removed_a
    kept = ~removed_a

    owner = walk.block_owner
    nb = len(blocks)
    chars = np.fromiter((len(t) for t in blocks.texts), dtype=np.int64, count=nb)
    valid = owner >= 0
    own = np.bincount(owner[valid], weights=chars[valid], minlength=n).astype(np.int64) * kept

    def subtree_sum(values: np.ndarray) -> np.ndarray:
        prefix = np.concatenate(([0], np.cumsum(values)))
        return prefix[end] - prefix[np.arange(n)]

    C = subtree_sum(own)
    T = subtree_sum(kept.astype(np.int64)) - kept
    LC = subtree_sum(own * in_link)
    LT = _link_tags(parent_a, is_link, kept, C, T, LC)
    blocks_before = np.concatenate(([0], np.cumsum(is_block.astype(np.int64))))
    stats = DomStats(
        tags=tags,
        parent=parent_a,
        end=end,
        removed=removed_a,
        own=own,
        C=C,
        T=T,
        LC=LC,
        LT=LT,
        line=blocks_before[:-1],
        n_lines=int(blocks_before[-1]),
        block_owner=owner,
        block_chars=chars,
        block_start=np.searchsorted(walk.block_key, walk.start_event),
        block_end=np.searchsorted(walk.block_key, walk.end_event),
    )
    for value in vars(stats).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return stats


def _link_tags(parent: np.ndarray, is_link: np.ndarray, kept: np.ndarray, C, T, LC) -> np.ndarray:
    """LT as the CETD authors' code counts it (``CountLinkTag``).

    A link element's LT is its own tag count T. Any other element sums, over its children, the
    child's LT plus one when the child is a link, or when the child is made only of links
    (LT = T, LC = C, LT > 0): a ``<li>`` holding just an ``<a>`` counts as a link tag too.
    """
    n = len(parent)
    LT = np.zeros(n, dtype=np.int64)
    for k in range(n - 1, -1, -1):  # pre-order reversed: children before their parent
        if not kept[k]:
            continue
        if is_link[k]:
            LT[k] = T[k]
        p = parent[k]
        if p < 0:
            continue
        extra = 1 if is_link[k] or (LT[k] == T[k] and C[k] == LC[k] and LT[k] != 0) else 0
        LT[p] += LT[k] + extra
    return LT
