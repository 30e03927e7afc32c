"""Extraction and scoring of a run's pages, in this process or in ``n_workers`` processes.

Workers are forked, so they inherit the fitted extractor and the pages without pickling them,
and each is pinned to one thread (torch, BLAS) so that N workers keep N cores busy and no more.
Results come back in page order and are the same as with one process: every step of
:func:`~boilerbench.experiments.scoring.evaluate_page` is deterministic given the extractor.
An exception inside an extractor is already a per-page error; a worker that *dies* (a segfault
in a C parser, the kernel's out-of-memory killer) breaks the pool: the pages that were not
finished are run again, and a page that was in flight at two crashes is then run alone in a
fresh worker: if that worker dies too, the page gets the error ``WorkerCrashed``, and every
other page its result. No page is lost. Workers ignore Ctrl-C (the parent handles it: the pages
not started are cancelled). :func:`run_with_retries` is that loop for any task over indices;
``boilerbench extract -j N`` uses it too.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from boilerbench.datasets.page import Page
from boilerbench.experiments.scoring import PageResult, evaluate_page
from boilerbench.extractors.base import Extraction, Extractor

log = logging.getLogger(__name__)
T = TypeVar("T")

#: What forked workers inherit: (extractor, pages, max_html_chars, rouge).
_job: tuple | None = None


class WorkerCrashed(RuntimeError):
    """The worker process extracting a page died (twice, the second time alone)."""


class _Crashed:
    """Stands in for the extractor of a page whose worker died: its extraction is that error."""

    def __init__(self, message: str) -> None:
        self.message = message

    def fit(self, train: Sequence[Page], validation: Sequence[Page] | None = None) -> _Crashed:
        return self

    def extract(self, page: Page) -> Extraction:
        raise WorkerCrashed(self.message)


def one_thread() -> None:
    """Compute on one thread (OpenMP, torch): one per worker process, so N workers keep N cores
    busy. torch reads ``OMP_NUM_THREADS`` when it is first imported; one already imported is
    pinned here (importing it here would cost every fresh worker seconds)."""
    os.environ["OMP_NUM_THREADS"] = "1"
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _evaluate(index: int) -> PageResult:
    assert _job is not None
    extractor, pages, limit, rouge = _job
    result = evaluate_page(extractor, pages[index], limit, rouge=rouge)
    pages[index].release()
    return result


def _worker_init() -> None:
    """A worker computes on one thread and leaves Ctrl-C to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_thread()


def _round(task: Callable[[int], T], indices: list[int], n_workers: int, done: Callable[[int, T], None]) -> list[int]:
    """Run ``task`` on ``indices`` in a fresh forked pool; the indices left unfinished when a worker died."""
    context = multiprocessing.get_context("fork")
    unfinished = []
    with ProcessPoolExecutor(n_workers, mp_context=context, initializer=_worker_init) as pool:
        futures = {pool.submit(task, i): i for i in indices}
        try:
            for future in as_completed(futures):
                try:
                    done(futures[future], future.result())
                except BrokenProcessPool:
                    unfinished.append(futures[future])
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return sorted(unfinished)


def run_with_retries(
    task: Callable[[int], T], count: int, n_workers: int, done: Callable[[int, T], None], crashed: Callable[[int], None]
) -> None:
    """``done(i, task(i))`` for every i < ``count``, in ``n_workers`` forked workers (``task``
    reads what the parent set up before: forked workers inherit it); ``crashed(i)`` instead for
    an index whose worker died twice, the second time alone (see the module docstring)."""
    crashes: Counter[int] = Counter()
    pending = list(range(count))
    while pending:
        unfinished = _round(task, pending, n_workers, done)
        crashes.update(unfinished)
        for index in (i for i in unfinished if crashes[i] >= 2):  # alone in a fresh worker: a second death is its own
            if _round(task, [index], 1, done):
                crashed(index)
        pending = [i for i in unfinished if crashes[i] < 2]


def evaluate_pages(
    extractor: Extractor,
    pages: Sequence[Page],
    max_html_chars: int,
    rouge: bool = False,
    n_workers: int = 1,
    on_result: Callable[[], object] = lambda: None,
) -> list[PageResult]:
    """Extract and score ``pages`` (in ``n_workers`` forked processes when > 1), in page order;
    ``on_result`` is called once per finished page (a progress bar)."""
    global _job
    pages = list(pages)
    results: list[PageResult | None] = [None] * len(pages)

    def done(index: int, result: PageResult) -> None:
        results[index] = result
        on_result()

    parallel = n_workers > 1 and len(pages) > 1
    if parallel and "fork" not in multiprocessing.get_all_start_methods():
        log.warning("n_workers=%d needs the fork start method: running in one process", n_workers)
        parallel = False
    _job = (extractor, pages, max_html_chars, rouge)
    try:
        if parallel:

            def crashed(index: int) -> None:
                message = f"the worker process died twice on page {pages[index].id!r}"
                log.warning("%s: recorded as its error", message)
                done(index, evaluate_page(_Crashed(message), pages[index], max_html_chars, rouge=rouge))

            run_with_retries(_evaluate, len(pages), n_workers, done, crashed)
        else:
            for index in range(len(pages)):
                done(index, _evaluate(index))
    finally:
        _job = None
    return [r for r in results if r is not None]
