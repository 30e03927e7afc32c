"""What a fit derives from its training pages, one page at a time, releasing each page after it.

A page's parsed tree and blocks take about 1 MB (WCXB: 1.2 MB a page, measured); a fit on the
mixture of three datasets' training splits (2,600 distinct pages) that kept them all would hold
3 GB of trees it no longer reads once each page's features are built. These helpers keep only
what the fit derived, and compute a page that a balanced mixture repeats once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from boilerbench.datasets.page import Page

T = TypeVar("T")


def with_text(pages: Iterable[Page]) -> list[Page]:
    """The pages that have at least one block, releasing each after looking (a fit reads
    them again one by one, through :func:`derive`).

    It counts the gold labels (one per block), which come from the disk cache once a run has
    aligned the page: then the page is not parsed here, and a fit segments each training page
    once, in :func:`derive`, not twice."""
    kept = []
    for page in pages:
        if len(page.gold_labels):
            kept.append(page)
        page.release()
    return kept


def derive(pages: Sequence[Page], compute: Callable[[Page], T]) -> list[T]:
    """``compute(page)`` for every page, in order; a page that occurs twice (a balanced mixture
    repeats the smaller datasets' pages) is computed once and its result shared; each page is
    released (:meth:`Page.release`) right after."""
    done: dict[int, T] = {}
    results = []
    for page in pages:
        key = id(page)
        if key not in done:
            done[key] = compute(page)
            page.release()
        results.append(done[key])
    return results
