"""trafilatura's evaluation set (adbar/trafilatura ``tests/evaldata.json``, state of 2026-08-21):
990 pages, mostly German news and blogs, with snippet gold only.

Each entry of ``tests/evaldata.json`` (keyed by the page URL, or ``hard::<file>`` /
``recall::<file>`` for 36 entries) names its HTML ``file`` (stored as ``tests/cache/<file>.gz``
or, when not there, ``tests/eval/<file>.gz``, as upstream looks them up) and lists ``with``
snippets a correct extraction must contain and ``without`` snippets it must not
(:class:`~boilerbench.datasets.page.Snippets`, scored as trafilatura scores them:
:mod:`boilerbench.evaluation.snippets`). There is no full-text gold: ``gold_text`` is empty and
``meta["gold"]`` is ``"snippets"``; the full-text metrics of a run on this set measure nothing
and only its snippet figures count. The page id is the file name without ``.html``; the URL is
the key where it is one (``url`` and the site, ``meta["group"]``, left out otherwise); author,
title and date gold are kept in ``meta`` where given. The data labels no language.

Decoding: 4 pages declare UTF-8 but hold a few invalid bytes (outside the main text); they are
read as UTF-8 with those bytes replaced (:func:`~boilerbench.datasets.encoding.decode_bytes`'s
rule for a declared encoding that nothing decodes cleanly). Split ``all`` only (a test set; see
the SOURCE.md's caution: the set was built by trafilatura's maintainers and favours trafilatura).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.grouping import url_host
from boilerbench.datasets.page import Page, Snippets
from boilerbench.datasets.reading import read_gzip, read_json, read_or_error, string_list
from boilerbench.errors import DatasetNotFoundError

GOLD_FILE = "tests/evaldata.json"
#: Where an entry's ``file`` is looked for, in upstream's order.
HTML_DIRS = ("tests/cache", "tests/eval")
META_FIELDS = ("author", "title", "date")


def read_entries(root: Path) -> dict[str, dict]:
    """``evaldata.json``: key -> entry."""
    try:
        table = read_json(root / GOLD_FILE)
    except (OSError, ValueError) as err:
        raise DatasetNotFoundError(f"cannot read the trafilatura gold {root / GOLD_FILE}: {err}") from err
    if not isinstance(table, dict):
        raise DatasetNotFoundError(f"{root / GOLD_FILE}: not an object of URL -> entry")
    return {str(k): v if isinstance(v, dict) else {} for k, v in table.items()}


def _meta_value(value: object) -> str | None:
    if isinstance(value, list):
        value = "; ".join(v for v in value if isinstance(v, str))
    return value.strip() or None if isinstance(value, str) else None


def page_id(entry: Mapping) -> str:
    """The page id: the entry's file name without ``.html``."""
    return str(entry.get("file", "")).removesuffix(".html")


def read_page(root: Path, key: str, entry: Mapping) -> Page:
    """One page (a missing or corrupt HTML file or an entry without ``file`` becomes the page's
    ``load_error``; snippets, URL and site are kept)."""
    name = entry.get("file")
    url = key.strip() if url_host(key) else None
    meta: dict = {"gold": "snippets", **({"group": url_host(key)} if url else {})}
    meta.update({f: v for f in META_FIELDS if (v := _meta_value(entry.get(f)))})
    snippets = Snippets(with_=string_list(entry.get("with")), without=string_list(entry.get("without")))

    def read() -> Page:
        if not isinstance(name, str) or not name:
            raise TypeError(f"{GOLD_FILE}: entry {key!r} names no file")
        found = [root / d / f"{name}.gz" for d in HTML_DIRS if (root / d / f"{name}.gz").is_file()]
        path = found[0] if found else root / HTML_DIRS[-1] / f"{name}.gz"
        html = decode_bytes(read_gzip(path), is_html=True)
        return Page(id=page_id(entry), html=html, gold_text="", url=url, meta=meta, snippets=snippets)

    return read_or_error(page_id(entry) or key, read, url=url, meta=meta, snippets=snippets)


class TrafilaturaEval(Dataset):
    """trafilatura's 990 evaluation pages, snippet gold only, all test pages."""

    name = "trafilatura-eval"
    splits = ("all",)
    required = (GOLD_FILE,)

    def load_split(self, root: Path, split: str) -> Split:
        entries = read_entries(root)
        pages = [read_page(root, k, e) for k, e in entries.items()]
        return Split(name=split, test=sorted(pages, key=lambda p: p.id))
