"""html-text (Zyte): the whole page as text, another converter baseline."""

from __future__ import annotations

from boilerbench.datasets.page import Page
from boilerbench.extractors.references.base import ReferenceExtractor


class HtmlText(ReferenceExtractor):
    """``html_text.extract_text`` with its layout guessing (newlines around block elements): every
    visible text of the page, no content selection, like ``inscriptis``."""

    MODULE = "html_text"
    DISTRIBUTION = "html-text"

    def __init__(self, guess_layout: bool = True, max_html_chars: int = ReferenceExtractor.MAX_HTML_CHARS) -> None:
        self.guess_layout = guess_layout
        self.max_html_chars = max_html_chars
        self._lib = self._require()

    def _text(self, page: Page) -> str:
        return self._lib.extract_text(page.html, guess_layout=self.guess_layout)
