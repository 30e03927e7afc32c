"""The per-page function of ``boilerbench extract``: an input page (:class:`Item`) becomes its
output row, here (:func:`run_pages`, through the engine's worker pool) or on a Dask worker
(:mod:`boilerbench.distributed`), with the same code.

A row is ``extracted`` (with its text), ``empty`` (the extractor found no main text),
``failed`` (its ``error``, written as every error of the project is:
:func:`boilerbench.errors.describe`) or ``skipped`` (its reason). A page whose worker process
died twice is failed with ``WorkerCrashed``, one that ran past ``page_timeout_s`` with
``PageTimeout`` (:mod:`boilerbench.engine.pool`).
"""

from __future__ import annotations

import gc
import gzip
import logging
import time
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boilerbench.engine.extraction import PageTimeout, run_safely
from boilerbench.engine.pool import can_fork, stream_in_workers
from boilerbench.errors import BoilerbenchError, UsageError, describe

if TYPE_CHECKING:
    from boilerbench.api import Document

log = logging.getLogger(__name__)
#: Extractors that read the gold text: they cannot run on pages without one.
NEEDS_GOLD = ("oracle",)
#: A file is binary, not HTML, when more than this share of its first 8 KB are control bytes.
BINARY_SHARE = 0.05
_CONTROL_BYTES = bytes([*range(0, 9), *range(14, 32), 127])
#: Pages read ahead of the rows written, per worker process: bounded memory on any input.
READ_AHEAD_PER_WORKER = 64


@dataclass
class Item:
    """One input page: raw bytes, or the ``path`` of the file to read them from when the page is
    extracted, or why it has none (an ``error``, or a ``skipped`` reason); ``name`` is its output
    file's path under ``-o DIR`` (no extension)."""

    id: str
    data: bytes = b""
    url: str | None = None
    charset: str | None = None
    error: str = ""
    skipped: str = ""
    name: str = ""
    path: str = ""


def read_page_file(path: str | Path) -> bytes:
    """The file's bytes, through gzip when it is gzipped (by its magic number)."""
    data = Path(path).read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def with_bytes(item: Item) -> Item:
    """``item`` with its file read: its bytes, or the error that left it without (``cannot read``);
    an item without a ``path`` as it is."""
    if not item.path:
        return item
    try:
        return replace(item, data=read_page_file(item.path), path="")
    except (OSError, EOFError, zlib.error) as err:
        return replace(item, error=f"cannot read: {describe(err)}", path="")


@dataclass(frozen=True)
class Job:
    """What makes the rows: the extractor (``name`` says which, in warnings), and whether rows
    carry markdown and metadata."""

    extractor: Any
    name: str = ""
    markdown: bool = False
    metadata: bool = False


def looks_binary(data: bytes) -> bool:
    """Whether ``data`` looks like a binary file: many control bytes in its first 8 KB (a UTF-16
    page, which has NUL bytes, starts with a byte-order mark and is not binary)."""
    head = data[:8192]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return controls > BINARY_SHARE * len(head)


def load_extractor(extractor: str | None, model: str | None, options: Sequence[str] = ()) -> Any:
    """The extractor named on the command line, or the one in a model file (default: the shipped
    model); a :class:`~boilerbench.errors.UsageError` for a bad name, option or model file."""
    from boilerbench import api

    if extractor is None:
        if options:
            raise UsageError("--set applies to --extractor (a model file keeps the options it was trained with)")
        try:
            return api.load_model(model).extractor
        except api.ModelNotFoundError as err:
            if model is None:
                raise UsageError(
                    f"this installation has no default model ({api.DEFAULT_MODEL}): "
                    "give --model PATH, or --extractor NAME (see --list-extractors)"
                ) from None
            raise UsageError(str(err)) from None
    if extractor in NEEDS_GOLD:
        raise UsageError(f"extractor {extractor!r} reads the gold text of benchmark pages: it cannot run on your pages")
    from boilerbench.conf import renamed_message
    from boilerbench.configs import extractor_names

    names = extractor_names()
    if extractor not in names:
        raise UsageError(
            renamed_message("extractor", extractor)
            or f"unknown extractor {extractor!r}; choose one of: {', '.join(names)}"
        )
    bad = [o for o in options if "=" not in o]
    if bad:
        raise UsageError(f"--set takes KEY=VALUE, got {bad[0]!r}")
    try:
        return api.load_extractor(extractor, tuple(options)).extractor
    except BoilerbenchError as err:
        raise UsageError(str(err).replace("then use that model file", "then use --model PATH")) from None
    except Exception as err:  # Hydra: an option the extractor does not have
        raise UsageError(f"bad --set for {extractor}: {str(err).splitlines()[0]}") from None


def row(item: Item, status: str, start: float, text: str = "", error: str = "", **extra: Any) -> dict:
    """The output row of ``item``; ``ms`` counts from ``start`` (``time.perf_counter()``)."""
    return {
        "id": item.id,
        "url": item.url,
        "status": status,
        "text": text,
        "error": error,
        "skipped": item.skipped,
        "warnings": extra.pop("warnings", []),
        "ms": round(1000 * (time.perf_counter() - start), 3),
        "name": item.name,
        **extra,
    }


def _document(item: Item, job: Job) -> Document:
    """The page of ``item`` (its bytes decoded), extracted by the ``job``."""
    from boilerbench.api import as_text, extract_document
    from boilerbench.datasets.page import Page

    page = Page(item.id, as_text(item.data, item.charset), "", item.url)
    return extract_document(job.extractor, page, markdown=job.markdown, metadata=job.metadata, name=job.name)


def process(item: Item, job: Job) -> dict:
    """Extract one page with the ``job``'s extractor: its row. An item that carries an error or a
    skip reason is not extracted: its row says so."""
    start = time.perf_counter()
    if item.skipped:
        return row(item, "skipped", start)
    item = with_bytes(item)
    error = item.error
    if not error and not item.data.strip():
        error = "empty page"
    elif not error and looks_binary(item.data):
        error = "binary file, not HTML"
    if error:
        return row(item, "failed", start, error=error)
    document, error = run_safely(lambda: _document(item, job))
    if document is None:
        if error.startswith("PageTooLargeError"):
            error += " (raise it with --set max_html_chars=N)"
        return row(item, "failed", start, error=error)
    extra: dict[str, Any] = {"warnings": document.warnings}
    if document.markdown is not None:
        extra["markdown"] = document.markdown
    if document.metadata is not None:
        extra.update(document.metadata)
    return row(item, "extracted" if document.text.strip() else "empty", start, document.text, **extra)


def failed_row(item: Item, error: Exception) -> dict:
    """The row of a page that failed outside the extractor (its worker died, it ran out of time,
    its Dask task failed); a timed-out page's ``ms`` is its time limit."""
    result = row(item, "failed", time.perf_counter(), error=describe(error))
    if isinstance(error, PageTimeout):
        result["ms"] = 1000 * error.seconds
    return result


def _name(item: Item) -> str:
    return repr(item.id)


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Inside the block, the garbage collector leaves alone every object that exists when it
    starts (:func:`gc.freeze`): the loaded extractor, its models and the libraries imported for
    them, which a full collection would otherwise traverse again and again while pages are
    extracted (12 to 16 % of a page's time with the shipped model in one process). The forked
    workers of :mod:`boilerbench.engine.pool` inherit a heap frozen the same way. What the block
    leaves frozen is handed back to the collector at its end (:func:`gc.unfreeze`)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def run_pages(items: Iterable[Item], job: Job, jobs: int = 1, page_timeout_s: float | None = None) -> Iterator[dict]:
    """The rows of ``items`` in input order, made by ``job``: here (with the heap frozen:
    :func:`frozen_heap`), or in ``jobs`` forked worker processes that serve the whole input
    (always in a worker process when ``page_timeout_s`` limits each page;
    :func:`boilerbench.engine.pool.stream_in_workers`), reading at most
    :data:`READ_AHEAD_PER_WORKER` pages per worker ahead of the rows written. On Ctrl-C the finished
    rows come out before the interrupt."""
    if jobs <= 1 and page_timeout_s is None or not can_fork():
        if jobs > 1 or page_timeout_s is not None:
            log.warning("worker processes and --page-timeout need the fork start method: running in one process")
        with frozen_heap():
            yield from (process(item, job) for item in items)
        return
    window = READ_AHEAD_PER_WORKER * jobs
    pages = stream_in_workers(lambda item: process(item, job), items, jobs, page_timeout_s, _name, window)
    for item, value, _ in pages:  # a row is a dict: what is not is the page's failure
        yield failed_row(item, value) if isinstance(value, Exception) else value
