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
        mask = np.zeros(len(self), dtype=bool)
        for i in roots:
            mask[i : self.end[i]] = True
        return mask


def dom_stats(
    blocks: Blocks, removed_tags: Iterable[str] = (), link_tags: Iterable[str] = LINK_TAGS
) -> DomStats | None:
    """Compute :class:`DomStats` for a segmented page, or ``None`` when it has no body."""
    body = body_of(blocks.root)
    if body is None:
        return None
    removed_tags = frozenset(removed_tags)
    link_tags = frozenset(link_tags)

    tags: list[str] = []
    parent: list[int] = []
    removed: list[bool] = []
    in_link: list[bool] = []
    is_link: list[bool] = []
    is_block: list[bool] = []
    start_event: list[int] = []
    end_list: list[int] = []
    index: dict = {}
    stack: list[int] = []
    event = 0
    end_event: dict[int, int] = {}
    for kind, el in etree.iterwalk(body, events=("start", "end")):
        event += 1
        if kind == "end":
            i = stack.pop()
            end_list[i] = len(tags)
            end_event[i] = event
            continue
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        i = len(tags)
        p = stack[-1] if stack else -1
        index[el] = i
        tags.append(tag)
        parent.append(p)
        gone = (p >= 0 and removed[p]) or tag in removed_tags or is_hidden(el)
        removed.append(gone)
        link = tag in link_tags
        is_link.append(link)
        in_link.append(link or (p >= 0 and in_link[p]))
        is_block.append(tag in BLOCK_TAGS and not gone)
        start_event.append(event)
        end_list.append(0)
        stack.append(i)

    n = len(tags)
    parent_a = np.asarray(parent, dtype=np.int64)
    end = np.asarray(end_list, dtype=np.int64)
    removed_a = np.asarray(removed, dtype=bool)
    kept = ~removed_a

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
    chars = np.fromiter((len(t) for t in blocks.texts), dtype=np.int64, count=nb)
    valid = owner >= 0
    own = np.bincount(owner[valid], weights=chars[valid], minlength=n).astype(np.int64) * kept

    def subtree_sum(values: np.ndarray) -> np.ndarray:
        prefix = np.concatenate(([0], np.cumsum(values)))
        return prefix[end] - prefix[np.arange(n)]

    C = subtree_sum(own)
    T = subtree_sum(kept.astype(np.int64)) - kept
    LC = subtree_sum(own * np.asarray(in_link, dtype=bool))
    LT = _link_tags(parent_a, np.asarray(is_link, dtype=bool), kept, C, T, LC)
    blocks_before = np.concatenate(([0], np.cumsum(np.asarray(is_block, dtype=np.int64))))
    ev_start = np.asarray(start_event, dtype=np.float64)
    ev_end = np.asarray([end_event[i] for i in range(n)], dtype=np.float64)
    return DomStats(
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
        block_start=np.searchsorted(key, ev_start),
        block_end=np.searchsorted(key, ev_end),
    )


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
