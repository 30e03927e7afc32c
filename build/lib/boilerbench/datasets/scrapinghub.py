"""Scrapinghub's (Zyte's) Article Extraction Benchmark (2020): 181 article pages.

``html/<id>.html.gz`` is the page (fetched by Splash with JavaScript off, UTF-8, gzip upstream);
``ground-truth.json`` maps each id to ``{"articleBody": text, "url": url}``. The gold is the
article body only: the headline is not part of it. Paragraphs are separated by blank lines;
lines are whitespace-collapsed and blank lines dropped.

There is no training split: ``all`` tests on every page; learned extractors are
cross-validated (``cv.folds``).
"""

from __future__ import annotations

from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.datasets.reading import json_field, read_gzip, read_json, read_or_error
from boilerbench.errors import DatasetNotFoundError
from boilerbench.text import collapse_whitespace

HTML_DIR = "html"
GOLD_FILE = "ground-truth.json"


def plain_lines(text: str) -> str:
    """Text with each line whitespace-collapsed and blank lines dropped."""
    return "\n".join(line for line in (collapse_whitespace(x) for x in text.splitlines()) if line)


def read_page(root: Path, page_id: str, record: object) -> Page:
    """One page from its HTML file and its ``ground-truth.json`` entry (a missing file or
    ``articleBody`` becomes the page's ``load_error``)."""

    def read() -> Page:
        where = f"{GOLD_FILE}[{page_id}]"
        body = json_field(record, "articleBody", where)
        if not isinstance(body, str):
            raise TypeError(f"{where}: articleBody is {type(body).__name__}, not text")
        url = record.get("url") if isinstance(record, dict) else None
        html = decode_bytes(read_gzip(root / HTML_DIR / f"{page_id}.html.gz"), is_html=True)
        return Page(id=page_id, html=html, gold_text=plain_lines(body), url=url or None)

    return read_or_error(page_id, read)


class ScrapinghubAEB(Dataset):
    """The article extraction benchmark; ``split=all`` (learned methods use ``cv.folds``)."""

    name = "scrapinghub-aeb"
    splits = ("all",)
    required = (HTML_DIR, GOLD_FILE)

    def load_split(self, root: Path, split: str) -> Split:
        try:
            table = read_json(root / GOLD_FILE)
        except (OSError, ValueError) as err:
            raise DatasetNotFoundError(f"cannot read {root / GOLD_FILE}: {err}") from err
        if not isinstance(table, dict):
            raise DatasetNotFoundError(f"{root / GOLD_FILE} is not a JSON object of id -> entry")
        return Split(name=split, test=[read_page(root, i, table[i]) for i in sorted(table)])
