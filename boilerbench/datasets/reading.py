"""Reading one page's files so that one bad page never ends a dataset.

A loader reads each page through :func:`read_or_error`: when the page's files cannot be read
(a gold file missing, a truncated or corrupt ``.gz``, a JSON gold without the field the
loader needs), the page is kept with ``load_error`` set instead of raising, so that the run
records the problem in that page's row and every other page is still scored. A problem with
the dataset as a whole (a folder missing, a checksum manifest mismatch) is still one clear
error (:mod:`boilerbench.errors`).
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from pathlib import Path

from boilerbench.datasets.page import Page
from boilerbench.errors import describe


class PageReadError(ValueError):
    """A page's file is there but does not hold what the loader needs (a missing JSON key)."""


#: What reading one page's files may raise: missing or unreadable files (``OSError``, gzip's
#: ``BadGzipFile`` among them), truncated archives (``EOFError``), corrupt deflate streams
#: (``zlib.error``), malformed JSON and missing fields (``ValueError``, ``PageReadError``).
READ_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, zlib.error, ValueError, KeyError, TypeError)


def read_or_error(page_id: str, read: Callable[[], Page], **fields) -> Page:
    """``read()``, or on a read error an empty page with ``load_error`` saying what went wrong
    (``fields`` such as ``page_type`` are kept on it, so that per-type counts stay right)."""
    try:
        return read()
    except READ_ERRORS as err:
        return Page(id=page_id, html="", gold_text="", load_error=describe(err), **fields)


def read_gzip(path: Path) -> bytes:
    """The decompressed bytes of a gzip file (``BadGzipFile``, ``EOFError`` or ``zlib.error``
    when it is corrupt or truncated)."""
    return gzip.decompress(path.read_bytes())


def read_json(path: Path) -> object:
    """A JSON file's value (UTF-8)."""
    return json.loads(path.read_bytes().decode("utf-8"))


def json_field(record: object, path: str, where: Path | str) -> object:
    """``record[a][b]...`` for the dotted ``path``; a missing key is a :class:`PageReadError`
    naming the file."""
    node = record
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            raise PageReadError(f"{where}: no {path}")
        node = node[key]
    return node


def string_list(value: object) -> tuple[str, ...]:
    """The non-blank strings of a JSON list (a snippet list), in order; nothing when it is not a list."""
    return tuple(s for s in value if isinstance(s, str) and s.strip()) if isinstance(value, list) else ()
