"""Per-page artefacts shared by the extractors that run on one page, so that, for instance, the
members of a stack parse a page's HTML once instead of once each (issue 37; trafilatura's
design note: "parse once, pass the tree").

Inside ``with sharing(page):`` (entered by :func:`boilerbench.extractors.members.vote_matrix`
around the members' votes, and by a cascade around both its stages, which then share their
members' votes and their block features), :func:`shared` makes each artefact once and hands the same object
to every caller that asks for the same key; outside it, :func:`shared` makes a fresh one each
time, so an extractor used alone behaves as before. Artefacts are dropped when the outermost
``with`` ends: a runner that keeps its pages keeps none of them.

A shared artefact is read-only: a caller whose library modifies what it is given (readability
drops nodes of the tree it parses) hands it a copy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from boilerbench.datasets.page import Page

T = TypeVar("T")
_local = threading.local()


def _scopes() -> dict[int, dict[str, Any]]:
    """This thread's open scopes: id of the page -> its artefacts by key."""
    if not hasattr(_local, "scopes"):
        _local.scopes = {}
    return _local.scopes


@contextmanager
def sharing(page: Page) -> Iterator[None]:
    """Share the artefacts of ``page`` made by :func:`shared` until the block ends (nested
    blocks on the same page share the outer one's)."""
    scopes = _scopes()
    opened = id(page) not in scopes
    if opened:
        scopes[id(page)] = {}
    try:
        yield
    finally:
        if opened:
            del scopes[id(page)]


def is_shared(page: Page) -> bool:
    """Whether :func:`shared` shares artefacts of ``page`` now (inside :func:`sharing`)."""
    return id(page) in _scopes()


def shared(page: Page, key: str, make: Callable[[], T]) -> T:
    """``make()``, made once per page and ``key`` inside :func:`sharing`, else each call."""
    scope = _scopes().get(id(page))
    if scope is None:
        return make()
    if key not in scope:
        scope[key] = make()
    return scope[key]
