"""Extraction and scoring of a run's pages through the engine's pool (:mod:`boilerbench.engine.pool`):
in this process, or in ``n_workers`` forked worker processes that are replaced when they die or
when a page runs past ``page_timeout_s``.

Results come back in page order and are the same as with one process: every step of
:func:`~boilerbench.experiments.scoring.evaluate_page` is deterministic given the extractor.
An exception inside an extractor is already a per-page error; a page whose worker died twice
(``WorkerCrashed``) or that ran past its time limit (``PageTimeout``) is scored as an empty
extraction with that error, as an extractor's exception would be. No page is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from boilerbench.datasets.page import Page
from boilerbench.engine.extraction import PageTimeout
from boilerbench.engine.pool import apply
from boilerbench.experiments.scoring import PageResult, evaluate_page
from boilerbench.extractors.base import Extraction, Extractor


class _Failed:
    """Stands in for the extractor of a page that failed outside it (its worker died, or it ran
    out of time): its extraction is that error."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> _Failed:
        return self

    def extract(self, page: Page) -> Extraction:
        raise self.error


def evaluate_pages(
    extractor: Extractor,
    pages: Sequence[Page],
    max_html_chars: int,
    rouge: bool = False,
    n_workers: int = 1,
    on_result: Callable[[], object] = lambda: None,
    page_timeout_s: float | None = None,
) -> list[PageResult]:
    """Extract and score ``pages`` (in ``n_workers`` forked processes when > 1, and always in a
    worker process when ``page_timeout_s`` limits each page), in page order; ``on_result`` is
    called once per finished page (a progress bar). A timed-out page's ``extract_ms`` is its
    time limit (it took at least that)."""
    pages = list(pages)
    results: list[PageResult | None] = [None] * len(pages)
    if pages:
        # what every row needs and loads lazily (the language identifier, about a second) is
        # loaded here, before workers are forked: they inherit it, rather than each loading its
        # own against its first page's time limit
        pages[0].language  # noqa: B018

    def evaluate(index: int) -> PageResult:
        result = evaluate_page(extractor, pages[index], max_html_chars, rouge=rouge)
        pages[index].release()
        return result

    def done(index: int, result: PageResult) -> None:
        results[index] = result
        on_result()

    def failed(index: int, error: Exception) -> None:
        result = evaluate_page(_Failed(error), pages[index], max_html_chars, rouge=rouge)
        if isinstance(error, PageTimeout):
            result.row["extract_ms"] = 1000 * error.seconds
        done(index, result)

    apply(evaluate, len(pages), n_workers, done, failed, page_timeout_s, lambda i: repr(pages[i].id))
    return [r for r in results if r is not None]
