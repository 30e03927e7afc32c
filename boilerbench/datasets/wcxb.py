"""WCXB (Web Content eXtraction Benchmark, Foley 2026), development split: 1,358 pages of 7 types.

``dev/html/<id>.html.gz`` is the page; ``dev/ground-truth/<id>.json`` holds
``ground_truth.main_content`` (the complete main content as plain text: the gold text),
``ground_truth.with`` / ``without`` (snippets a correct extraction must / must not contain:
:class:`~boilerbench.datasets.page.Snippets`) and the page type; ``metadata.json`` lists every
page with its ``page_type`` (article, forum, product, collection, listing, documentation,
service) and ``domain``. Upstream's test split is not part of this data (the 139 development
pages that upstream also ships as test pages are left out too).

Two gold files have no ``main_content`` (4802, 4893): those pages load with a ``load_error``
(the run records it, nothing is scored for them, training skips them). The 19 single-page
apps (``spa`` in the metadata) have an empty gold: their content is rendered by JavaScript.

Splits: ``wcxb`` (default) is a fixed train / validation / test cut of about 70 / 10 / 20 %,
grouped by domain (no domain in two parts) and stratified by page type, made once by
:func:`make_splits` (seed 0) and shipped as ``splits/wcxb.json`` (the ids are data: a change to
the code that made them does not move pages between parts); ``all`` tests on every page.
``python -m boilerbench.datasets.wcxb splits ROOT`` prints the file anew.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.grouping import grouped_split, load_parts, shipped_parts, splits_command
from boilerbench.datasets.page import Page, Snippets
from boilerbench.datasets.reading import json_field, read_gzip, read_json, read_or_error, string_list
from boilerbench.errors import DatasetNotFoundError

SPLITS_FILE = Path(__file__).with_name("splits") / "wcxb.json"
HTML_DIR = "dev/html"
GOLD_DIR = "dev/ground-truth"
METADATA = "metadata.json"
SHARES = (0.7, 0.1, 0.2)


def make_splits(files: Mapping[str, Mapping], seed: int = 0, shares: tuple[float, ...] = SHARES) -> dict:
    """Train / validation / test page ids, grouped by domain and stratified by page type
    (:func:`~boilerbench.datasets.grouping.grouped_split`; a page without a domain is its own group)."""
    return grouped_split(
        {i: str(e.get("domain") or f"?{i}") for i, e in files.items()},
        {i: str(e.get("page_type")) for i, e in files.items()},
        shares,
        seed,
    )


def read_metadata(root: Path) -> dict[str, dict]:
    """``metadata.json``'s ``files``: id -> {page_type, domain, spa, ...}."""
    try:
        files = json_field(read_json(root / METADATA), "files", root / METADATA)
    except (OSError, ValueError) as err:
        raise DatasetNotFoundError(f"cannot read the WCXB page list {root / METADATA}: {err}") from err
    if not isinstance(files, dict):
        raise DatasetNotFoundError(f"{root / METADATA}: 'files' is not an object of id -> entry")
    return files


def read_page(root: Path, page_id: str, entry: Mapping) -> Page:
    """One page: HTML, gold text, snippets, page type (a missing file or ``main_content``
    becomes the page's ``load_error``; the page type is kept either way)."""
    page_type = entry.get("page_type") or None

    def read() -> Page:
        gold_file = root / GOLD_DIR / f"{page_id}.json"
        record = read_json(gold_file)
        truth = json_field(record, "ground_truth", gold_file)
        text = json_field(record, "ground_truth.main_content", gold_file)
        if not isinstance(text, str) or not isinstance(truth, dict):
            raise TypeError(f"{gold_file}: ground_truth.main_content is not text")
        html = decode_bytes(read_gzip(root / HTML_DIR / f"{page_id}.html.gz"), is_html=True)
        url = record.get("url") if isinstance(record, dict) else None
        return Page(
            id=page_id,
            html=html,
            gold_text=text,
            url=url or None,
            meta={"domain": entry.get("domain"), "spa": bool(entry.get("spa")), "title": truth.get("title")},
            page_type=page_type,
            snippets=Snippets(with_=string_list(truth.get("with")), without=string_list(truth.get("without"))),
        )

    return read_or_error(page_id, read, page_type=page_type)


class WCXB(Dataset):
    """WCXB's development pages with a fixed domain-grouped split (see the module docstring)."""

    name = "wcxb"
    splits = ("wcxb", "all")
    required = (HTML_DIR, GOLD_DIR, METADATA)

    def load_split(self, root: Path, split: str) -> Split:
        files = read_metadata(root)
        return load_parts(
            split,
            files,
            lambda: shipped_parts(SPLITS_FILE, files, root / METADATA),
            lambda i: read_page(root, i, files[i]),
        )


def main(argv: list[str]) -> int:
    """``splits ROOT``: print the splits file made from ROOT's ``metadata.json``."""
    about = (
        "WCXB development pages: train / validation / test, grouped by domain, stratified by page type "
        "(boilerbench.datasets.wcxb.make_splits, seed 0, shares 0.7 / 0.1 / 0.2)"
    )
    return splits_command(argv, __name__, about, lambda root: make_splits(read_metadata(root)))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
