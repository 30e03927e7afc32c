"""Safe extraction: one extractor on one page, where every failure becomes the page's error.

A page over the run's size limit (``max_html_chars``) is not extracted; an exception inside the
extractor, or a result that is not an :class:`~boilerbench.extractors.base.Extraction`, is the
page's error string (:func:`boilerbench.errors.describe`: ``Type: message``); the failures the
worker pool sees from outside (:mod:`boilerbench.engine.pool`) are written the same way:
:class:`WorkerCrashed` and :class:`PageTimeout`. One bad page never ends a run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from boilerbench.datasets.page import Page
from boilerbench.errors import describe
from boilerbench.extractors.base import Extraction, Extractor

T = TypeVar("T")


class PageTooLarge(Exception):
    """A page over the run's size limit (``max_html_chars``): recorded as its error, not extracted."""


class WorkerCrashed(RuntimeError):
    """The worker process extracting a page died, in two workers one after the other."""


class PageTimeout(RuntimeError):
    """A page still being extracted ``seconds`` after it started: its worker process was killed."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"page took more than {seconds:g} s")
        self.seconds = seconds


def size_error(page: Page, max_html_chars: int | None) -> str:
    """The error of a page over ``max_html_chars`` characters of HTML (None: no limit), else ``""``."""
    if max_html_chars is None or len(page.html) <= max_html_chars:
        return ""
    return describe(PageTooLarge(f"{len(page.html):,} characters > limit {max_html_chars:,}"))


def run_safely(call: Callable[[], T]) -> tuple[T | None, str]:
    """``(call(), "")``, or ``(None, error)`` when it raises (an error string of :func:`describe`)."""
    try:
        return call(), ""
    except Exception as err:  # one bad page never ends the run: it is recorded
        return None, describe(err)


def _checked(extractor: Extractor, page: Page) -> Extraction:
    extraction = extractor.extract(page)
    if not isinstance(extraction, Extraction) or not isinstance(extraction.text, str):
        raise TypeError(f"extract() returned {type(extraction).__name__}, not Extraction")
    return extraction


def extract_safely(extractor: Extractor, page: Page, max_html_chars: int | None) -> tuple[Extraction | None, str]:
    """The extractor's :class:`Extraction` of ``page``, or None and the error (a page over the
    size limit, an exception, a result of the wrong type)."""
    too_large = size_error(page, max_html_chars)
    if too_large:
        return None, too_large
    return run_safely(lambda: _checked(extractor, page))
