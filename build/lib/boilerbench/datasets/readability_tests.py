"""Mozilla Readability's test pages (130 cases): each page with Readability.js's expected output.

``test-pages/<case>/source.html.gz`` is the page; ``expected.html.gz`` the HTML that
Readability.js's ``parse().content`` gives for it, ``expected-metadata.json`` its title,
byline and the like (kept in ``page.meta``). The gold is therefore one library's regression
expectation, not an independent human annotation. It is HTML: it is turned into text exactly
as an extractor's HTML output would be, through the canonical segmentation
(``segment(expected).join()``: the text of its blocks, one line per block-level break),
so that ``<img>``, scripts and markup count as nothing and paragraph breaks as line breaks.
36 cases are small hand-written fixtures for one behaviour each (``ol``, ``rtl-1``, ...),
not saved web pages.

There is no training split: ``all`` tests on every page; learned extractors are
cross-validated (``cv.folds``).
"""

from __future__ import annotations

from pathlib import Path

from boilerbench.datasets.base import Dataset, Split
from boilerbench.datasets.blocks import segment
from boilerbench.datasets.encoding import decode_bytes
from boilerbench.datasets.page import Page
from boilerbench.datasets.reading import read_gzip, read_json, read_or_error

PAGES_DIR = "test-pages"


def html_to_gold(html: str) -> str:
    """The text of an HTML gold (an extractor's output format) as the canonical blocks give it."""
    return segment(html).join()


def read_case(root: Path, case: str) -> Page:
    """One test case (a missing or corrupt file becomes the page's ``load_error``)."""

    def read() -> Page:
        folder = root / PAGES_DIR / case
        html = decode_bytes(read_gzip(folder / "source.html.gz"), is_html=True)
        expected = decode_bytes(read_gzip(folder / "expected.html.gz"), is_html=True)
        metadata_file = folder / "expected-metadata.json"
        metadata = read_json(metadata_file) if metadata_file.exists() else {}
        return Page(id=case, html=html, gold_text=html_to_gold(expected), meta={"readability": metadata})

    return read_or_error(case, read)


class ReadabilityTests(Dataset):
    """Readability.js's test pages; ``split=all`` (learned methods use ``cv.folds``)."""

    name = "readability-test-pages"
    splits = ("all",)
    required = (PAGES_DIR,)

    def load_split(self, root: Path, split: str) -> Split:
        cases = sorted(p.name for p in (root / PAGES_DIR).iterdir() if p.is_dir())
        return Split(name=split, test=[read_case(root, c) for c in cases])
