"""Longest common subsequences of token lists: the length (the CleanEval score) and an optimal
alignment (block labels, segment validity, the viewer's diff).

Both run rapidfuzz's bit-parallel LCS (time O(n m / 64); the alignment also needs n m bits of
memory), after two reductions that never change the LCS length:

- a token that does not occur on the other side is in no common subsequence and is dropped;
- then the common prefix and suffix are matched one to one (some optimal LCS matches them).

On a page that an extractor keeps almost whole, or drops whole, this leaves little or nothing
to align, so a 20 MB page is scored in seconds instead of hours. What remains is refused with
:class:`AlignmentTooLargeError` (a per-page error) above a bound of time (the length) or memory
(the alignment). The reductions apply only to streams above ``REDUCE_ABOVE_CELLS``: on the
datasets' pages they cost about 10 % more than they save (``benchmarks/lcs_speed.py``), and
below it rapidfuzz aligns the full streams, so the labels of every page of the datasets are
those the pinned figures were measured with (the reductions keep the alignment optimal, but may
pick another of several equally long ones).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

import numpy as np
import pandas as pd
from rapidfuzz.distance import LCSseq

#: Refuse an alignment whose bit-parallel matrix would exceed this many cells (about 2 GB).
MAX_ALIGNMENT_CELLS = 16_000_000_000
#: Refuse an LCS length over more cells than this (about 15 s of rapidfuzz on one core).
MAX_LENGTH_CELLS = 120_000_000_000
#: Streams over more cells than this (about 0.5 s, or 0.5 GB of alignment matrix) are reduced first.
REDUCE_ABOVE_CELLS = 4_000_000_000


class AlignmentTooLargeError(ValueError):
    """The two token streams are too long to align within the time or memory bound."""


def _reduce(a: Sequence[str], b: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The exact reductions: positions of ``a`` and of ``b`` matched one to one (the common
    prefix and suffix of the streams without the tokens that the other side lacks), and the
    positions of ``a`` and of ``b`` left to align between them."""
    codes, uniques = pd.factorize(np.array([*a, *b], dtype=object))  # tokens as integer ids
    a_ids, b_ids = codes[: len(a)], codes[len(a) :]
    in_a = np.zeros(len(uniques), dtype=bool)
    in_a[a_ids] = True
    in_b = np.zeros(len(uniques), dtype=bool)
    in_b[b_ids] = True
    keep_a = np.flatnonzero(in_b[a_ids])
    keep_b = np.flatnonzero(in_a[b_ids])
    x, y = a_ids[keep_a], b_ids[keep_b]
    k = min(len(x), len(y))
    differ = x[:k] != y[:k]
    prefix = int(np.argmax(differ)) if differ.any() else k
    differ = x[::-1][: k - prefix] != y[::-1][: k - prefix]
    suffix = int(np.argmax(differ)) if differ.any() else k - prefix
    ends_a = np.r_[keep_a[:prefix], keep_a[len(x) - suffix :]]
    ends_b = np.r_[keep_b[:prefix], keep_b[len(y) - suffix :]]
    return ends_a, ends_b, keep_a[prefix : len(x) - suffix], keep_b[prefix : len(y) - suffix]


def _check(n: int, m: int, bound: int, what: str) -> None:
    if n * m > bound:
        raise AlignmentTooLargeError(f"cannot {what} {n:,} x {m:,} tokens (bound {bound:,} cells)")


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of a longest common subsequence of ``a`` and ``b``."""
    if len(a) * len(b) <= REDUCE_ABOVE_CELLS:
        return int(LCSseq.similarity(a, b))
    ends, _, mid_a, mid_b = _reduce(a, b)
    if len(mid_a) == 0 or len(mid_b) == 0:
        return len(ends)
    _check(len(mid_a), len(mid_b), MAX_LENGTH_CELLS, "compare")
    return len(ends) + int(LCSseq.similarity([a[i] for i in mid_a], [b[j] for j in mid_b]))


def _matching(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """rapidfuzz's optimal alignment of the full streams: for each ``a`` token, its ``b`` index or -1."""
    _check(len(a), len(b), MAX_ALIGNMENT_CELLS, "align")
    match = np.full(len(a), -1, dtype=np.int64)
    for block in LCSseq.editops(a, b).as_matching_blocks():
        match[block.a : block.a + block.size] = np.arange(block.b, block.b + block.size)
    return match


def lcs_alignment(a: Sequence[str], b: Sequence[str], split_above: int | None = None) -> np.ndarray:
    """For each token of ``a``, the index of the ``b`` token it is matched to in an optimal LCS
    alignment, or -1.

    With ``split_above`` (cells), the memory the alignment may take is bounded by that many bits:
    streams over it are reduced first, and a reduced middle still over it is split at anchors
    (:func:`_anchored`), each part aligned on its own: a common subsequence, no longer guaranteed
    the longest (a stack's member votes use it, the metrics never do)."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return np.full(n, -1, dtype=np.int64)
    if n * m <= (REDUCE_ABOVE_CELLS if split_above is None else min(split_above, REDUCE_ABOVE_CELLS)):
        return _matching(a, b)
    ends_a, ends_b, mid_a, mid_b = _reduce(a, b)
    match = np.full(n, -1, dtype=np.int64)
    match[ends_a] = ends_b
    if len(mid_a) and len(mid_b):
        x, y = [a[i] for i in mid_a], [b[j] for j in mid_b]
        fits = split_above is None or len(x) * len(y) <= split_above
        middle = _matching(x, y) if fits else _anchored(x, y, split_above or 0)
        hit = middle >= 0
        match[mid_a[hit]] = mid_b[middle[hit]]
    return match


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions in ``a`` and in ``b`` of the tokens that occur once on each side, by position in ``a``."""
    size = int(max(a.max(), b.max())) + 1
    once = (np.bincount(a, minlength=size) == 1) & (np.bincount(b, minlength=size) == 1)
    pa, pb = np.flatnonzero(once[a]), np.flatnonzero(once[b])
    where_in_b = np.empty(size, dtype=np.int64)
    where_in_b[b[pb]] = pb
    return pa, where_in_b[a[pa]]


def _anchors(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Patience diff's anchors of two id streams (positions in ``a``, in ``b``): the tokens that
    occur once on each side, those of them in the longest run that is in the same order on both
    sides."""
    pa, pb = _paired(a, b)
    tails: list[int] = []  # the longest increasing run of pb (patience sorting)
    tail_at: list[int] = []
    back = np.full(len(pb), -1, dtype=np.int64)
    for k, value in enumerate(pb.tolist()):
        at = bisect_left(tails, value)
        back[k] = tail_at[at - 1] if at else -1
        if at == len(tails):
            tails.append(value)
            tail_at.append(k)
        else:
            tails[at], tail_at[at] = value, k
    chosen, k = [], tail_at[-1] if tail_at else -1
    while k >= 0:
        chosen.append(k)
        k = int(back[k])
    keep = np.array(chosen[::-1], dtype=np.int64)
    return pa[keep], pb[keep]


def _anchored(a: Sequence[str], b: Sequence[str], max_cells: int) -> np.ndarray:
    """A common-subsequence alignment of ``a`` and ``b`` whose every exact part fits ``max_cells``:
    the streams are cut at their anchors (:func:`_anchors`, matched to each other), and each
    span between two anchors is aligned exactly if it fits, else cut at its own anchors; a span
    over ``max_cells`` without any is :class:`AlignmentTooLargeError`."""
    codes, _ = pd.factorize(np.array([*a, *b], dtype=object))
    a_ids, b_ids = codes[: len(a)], codes[len(a) :]
    match = np.full(len(a), -1, dtype=np.int64)
    spans = [(0, len(a), 0, len(b))]
    while spans:
        i0, i1, j0, j1 = spans.pop()
        if i1 <= i0 or j1 <= j0:
            continue
        if (i1 - i0) * (j1 - j0) <= max_cells:
            part = _matching(a_ids[i0:i1].tolist(), b_ids[j0:j1].tolist())
            hit = part >= 0
            match[i0 + np.flatnonzero(hit)] = j0 + part[hit]
            continue
        pa, pb = _anchors(a_ids[i0:i1], b_ids[j0:j1])
        if len(pa) == 0:
            _check(i1 - i0, j1 - j0, max_cells, "align")
        match[i0 + pa] = j0 + pb
        cuts_a = [i0, *(i0 + pa + 1).tolist()]
        ends_a = [*(i0 + pa).tolist(), i1]
        cuts_b = [j0, *(j0 + pb + 1).tolist()]
        ends_b = [*(j0 + pb).tolist(), j1]
        spans.extend(zip(cuts_a, ends_a, cuts_b, ends_b, strict=True))
    return match
