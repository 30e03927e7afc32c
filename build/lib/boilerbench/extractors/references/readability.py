"""readability-lxml, the Python port of Arc90's Readability."""

from __future__ import annotations

from boilerbench.datasets.blocks import segment
from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor


class Readability(ReferenceExtractor):
    """readability-lxml: ``Document.summary`` as HTML, shown as text with the project's block
    rules (one line per block-level element)."""

    MODULE = "readability"
    DISTRIBUTION = "readability-lxml"

    def __init__(self, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.max_html_chars = max_html_chars
        self._lib = self._require()

    def _text(self, page: Page) -> str:
        summary = self._lib.Document(page.html, url=page.url).summary(html_partial=True)
        return segment(summary).join()
