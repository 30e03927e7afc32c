"""DANIEL v2.1 (Lejeune & Zhu 2018, re-annotated in rundimeco/waddle), development half: 905
news pages from 242 web sites in English, Chinese, Greek, Polish and Russian.

``html/<id>.gz`` is the page (UTF-8 throughout; two Chinese pages declare gb2312/gbk wrongly,
which :func:`~boilerbench.datasets.encoding.decode_bytes` ignores since it tries UTF-8 first);
``reference/<id>`` the gold main text, one paragraph per ``<p>...</p>`` (some lines hold
several, some paragraphs span lines, one opening marker lacks its ``>``): the markers become
line breaks and blank lines are dropped. ``doc_lg.json`` gives each page's language (stored as
its ISO 639-1 code in ``meta["language"]``), ``sites.json`` its web site (``meta["group"]``,
the unit of grouped cross-validation). No URL is recorded. Every page is a news article (the
corpus is news by construction: SOURCE.md), so each has ``page_type`` ``article``: a learner that
uses page types (the stack's page-type classifier) learns from them what an article looks like
in five languages besides WCXB's English ones.

Splits: ``sites`` (default) is a fixed train / validation / test cut of about 60 / 10 / 30 %,
grouped by site and stratified by language (:func:`make_splits`, seed 0, shipped as
``splits/daniel.json``; ``python -m boilerbench.datasets.daniel splits ROOT`` prints it anew);
``all`` tests on every page (for site-grouped ``cv.folds=5 cv.pool=all``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.grouping import grouped_split, load_parts, shipped_parts, splits_command
from boilerbench.datasets.page import Page
from boilerbench.datasets.reading import json_field, read_gzip, read_json, read_or_error
from boilerbench.errors import DatasetNotFoundError

SPLITS_FILE = Path(__file__).with_name("splits") / "daniel.json"
HTML_DIR = "html"
GOLD_DIR = "reference"
LANGUAGES_FILE = "doc_lg.json"
SITES_FILE = "sites.json"
SHARES = (0.6, 0.1, 0.3)
#: doc_lg.json's language names as ISO 639-1 codes.
LANGUAGE_CODES = {"English": "en", "Chinese": "zh", "Greek": "el", "Polish": "pl", "Russian": "ru"}
_MARKER = re.compile(r"</?p(?:>|(?![A-Za-z]))")


def reference_text(text: str) -> str:
    """The gold text of a reference file: ``<p>`` / ``</p>`` markers as line breaks, lines
    stripped, blank lines dropped."""
    lines = (line.strip() for line in _MARKER.sub("\n", text).splitlines())
    return "\n".join(line for line in lines if line)


def read_index(root: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Page id -> language code (``doc_lg.json``) and page id -> site (``sites.json``); a page
    missing from ``sites.json`` is its own site (its id)."""
    try:
        names = read_json(root / LANGUAGES_FILE)
        sites = json_field(read_json(root / SITES_FILE), "sites", root / SITES_FILE)
    except (OSError, ValueError) as err:
        raise DatasetNotFoundError(f"cannot read the DANIEL page lists in {root}: {err}") from err
    if not isinstance(names, dict) or not isinstance(sites, dict):
        raise DatasetNotFoundError(f"{root}: {LANGUAGES_FILE} or {SITES_FILE} is not an object")
    languages = {i: LANGUAGE_CODES.get(str(n), str(n).lower()) for i, n in names.items()}
    site_of = {i: str(site) for site, ids in sites.items() for i in ids}
    return languages, {i: site_of.get(i, i) for i in languages}


def make_splits(root: Path, seed: int = 0) -> dict[str, list[str]]:
    """Train / validation / test ids of about :data:`SHARES`, grouped by site, stratified by language."""
    languages, sites = read_index(root)
    return grouped_split(sites, languages, SHARES, seed)


def read_page(root: Path, page_id: str, language: str, site: str) -> Page:
    """One page (a missing or corrupt file becomes the page's ``load_error``; language and site kept)."""
    meta = {"language": language, "group": site}
    kind = "article"

    def read() -> Page:
        gold = decode_bytes((root / GOLD_DIR / page_id).read_bytes(), is_html=False)
        html = decode_bytes(read_gzip(root / HTML_DIR / f"{page_id}.gz"), is_html=True)
        return Page(id=page_id, html=html, gold_text=reference_text(gold), meta=meta, page_type=kind)

    return read_or_error(page_id, read, meta=meta, page_type=kind)


class Daniel(Dataset):
    """DANIEL v2.1's development half with a fixed site-grouped split (see the module docstring)."""

    name = "daniel"
    splits = ("sites", "all")
    required = (HTML_DIR, GOLD_DIR, LANGUAGES_FILE, SITES_FILE)

    def load_split(self, root: Path, split: str) -> Split:
        languages, sites = read_index(root)

        return load_parts(
            split,
            languages,
            lambda: shipped_parts(SPLITS_FILE, languages, root / LANGUAGES_FILE),
            lambda i: read_page(root, i, languages[i], sites[i]),
        )


def main(argv: list[str]) -> int:
    """``splits ROOT``: print the splits file made from ROOT's ``doc_lg.json`` and ``sites.json``."""
    about = (
        "DANIEL v2.1 development half: train / validation / test, grouped by site, stratified by language "
        f"(boilerbench.datasets.daniel.make_splits, seed 0, shares {' / '.join(map(str, SHARES))})"
    )
    return splits_command(argv, __name__, about, make_splits)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
