"""magic-html benchmark (OpenDataLab, 2024): 261 pages, 158 articles (news and blogs) and 103
forum / Q&A threads, in many languages, with full-text gold.

``benchmark/data/<kind>/base.json`` maps each id (the SHA-256 of the URL) to ``url``,
``content`` (the gold main text, one block per line) and, for most, ``remark``; the page is
``benchmark/data/<kind>/htmls/<id>.html.gz``. The folder gives the kind (``page_type``:
article or forum); the one ``remark`` that differs from it ("列表页", a list page, whose gold is
empty) is kept in ``meta["remark"]``. Every page is UTF-8 (8 articles declare gb2312 or EUC-JP
wrongly; :func:`~boilerbench.datasets.encoding.decode_bytes` tries UTF-8 first). The site
(``meta["group"]``) is the URL's host. The data labels no language.

One article (e8dff24871ec..., the list page) has an empty gold: it is loaded and scored as it
is (an empty extraction scores 1 on it, as upstream's scorer counts it).

Splits: ``hosts`` (default) is a fixed train / validation / test cut of about 60 / 10 / 30 %,
grouped by host and stratified by kind (:func:`make_splits`, seed 0, shipped as
``splits/magic-html-bench.json``; ``python -m boilerbench.datasets.magic_html splits ROOT``
prints it anew); ``all`` tests on every page.
"""

from __future__ import annotations

import sys
from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.grouping import grouped_split, load_parts, shipped_parts, splits_command, url_host
from boilerbench.datasets.page import Page
from boilerbench.datasets.reading import read_gzip, read_json, read_or_error
from boilerbench.errors import DatasetNotFoundError

SPLITS_FILE = Path(__file__).with_name("splits") / "magic-html-bench.json"
DATA_DIR = "benchmark/data"
KINDS = ("article", "forum")
SHARES = (0.6, 0.1, 0.3)


def read_entries(root: Path) -> dict[str, tuple[str, dict]]:
    """Page id -> (kind, ``base.json`` entry) over both kinds."""
    entries: dict[str, tuple[str, dict]] = {}
    for kind in KINDS:
        path = root / DATA_DIR / kind / "base.json"
        try:
            table = read_json(path)
        except (OSError, ValueError) as err:
            raise DatasetNotFoundError(f"cannot read the magic-html gold {path}: {err}") from err
        if not isinstance(table, dict):
            raise DatasetNotFoundError(f"{path}: not an object of id -> entry")
        entries.update({str(i): (kind, e if isinstance(e, dict) else {}) for i, e in table.items()})
    return entries


def _host(page_id: str, entry: dict) -> str:
    return url_host(entry.get("url")) or f"?{page_id}"


def make_splits(root: Path, seed: int = 0) -> dict[str, list[str]]:
    """Train / validation / test ids of about :data:`SHARES`, grouped by host, stratified by kind."""
    entries = read_entries(root)
    hosts = {i: _host(i, e) for i, (_, e) in entries.items()}
    return grouped_split(hosts, {i: kind for i, (kind, _) in entries.items()}, SHARES, seed)


def read_page(root: Path, page_id: str, kind: str, entry: dict) -> Page:
    """One page (a missing or corrupt HTML file or a gold that is not text becomes the page's
    ``load_error``; kind, URL and host are kept)."""
    url = entry.get("url") if isinstance(entry.get("url"), str) else None
    meta = {"group": _host(page_id, entry)}
    if entry.get("remark") and entry.get("remark") != kind:
        meta["remark"] = str(entry["remark"])

    def read() -> Page:
        gold = entry.get("content")
        if not isinstance(gold, str):
            raise TypeError(f"{DATA_DIR}/{kind}/base.json: {page_id} has no text 'content'")
        html = decode_bytes(read_gzip(root / DATA_DIR / kind / "htmls" / f"{page_id}.html.gz"), is_html=True)
        return Page(id=page_id, html=html, gold_text=gold, url=url, meta=meta, page_type=kind)

    return read_or_error(page_id, read, url=url, meta=meta, page_type=kind)


class MagicHTML(Dataset):
    """The magic-html benchmark with a fixed host-grouped split (see the module docstring)."""

    name = "magic-html-bench"
    splits = ("hosts", "all")
    required = tuple(f"{DATA_DIR}/{kind}/base.json" for kind in KINDS)

    def load_split(self, root: Path, split: str) -> Split:
        entries = read_entries(root)

        return load_parts(
            split,
            entries,
            lambda: shipped_parts(SPLITS_FILE, entries, root / DATA_DIR),
            lambda i: read_page(root, i, *entries[i]),
        )


def main(argv: list[str]) -> int:
    """``splits ROOT``: print the splits file made from ROOT's ``base.json`` files."""
    about = (
        "magic-html benchmark: train / validation / test, grouped by URL host, stratified by page kind "
        f"(boilerbench.datasets.magic_html.make_splits, seed 0, shares {' / '.join(map(str, SHARES))})"
    )
    return splits_command(argv, __name__, about, make_splits)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
